-- Who created each API key: the session user (and their member id, null for the owner) or the
-- parent key when a key minted it. Revoking a member revokes every key in the tree it created.
-- Keys created before this migration have no recorded creator.
ALTER TABLE api_keys
    ADD COLUMN created_by_user_id   text,
    ADD COLUMN created_by_member_id text REFERENCES members (id),
    ADD COLUMN created_by_key_id    text REFERENCES api_keys (id),
    ADD CONSTRAINT api_keys_one_creator CHECK (created_by_key_id IS NULL OR created_by_user_id IS NULL);
CREATE INDEX api_keys_created_by_member_idx ON api_keys (created_by_member_id) WHERE created_by_member_id IS NOT NULL;
CREATE INDEX api_keys_created_by_key_idx ON api_keys (created_by_key_id) WHERE created_by_key_id IS NOT NULL;
