DROP INDEX IF EXISTS webhook_deliveries_pending_idx;
DROP INDEX IF EXISTS members_email_lower_idx;
DELETE FROM operator_actions WHERE action LIKE 'list-%';
ALTER TABLE operator_actions DROP CONSTRAINT operator_actions_action_check;
ALTER TABLE operator_actions ADD CONSTRAINT operator_actions_action_check CHECK (action IN (
    'approve-review', 'arbiter-sign', 'redeliver', 'retry-job'));
