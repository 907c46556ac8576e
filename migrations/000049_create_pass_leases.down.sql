DROP TABLE IF EXISTS pass_leases;
