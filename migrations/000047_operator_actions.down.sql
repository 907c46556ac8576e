DROP TABLE IF EXISTS operator_actions;
