DROP TABLE treasury_sweeps;
DROP TABLE treasury_rules;
DROP TABLE treasury_buckets;
DROP TABLE treasury_accounts;
