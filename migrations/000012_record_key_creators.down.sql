DROP INDEX IF EXISTS api_keys_created_by_key_idx;
DROP INDEX IF EXISTS api_keys_created_by_member_idx;
ALTER TABLE api_keys
    DROP CONSTRAINT IF EXISTS api_keys_one_creator,
    DROP COLUMN IF EXISTS created_by_key_id,
    DROP COLUMN IF EXISTS created_by_member_id,
    DROP COLUMN IF EXISTS created_by_user_id;
