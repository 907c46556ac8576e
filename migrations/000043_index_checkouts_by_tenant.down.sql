DROP INDEX IF EXISTS checkouts_tenant_created;
