DROP INDEX IF EXISTS policy_decisions_subject_idx;
DROP INDEX IF EXISTS safe_payments_source_created_idx;
DROP TABLE IF EXISTS agent_card_spend;
DROP INDEX IF EXISTS api_keys_agent_idx;
ALTER TABLE api_keys DROP COLUMN IF EXISTS agent_id;
DROP TABLE IF EXISTS agents;
