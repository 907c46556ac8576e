-- GET /v1/checkouts lists a merchant's checkouts newest first, optionally by status and a
-- created_at window: one index serves the tenant's environment in that order.
CREATE INDEX checkouts_tenant_created ON checkouts (tenant_id, environment, created_at DESC, id DESC);
