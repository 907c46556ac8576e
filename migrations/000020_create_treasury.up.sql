-- Treasury accounts: bucket Safes (wallets of purpose TREASURY) with target shares, rules that
-- propose sweeps between them, and the sweeps, each linked to a Safe payment.
CREATE TABLE treasury_accounts (
    id                text PRIMARY KEY,
    tenant_id         text NOT NULL REFERENCES tenants (id),
    environment       text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    name              text NOT NULL CHECK (name <> ''),
    chain_id          bigint NOT NULL,
    threshold         integer NOT NULL CHECK (threshold > 0),
    clock_offset_days integer NOT NULL DEFAULT 0 CHECK (clock_offset_days >= 0),
    created_at        timestamptz NOT NULL
);
CREATE INDEX treasury_accounts_tenant_idx ON treasury_accounts (tenant_id, environment, id);

CREATE TABLE treasury_buckets (
    id          text PRIMARY KEY,
    account_id  text NOT NULL REFERENCES treasury_accounts (id),
    wallet_id   text NOT NULL UNIQUE REFERENCES wallets (id),
    name        text NOT NULL CHECK (name <> ''),
    kind        text NOT NULL CHECK (kind IN ('OPERATING', 'RESERVE', 'YIELD')),
    target_bps  integer NOT NULL CHECK (target_bps BETWEEN 0 AND 10000),
    apy_bps     integer NOT NULL CHECK (apy_bps BETWEEN 0 AND 10000),
    position    integer NOT NULL CHECK (position BETWEEN 0 AND 7),
    UNIQUE (account_id, position)
);

CREATE TABLE treasury_rules (
    id                text PRIMARY KEY,
    account_id        text NOT NULL REFERENCES treasury_accounts (id),
    tenant_id         text NOT NULL REFERENCES tenants (id),
    environment       text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    type              text NOT NULL CHECK (type IN ('SWEEP_EXCESS', 'TOP_UP', 'REBALANCE_TO_TARGET')),
    source_bucket_id  text REFERENCES treasury_buckets (id),
    dest_bucket_id    text REFERENCES treasury_buckets (id),
    threshold_base_units bigint CHECK (threshold_base_units >= 0),
    target_base_units bigint CHECK (target_base_units >= 0),
    interval_seconds  integer NOT NULL CHECK (interval_seconds > 0),
    enabled           boolean NOT NULL,
    last_fired_at     timestamptz,
    last_evaluated_at timestamptz,
    last_skipped_at   timestamptz,
    last_skip_reason  text NOT NULL DEFAULT '',
    created_at        timestamptz NOT NULL,
    deleted_at        timestamptz
);
CREATE INDEX treasury_rules_account_idx ON treasury_rules (account_id, id) WHERE deleted_at IS NULL;
CREATE INDEX treasury_rules_enabled_idx ON treasury_rules (environment, id) WHERE enabled AND deleted_at IS NULL;

CREATE TABLE treasury_sweeps (
    id                text PRIMARY KEY,
    account_id        text NOT NULL REFERENCES treasury_accounts (id),
    tenant_id         text NOT NULL REFERENCES tenants (id),
    environment       text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    rule_id           text REFERENCES treasury_rules (id),
    source_bucket_id  text NOT NULL REFERENCES treasury_buckets (id),
    dest_bucket_id    text NOT NULL REFERENCES treasury_buckets (id),
    amount_base_units bigint NOT NULL CHECK (amount_base_units > 0),
    status            text NOT NULL CHECK (status IN ('PROPOSED')),
    payment_id        text NOT NULL UNIQUE REFERENCES safe_payments (id),
    proposed_by       text NOT NULL DEFAULT '',
    created_at        timestamptz NOT NULL,
    CHECK (source_bucket_id <> dest_bucket_id)
);
CREATE INDEX treasury_sweeps_account_idx ON treasury_sweeps (account_id, id);
CREATE INDEX treasury_sweeps_rule_idx ON treasury_sweeps (rule_id, id) WHERE rule_id IS NOT NULL;
