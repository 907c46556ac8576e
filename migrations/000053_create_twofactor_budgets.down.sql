DROP TABLE twofactor_budgets;
