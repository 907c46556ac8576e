ALTER TABLE members DROP CONSTRAINT members_invite_token_hash_key;
ALTER TABLE members ADD CONSTRAINT members_invite_token_hash_key UNIQUE (invite_token_hash);
ALTER TABLE api_keys DROP CONSTRAINT api_keys_pub_id_key;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_pub_id_key UNIQUE (pub_id);
DROP TABLE tenant_lookups;
ALTER TABLE api_keys DROP CONSTRAINT api_keys_created_by_member_id_fkey;
ALTER TABLE api_keys DROP CONSTRAINT api_keys_created_by_key_id_fkey;
ALTER TABLE api_keys DROP CONSTRAINT api_keys_pkey;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);
ALTER TABLE members DROP CONSTRAINT members_pkey;
ALTER TABLE members ADD CONSTRAINT members_pkey PRIMARY KEY (id);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_created_by_member_id_fkey
    FOREIGN KEY (created_by_member_id) REFERENCES members (id);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_created_by_key_id_fkey
    FOREIGN KEY (created_by_key_id) REFERENCES api_keys (id);
