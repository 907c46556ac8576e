-- Operator lookups across tenants (the admin list API) are audited as the actions are: who
-- looked up which tenants, stuck work, failed jobs or disabled endpoints, and when.
ALTER TABLE operator_actions DROP CONSTRAINT operator_actions_action_check;
ALTER TABLE operator_actions ADD CONSTRAINT operator_actions_action_check CHECK (action IN (
    'approve-review', 'arbiter-sign', 'redeliver', 'retry-job',
    'list-tenants', 'list-stuck-work', 'list-failed-jobs', 'list-disabled-endpoints'));

-- The operator's tenant lookup by a member's email, in any case.
CREATE INDEX members_email_lower_idx ON members (lower(email));

-- The webhook backlog's age (a metric read at every scrape) reads only pending deliveries.
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (environment, next_attempt_at) WHERE status = 'PENDING';
