CREATE TABLE tenants (
    id            text PRIMARY KEY,
    slug          text NOT NULL,
    name          text NOT NULL,
    owner_user_id text NOT NULL,
    created_at    timestamptz NOT NULL,
    CONSTRAINT tenants_slug_key UNIQUE (slug),
    CONSTRAINT tenants_owner_user_id_key UNIQUE (owner_user_id),
    CONSTRAINT tenants_slug_format CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$')
);

CREATE TABLE members (
    id                text PRIMARY KEY,
    tenant_id         text NOT NULL REFERENCES tenants (id),
    email             text NOT NULL,
    display_name      text NOT NULL DEFAULT '',
    role              text NOT NULL CHECK (role IN ('ADMIN', 'MEMBER')),
    status            text NOT NULL CHECK (status IN ('PENDING', 'ACTIVE', 'REVOKED')),
    signer_address    text,
    identity_user_id  text,
    invite_token_hash text NOT NULL,
    invite_expires_at timestamptz NOT NULL,
    created_at        timestamptz NOT NULL,
    accepted_at       timestamptz,
    revoked_at        timestamptz,
    CONSTRAINT members_invite_token_hash_key UNIQUE (invite_token_hash)
);
CREATE INDEX members_tenant_idx ON members (tenant_id, id);
CREATE INDEX members_identity_user_idx ON members (identity_user_id) WHERE status = 'ACTIVE';

CREATE TABLE api_keys (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL REFERENCES tenants (id),
    environment text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    name        text NOT NULL,
    pub_id      text NOT NULL,
    secret_hash text NOT NULL,
    scopes      text[] NOT NULL,
    expires_at  timestamptz,
    revoked_at  timestamptz,
    created_at  timestamptz NOT NULL,
    CONSTRAINT api_keys_pub_id_key UNIQUE (pub_id)
);
CREATE INDEX api_keys_tenant_env_idx ON api_keys (tenant_id, environment, id);

-- Idempotency records (docs/decisions/api.md): scope is the tenant (or the session user before it has a tenant).
CREATE TABLE idempotency_keys (
    scope        text NOT NULL,
    environment  text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    key          text NOT NULL,
    fingerprint  text NOT NULL,
    status_code  integer NOT NULL,
    body         bytea NOT NULL,
    content_type text NOT NULL,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    PRIMARY KEY (scope, environment, key)
);
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);
