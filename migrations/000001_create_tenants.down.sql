DROP TABLE idempotency_keys;
DROP TABLE api_keys;
DROP TABLE members;
DROP TABLE tenants;
