-- The tenant's refunds by environment and time: the refund limits sum them per window
-- (RefundedInWindows) and the activity list pages them, both by tenant, environment and time,
-- which until now scanned every refund of the tenant's checkouts.
CREATE INDEX checkout_refunds_tenant_time ON checkout_refunds (tenant_id, environment, created_at);
