-- The double-entry ledger (docs/architecture.md, docs/ledger.md). Amounts are bigint base units
-- (USDC: 6 decimals). The pure rules live in package ledger; these tables are its store, and
-- the CHECK constraints are backstops for rules the store already enforces before writing.

-- Accounts are immutable once opened. (environment, asset, reference) is unique: accounts are
-- opened lazily by reference (get-or-create). tenant_id is NULL for platform accounts.
CREATE TABLE ledger_accounts (
    id           text PRIMARY KEY,
    environment  text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    asset        text NOT NULL,
    tenant_id    text,
    kind         text NOT NULL,
    reference    text NOT NULL,
    non_negative boolean NOT NULL,
    created_at   timestamptz NOT NULL,
    CONSTRAINT ledger_accounts_reference_key UNIQUE (environment, asset, reference)
);
CREATE INDEX ledger_accounts_tenant_idx ON ledger_accounts (tenant_id, environment, id) WHERE tenant_id IS NOT NULL;

-- One balance row per account, updated in the same transaction as the postings that change it
-- and locked (SELECT … FOR UPDATE, sorted by account id) while a transfer is decided.
-- non_negative repeats the account's flag because a CHECK sees only its own row: the store maps
-- a violation of ledger_balances_non_negative_check to INSUFFICIENT_FUNDS.
-- last_transfer_at is the creation time of the account's latest transfer; a new transfer is
-- never created before it, so every account's history is ordered in time (docs/decisions/README.md).
CREATE TABLE ledger_balances (
    account_id       text PRIMARY KEY REFERENCES ledger_accounts (id),
    non_negative     boolean NOT NULL,
    posted           bigint NOT NULL DEFAULT 0,
    pending_debits   bigint NOT NULL DEFAULT 0,
    pending_credits  bigint NOT NULL DEFAULT 0,
    last_transfer_at timestamptz,
    CONSTRAINT ledger_balances_pending_debits_check CHECK (pending_debits >= 0),
    CONSTRAINT ledger_balances_pending_credits_check CHECK (pending_credits >= 0),
    CONSTRAINT ledger_balances_non_negative_check CHECK (NOT non_negative OR posted - pending_debits >= 0)
) WITH (fillfactor = 70);

-- Transfers are immutable except status and resolved_by (a hold is posted or voided, a transfer
-- reversed). sequence orders the journal. canonical is ledger.CanonicalBytes of the transfer,
-- computed by the store when it posts; the chain link below hashes it at commit.
CREATE TABLE ledger_transfers (
    id          text PRIMARY KEY,
    sequence    bigint GENERATED ALWAYS AS IDENTITY,
    environment text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    reference   text NOT NULL,
    type        text NOT NULL CHECK (type IN ('POSTED', 'PENDING', 'POST_PENDING', 'VOID_PENDING', 'REVERSAL')),
    asset       text NOT NULL,
    pending_id  text REFERENCES ledger_transfers (id),
    reversed_id text REFERENCES ledger_transfers (id),
    amount      bigint NOT NULL,
    expires_at  timestamptz,
    metadata    jsonb NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL,
    status      text NOT NULL CHECK (status IN ('PENDING', 'POSTED', 'VOIDED', 'REVERSED')),
    resolved_by text REFERENCES ledger_transfers (id),
    canonical   bytea NOT NULL,
    CONSTRAINT ledger_transfers_reference_key UNIQUE (environment, reference),
    CONSTRAINT ledger_transfers_sequence_key UNIQUE (sequence)
);

-- One row per leg. Besides the signed amount, each row keeps the balance change the leg made
-- (ledger.Effects) and the account's balance right after it, so a statement's running balance
-- and a balance as of any instant are read, not recomputed; `corridor ledger verify` checks
-- both against the transfers. sequence and created_at repeat the transfer's.
CREATE TABLE ledger_postings (
    transfer_id           text NOT NULL REFERENCES ledger_transfers (id),
    account_id            text NOT NULL REFERENCES ledger_accounts (id),
    sequence              bigint NOT NULL,
    created_at            timestamptz NOT NULL,
    amount                bigint NOT NULL CHECK (amount <> 0),
    posted_delta          bigint NOT NULL,
    pending_debits_delta  bigint NOT NULL,
    pending_credits_delta bigint NOT NULL,
    posted_after          bigint NOT NULL,
    pending_debits_after  bigint NOT NULL CHECK (pending_debits_after >= 0),
    pending_credits_after bigint NOT NULL CHECK (pending_credits_after >= 0),
    PRIMARY KEY (transfer_id, account_id)
);
CREATE INDEX ledger_postings_account_idx ON ledger_postings (account_id, created_at, sequence);

-- The hash chain (docs/decisions/README.md, "Ledger"). Each environment's transfers form 16 chains
-- ("stripes"). A transfer's link is written when its transaction commits: a deferred
-- constraint trigger locks the head of the transaction's stripe (txid mod 16, so one unit of
-- work holds at most one head per environment, and only during its commit) and appends
-- hash = sha256(previous hash in the stripe || canonical bytes), which is ledger.ChainHash.
-- `corridor ledger verify` walks every stripe in position order with ledger.VerifyChain.
CREATE TABLE ledger_chain_heads (
    environment text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    stripe      smallint NOT NULL CHECK (stripe >= 0),
    position    bigint NOT NULL DEFAULT 0,
    hash        bytea NOT NULL DEFAULT ''::bytea,
    PRIMARY KEY (environment, stripe)
) WITH (fillfactor = 50);

INSERT INTO ledger_chain_heads (environment, stripe)
SELECT e, s FROM unnest(ARRAY['TEST', 'LIVE']) AS e, generate_series(0, 15) AS s;

-- One link per transfer, written at commit by the trigger below from the row it fires for. No
-- key or foreign key on transfer_id: only verify looks links up by transfer, and it reports a
-- transfer without a link and a link whose transfer does not hash to it.
CREATE TABLE ledger_chain (
    transfer_id text NOT NULL,
    environment text NOT NULL,
    stripe      smallint NOT NULL,
    position    bigint NOT NULL CHECK (position > 0),
    hash        bytea NOT NULL CHECK (length(hash) = 32),
    CONSTRAINT ledger_chain_position_key UNIQUE (environment, stripe, position)
);

-- The UPDATE locks the head (waiting for the previous commit of the stripe) and computes the
-- new hash from the head as it is once locked.
CREATE FUNCTION ledger_link_transfer() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    s        smallint := (txid_current() % 16)::smallint;
    new_pos  bigint;
    new_hash bytea;
BEGIN
    UPDATE ledger_chain_heads SET position = position + 1, hash = sha256(hash || NEW.canonical)
    WHERE environment = NEW.environment AND stripe = s
    RETURNING position, hash INTO STRICT new_pos, new_hash;
    INSERT INTO ledger_chain (transfer_id, environment, stripe, position, hash)
    VALUES (NEW.id, NEW.environment, s, new_pos, new_hash);
    RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER ledger_transfers_link AFTER INSERT ON ledger_transfers
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_link_transfer();
