-- The whole schema after every migration (pg_dump --schema-only), kept current by
-- TestSchemaIsCurrent in adapters/postgres. Do not edit: add a migration instead.

CREATE TYPE public.river_job_state AS ENUM (
    'available',
    'cancelled',
    'completed',
    'discarded',
    'pending',
    'retryable',
    'running',
    'scheduled'
);

CREATE TABLE public.cards (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    funding text NOT NULL,
    wallet_id text,
    safe_address text,
    cardholder_id text,
    agent_id text,
    issuer text NOT NULL,
    issuer_card_id text NOT NULL,
    last4 text NOT NULL,
    funding_account_id text,
    chain text,
    crypto_account_address text,
    crypto_account_type text,
    status text NOT NULL,
    per_transaction_limit bigint,
    daily_limit bigint,
    weekly_limit bigint,
    monthly_limit bigint,
    blocked_mcc jsonb NOT NULL,
    allowed_mcc jsonb,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT cards_chain_check CHECK ((chain = ANY (ARRAY['solana'::text, 'world_chain'::text, 'base'::text]))),
    CONSTRAINT cards_check CHECK (((funding = 'SAFE'::text) = ((wallet_id IS NOT NULL) AND (safe_address IS NOT NULL)))),
    CONSTRAINT cards_check1 CHECK (((funding = 'FUNDING_ACCOUNT'::text) = (cardholder_id IS NOT NULL))),
    CONSTRAINT cards_crypto_account_type_check CHECK ((crypto_account_type = ANY (ARRAY['standard'::text, 'bridge_wallet'::text]))),
    CONSTRAINT cards_daily_limit_check CHECK ((daily_limit > 0)),
    CONSTRAINT cards_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT cards_funding_check CHECK ((funding = ANY (ARRAY['SAFE'::text, 'FUNDING_ACCOUNT'::text]))),
    CONSTRAINT cards_last4_check CHECK ((last4 ~ '^[0-9]{4}$'::text)),
    CONSTRAINT cards_monthly_limit_check CHECK ((monthly_limit > 0)),
    CONSTRAINT cards_per_transaction_limit_check CHECK ((per_transaction_limit > 0)),
    CONSTRAINT cards_status_check CHECK ((status = ANY (ARRAY['active'::text, 'inactive'::text]))),
    CONSTRAINT cards_weekly_limit_check CHECK ((weekly_limit > 0))
);

CREATE FUNCTION public.card_lock_for_decision(p_tenant text, p_environment text, p_id text, p_day text, p_week text, p_month text, p_skip boolean DEFAULT false) RETURNS TABLE(card public.cards, spent_daily bigint, spent_weekly bigint, spent_monthly bigint, policy_attached boolean)
    LANGUAGE plpgsql
    AS $$
DECLARE
    c cards;
BEGIN
    IF p_skip THEN
        SELECT * INTO c FROM cards
        WHERE tenant_id = p_tenant AND environment = p_environment AND id = p_id
        FOR UPDATE SKIP LOCKED;
    ELSE
        SELECT * INTO c FROM cards
        WHERE tenant_id = p_tenant AND environment = p_environment AND id = p_id
        FOR UPDATE;
    END IF;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT c,
           CASE WHEN s.day_key >= p_day THEN s.spent_daily ELSE 0 END::bigint,
           CASE WHEN s.week_key >= p_week THEN s.spent_weekly ELSE 0 END::bigint,
           CASE WHEN s.month_key >= p_month THEN s.spent_monthly ELSE 0 END::bigint,
           EXISTS (
               SELECT 1 FROM policy_attachments a
               WHERE a.tenant_id = p_tenant AND a.environment = p_environment AND a.detached_at IS NULL
                 AND ((a.subject_type = 'card' AND a.subject_id = c.id)
                   OR (a.subject_type = 'wallet' AND a.subject_id = c.wallet_id)
                   OR (a.subject_type = 'agent' AND a.subject_id = c.agent_id)))
    FROM (SELECT) AS one
    LEFT JOIN card_spend s ON s.tenant_id = p_tenant AND s.card_id = p_id;
END
$$;

CREATE FUNCTION public.idempotency_claim(p_tenant text, p_scope text, p_environment text, p_key text, p_now timestamp with time zone) RETURNS TABLE(claimed boolean, stored boolean, rec_fingerprint text, rec_status_code integer, rec_body bytea, rec_content_type text, rec_created_at timestamp with time zone, rec_expires_at timestamp with time zone)
    LANGUAGE plpgsql
    AS $$
DECLARE
    r record;
    locked boolean := false;
BEGIN
    SELECT k.fingerprint, k.status_code, k.body, k.content_type, k.created_at, k.expires_at INTO r
    FROM idempotency_keys k
    WHERE k.tenant_id = p_tenant AND k.scope = p_scope AND k.environment = p_environment AND k.key = p_key
      AND k.expires_at > p_now;
    IF NOT FOUND THEN
        locked := pg_try_advisory_xact_lock(hashtextextended(p_scope || '|' || p_environment || '|' || p_key, 2));
        IF NOT locked THEN
            RETURN QUERY SELECT false, false, NULL::text, NULL::integer, NULL::bytea, NULL::text,
                NULL::timestamptz, NULL::timestamptz;
            RETURN;
        END IF;
        SELECT k.fingerprint, k.status_code, k.body, k.content_type, k.created_at, k.expires_at INTO r
        FROM idempotency_keys k
        WHERE k.tenant_id = p_tenant AND k.scope = p_scope AND k.environment = p_environment AND k.key = p_key
          AND k.expires_at > p_now;
        IF NOT FOUND THEN
            RETURN QUERY SELECT true, false, NULL::text, NULL::integer, NULL::bytea, NULL::text,
                NULL::timestamptz, NULL::timestamptz;
            RETURN;
        END IF;
    END IF;
    RETURN QUERY SELECT locked, true, r.fingerprint, r.status_code, r.body, r.content_type, r.created_at, r.expires_at;
END
$$;

CREATE FUNCTION public.ledger_chain_bucket(p_tenant text) RETURNS smallint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT (((hashtext(p_tenant)::bigint + 2147483648) * 32) / 4294967296)::smallint
$$;

CREATE FUNCTION public.ledger_chain_key(p_bucket smallint) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT (ARRAY['chain-0-40', 'chain-1-10', 'chain-2-36', 'chain-3-16', 'chain-4-19', 'chain-5-3', 'chain-6-147',
        'chain-7-7', 'chain-8-129', 'chain-9-42', 'chain-10-14', 'chain-11-15', 'chain-12-17', 'chain-13-0',
        'chain-14-46', 'chain-15-6', 'chain-16-27', 'chain-17-5', 'chain-18-6', 'chain-19-10', 'chain-20-126',
        'chain-21-28', 'chain-22-10', 'chain-23-104', 'chain-24-64', 'chain-25-12', 'chain-26-15', 'chain-27-23',
        'chain-28-2', 'chain-29-59', 'chain-30-13', 'chain-31-28'])[p_bucket + 1]
$$;

CREATE FUNCTION public.ledger_chain_lane(p_environment text, p_bucket smallint) RETURNS smallint
    LANGUAGE plpgsql
    AS $$
DECLARE
    setting text := 'corridor.chain_lane_' || lower(p_environment) || '_' || p_bucket;
    s       smallint := nullif(current_setting(setting, true), '')::smallint;
    first   smallint := 16 + 4 * p_bucket;
    k       text := ledger_chain_key(p_bucket);
BEGIN
    IF s IS NOT NULL THEN
        RETURN s;
    END IF;
    SELECT h.stripe INTO s FROM ledger_chain_heads h
    WHERE h.chain_key = k AND h.environment = p_environment AND h.stripe BETWEEN first AND first + 3
    ORDER BY (h.stripe - first + txid_current()) % 4 LIMIT 1 FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        s := first + (txid_current() % 4)::smallint;
        PERFORM 1 FROM ledger_chain_heads h WHERE h.chain_key = k AND h.environment = p_environment AND h.stripe = s
        FOR UPDATE;
    END IF;
    PERFORM set_config(setting, s::text, true);
    RETURN s;
END
$$;

CREATE FUNCTION public.ledger_chain_stripe_key(p_stripe smallint) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT ledger_chain_key(CASE WHEN p_stripe < 16 THEN 0 ELSE (p_stripe - 16) / 4 END::smallint)
$$;

CREATE FUNCTION public.ledger_link_batch(p_environments text[], p_homes text[], p_ids text[], p_canonicals bytea[]) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    n       integer := coalesce(array_length(p_ids, 1), 0);
    ng      integer;
    j       integer;
    i       integer;
    first   smallint;
    ge      text[];     -- each group's environment, in lock order
    gb      smallint[]; -- its bucket
    gk      text[];     -- its bucket's key
    gs      smallint[]; -- its stripe (NULL until locked)
    gp      bigint[];   -- its head's position, then its last link's
    gh      bytea[];    -- its head's hash, then its last link's
    tg      integer[];  -- each transfer's group
    places  bigint[];
    hashes  bytea[];
    stripes smallint[];
    keys    text[];
    s       smallint;
    k       text;
    e       text;
    pos     bigint;
    h       bytea;
    unused  text;
BEGIN
    IF n = 0 THEN
        RETURN 0;
    END IF;
    WITH x AS (
        SELECT t.e, ledger_chain_bucket(t.home) AS b, t.n
        FROM unnest(p_environments, p_homes) WITH ORDINALITY AS t (e, home, n)
    ), g AS (
        SELECT x.e, x.b, ledger_chain_key(x.b) AS k,
            nullif(current_setting('corridor.chain_lane_' || lower(x.e) || '_' || x.b, true), '')::smallint AS s,
            (row_number() OVER (ORDER BY x.e, x.b))::integer AS j
        FROM x GROUP BY x.e, x.b
    )
    SELECT (SELECT array_agg(g.e ORDER BY g.j) FROM g), (SELECT array_agg(g.b ORDER BY g.j) FROM g),
        (SELECT array_agg(g.k ORDER BY g.j) FROM g), (SELECT array_agg(g.s ORDER BY g.j) FROM g),
        (SELECT array_agg(g.j ORDER BY x.n) FROM x JOIN g ON g.e = x.e AND g.b = x.b)
    INTO ge, gb, gk, gs, tg;
    ng := array_length(ge, 1);
    gp := array_fill(NULL::bigint, ARRAY[ng]);
    gh := array_fill(NULL::bytea, ARRAY[ng]);

    IF ng > 1 THEN
        SELECT array_agg(l.stripe ORDER BY g.j), array_agg(l.position ORDER BY g.j), array_agg(l.hash ORDER BY g.j)
        INTO gs, gp, gh
        FROM unnest(ge, gb, gk, gs) WITH ORDINALITY AS g (e, b, k, s, j)
        LEFT JOIN LATERAL (
            SELECT c.stripe, c.position, c.hash FROM ledger_chain_heads c
            WHERE c.chain_key = g.k AND c.environment = g.e AND c.stripe BETWEEN 16 + 4 * g.b AND 19 + 4 * g.b
                AND (g.s IS NULL OR c.stripe = g.s)
            ORDER BY (c.stripe - (16 + 4 * g.b) + txid_current()) % 4 LIMIT 1 FOR UPDATE SKIP LOCKED
        ) l ON true;
    END IF;
    FOR j IN 1..ng LOOP
        CONTINUE WHEN gp[j] IS NOT NULL;
        -- Scalars, not array elements, in the statements: on Citus each names one shard.
        k := gk[j];
        e := ge[j];
        s := gs[j];
        first := 16 + 4 * gb[j];
        IF s IS NOT NULL THEN
            -- Held since an earlier statement of the transaction.
            SELECT c.position, c.hash INTO STRICT pos, h FROM ledger_chain_heads c
            WHERE c.chain_key = k AND c.environment = e AND c.stripe = s;
        ELSE
            SELECT c.stripe, c.position, c.hash INTO s, pos, h FROM ledger_chain_heads c
            WHERE c.chain_key = k AND c.environment = e AND c.stripe BETWEEN first AND first + 3
            ORDER BY (c.stripe - first + txid_current()) % 4 LIMIT 1 FOR UPDATE SKIP LOCKED;
            IF NOT FOUND THEN
                s := first + (txid_current() % 4)::smallint;
                SELECT c.position, c.hash INTO STRICT pos, h FROM ledger_chain_heads c
                WHERE c.chain_key = k AND c.environment = e AND c.stripe = s FOR UPDATE;
            END IF;
        END IF;
        gs[j] := s;
        gp[j] := pos;
        gh[j] := h;
    END LOOP;
    IF ng = 1 THEN
        unused := set_config('corridor.chain_lane_' || lower(ge[1]) || '_' || gb[1], gs[1]::text, true);
    ELSE
        SELECT count(set_config('corridor.chain_lane_' || lower(g.e) || '_' || g.b, g.s::text, true))
        INTO unused FROM unnest(ge, gb, gs) AS g (e, b, s);
    END IF;

    stripes := array_fill(NULL::smallint, ARRAY[n]);
    keys := array_fill(NULL::text, ARRAY[n]);
    places := array_fill(NULL::bigint, ARRAY[n]);
    hashes := array_fill(NULL::bytea, ARRAY[n]);
    FOR i IN 1..n LOOP
        j := tg[i];
        gp[j] := gp[j] + 1;
        gh[j] := sha256(gh[j] || p_canonicals[i]);
        stripes[i] := gs[j];
        keys[i] := gk[j];
        places[i] := gp[j];
        hashes[i] := gh[j];
    END LOOP;

    IF ng = 1 THEN
        k := gk[1];
        e := ge[1];
        s := gs[1];
        pos := gp[1];
        h := gh[1];
        UPDATE ledger_chain_heads SET position = pos, hash = h WHERE chain_key = k AND environment = e AND stripe = s;
    ELSE
        UPDATE ledger_chain_heads c SET position = u.position, hash = u.hash
        FROM unnest(gk, ge, gs, gp, gh) AS u (k, e, s, position, hash)
        WHERE c.chain_key = u.k AND c.environment = u.e AND c.stripe = u.s;
    END IF;
    INSERT INTO ledger_chain (transfer_id, environment, stripe, position, hash, chain_key)
    SELECT x.id, x.e, x.s, x.position, x.hash, x.k
    FROM unnest(p_ids, p_environments, stripes, places, hashes, keys) AS x (id, e, s, position, hash, k);
    RETURN n;
END
$$;

CREATE FUNCTION public.ledger_link_transfer() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    b        smallint := ledger_chain_bucket(NEW.home_tenant_id);
    k        text := ledger_chain_key(b);
    s        smallint := ledger_chain_lane(NEW.environment, b);
    new_pos  bigint;
    new_hash bytea;
BEGIN
    UPDATE ledger_chain_heads SET position = position + 1, hash = sha256(hash || NEW.canonical)
    WHERE chain_key = k AND environment = NEW.environment AND stripe = s
    RETURNING position, hash INTO STRICT new_pos, new_hash;
    INSERT INTO ledger_chain (transfer_id, environment, stripe, position, hash, chain_key)
    VALUES (NEW.id, NEW.environment, s, new_pos, new_hash, k);
    RETURN NULL;
END
$$;

CREATE FUNCTION public.mark_two_phase_commit() RETURNS void
    LANGUAGE plpgsql
    AS $$
BEGIN
    -- A transaction id is assigned only once the coordinator's own tables were written (or
    -- rows locked): a unit that wrote a worker alone needs no second phase.
    IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
        DELETE FROM two_phase_marks WHERE id = 0;
    END IF;
END $$;

CREATE FUNCTION public.policy_versions_immutable() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION 'policy versions are immutable' USING ERRCODE = 'restrict_violation';
END
$$;

CREATE FUNCTION public.river_job_state_in_bitmask(bitmask bit, state public.river_job_state) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $$
    SELECT CASE state
        WHEN 'available' THEN get_bit(bitmask, 7)
        WHEN 'cancelled' THEN get_bit(bitmask, 6)
        WHEN 'completed' THEN get_bit(bitmask, 5)
        WHEN 'discarded' THEN get_bit(bitmask, 4)
        WHEN 'pending'   THEN get_bit(bitmask, 3)
        WHEN 'retryable' THEN get_bit(bitmask, 2)
        WHEN 'running'   THEN get_bit(bitmask, 1)
        WHEN 'scheduled' THEN get_bit(bitmask, 0)
        ELSE 0
    END = 1;
$$;

CREATE TABLE public.agent_card_spend (
    authorization_id text NOT NULL,
    agent_id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    amount_base_units bigint NOT NULL,
    day_start timestamp with time zone NOT NULL,
    week_start timestamp with time zone NOT NULL,
    month_start timestamp with time zone NOT NULL,
    consumed_at timestamp with time zone NOT NULL,
    released_at timestamp with time zone,
    CONSTRAINT agent_card_spend_amount_base_units_check CHECK ((amount_base_units > 0)),
    CONSTRAINT agent_card_spend_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text])))
);

CREATE TABLE public.agents (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    name text NOT NULL,
    status text NOT NULL,
    wallet_id text,
    per_transaction_base_units bigint,
    daily_base_units bigint,
    weekly_base_units bigint,
    monthly_base_units bigint,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    suspended_at timestamp with time zone,
    CONSTRAINT agents_daily_base_units_check CHECK ((daily_base_units > 0)),
    CONSTRAINT agents_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT agents_monthly_base_units_check CHECK ((monthly_base_units > 0)),
    CONSTRAINT agents_per_transaction_base_units_check CHECK ((per_transaction_base_units > 0)),
    CONSTRAINT agents_status_check CHECK ((status = ANY (ARRAY['ACTIVE'::text, 'SUSPENDED'::text]))),
    CONSTRAINT agents_suspended_at CHECK (((status = 'SUSPENDED'::text) = (suspended_at IS NOT NULL))),
    CONSTRAINT agents_weekly_base_units_check CHECK ((weekly_base_units > 0))
);

CREATE TABLE public.api_keys (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    name text NOT NULL,
    pub_id text NOT NULL,
    secret_hash text NOT NULL,
    scopes text[] NOT NULL,
    expires_at timestamp with time zone,
    revoked_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    created_by_user_id text,
    created_by_member_id text,
    created_by_key_id text,
    agent_id text,
    CONSTRAINT api_keys_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT api_keys_one_creator CHECK (((created_by_key_id IS NULL) OR (created_by_user_id IS NULL)))
);

CREATE TABLE public.background_failures (
    pass text NOT NULL,
    item text NOT NULL,
    environment text,
    status text NOT NULL,
    attempts integer NOT NULL,
    last_error text NOT NULL,
    first_failed_at timestamp with time zone NOT NULL,
    last_failed_at timestamp with time zone NOT NULL,
    CONSTRAINT background_failures_attempts_check CHECK ((attempts > 0)),
    CONSTRAINT background_failures_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT background_failures_item_check CHECK ((item <> ''::text)),
    CONSTRAINT background_failures_pass_check CHECK ((pass = ANY (ARRAY['claim.expiry'::text, 'chain.index'::text, 'claim.index'::text]))),
    CONSTRAINT background_failures_status_check CHECK ((status = ANY (ARRAY['RETRYING'::text, 'DEAD'::text])))
);

CREATE TABLE public.bills (
    id text NOT NULL,
    environment text NOT NULL,
    sender_tenant_id text NOT NULL,
    payer_tenant_id text NOT NULL,
    amount_base_units bigint NOT NULL,
    payer_address text NOT NULL,
    payee_address text NOT NULL,
    payee_name text DEFAULT ''::text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    chain_id bigint NOT NULL,
    sender_address text NOT NULL,
    signature text NOT NULL,
    sig_nonce text NOT NULL,
    sig_expires_at timestamp with time zone NOT NULL,
    doc_hash text NOT NULL,
    domain_chain_id bigint NOT NULL,
    domain_verifying_contract text NOT NULL,
    verification_status text NOT NULL,
    failure_reason text DEFAULT ''::text NOT NULL,
    payer_decision text,
    payer_payment_id text,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT bills_amount_base_units_check CHECK ((amount_base_units > 0)),
    CONSTRAINT bills_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT bills_payer_decision_check CHECK ((payer_decision = 'ACCEPTED'::text)),
    CONSTRAINT bills_sig_nonce_check CHECK ((sig_nonce ~ '^(0|[1-9][0-9]{0,77})$'::text)),
    CONSTRAINT bills_verification_status_check CHECK ((verification_status = ANY (ARRAY['UNVERIFIED'::text, 'VERIFIED'::text, 'FAILED'::text])))
);

CREATE TABLE public.card_authorizations (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    card_id text NOT NULL,
    amount_base_units bigint NOT NULL,
    captured_base_units bigint NOT NULL,
    mcc text NOT NULL,
    merchant_name text NOT NULL,
    counterparty text,
    status text NOT NULL,
    decline_reason text,
    day_key text NOT NULL,
    week_key text NOT NULL,
    month_key text NOT NULL,
    hold_transfer_id text,
    policy_id text,
    policy_decision_id text,
    settlement_status text,
    settlement_tx_hash text,
    settlement_error text,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    reversal_reason text,
    CONSTRAINT card_authorizations_amount_base_units_check CHECK ((amount_base_units > 0)),
    CONSTRAINT card_authorizations_check CHECK (((captured_base_units >= 0) AND (captured_base_units <= amount_base_units))),
    CONSTRAINT card_authorizations_check1 CHECK (((status = 'DECLINED'::text) = (decline_reason IS NOT NULL))),
    CONSTRAINT card_authorizations_check2 CHECK (((status = 'CAPTURED'::text) = (settlement_status IS NOT NULL))),
    CONSTRAINT card_authorizations_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT card_authorizations_mcc_check CHECK ((mcc ~ '^[0-9]{4}$'::text)),
    CONSTRAINT card_authorizations_reversal_reason CHECK (((status = 'REVERSED'::text) = (reversal_reason IS NOT NULL))),
    CONSTRAINT card_authorizations_reversal_reason_check CHECK ((reversal_reason = ANY (ARRAY['MERCHANT'::text, 'EXPIRED'::text]))),
    CONSTRAINT card_authorizations_settlement_status_check CHECK ((settlement_status = ANY (ARRAY['PENDING'::text, 'SUBMITTED'::text, 'CONFIRMED'::text, 'FAILED'::text, 'OFF_CHAIN'::text]))),
    CONSTRAINT card_authorizations_status_check CHECK ((status = ANY (ARRAY['APPROVED'::text, 'DECLINED'::text, 'CAPTURED'::text, 'REVERSED'::text])))
);

CREATE TABLE public.card_spend (
    tenant_id text NOT NULL,
    card_id text NOT NULL,
    day_key text NOT NULL COLLATE pg_catalog."C",
    spent_daily bigint NOT NULL,
    week_key text NOT NULL COLLATE pg_catalog."C",
    spent_weekly bigint NOT NULL,
    month_key text NOT NULL COLLATE pg_catalog."C",
    spent_monthly bigint NOT NULL,
    CONSTRAINT card_spend_spent_daily_check CHECK ((spent_daily >= 0)),
    CONSTRAINT card_spend_spent_monthly_check CHECK ((spent_monthly >= 0)),
    CONSTRAINT card_spend_spent_weekly_check CHECK ((spent_weekly >= 0))
);

CREATE TABLE public.cardholders (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    name text NOT NULL,
    email text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT cardholders_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text])))
);

CREATE TABLE public.chain_index_cursors (
    environment text NOT NULL,
    chain_id bigint NOT NULL,
    next_block bigint NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT chain_index_cursors_chain_id_check CHECK ((chain_id > 0)),
    CONSTRAINT chain_index_cursors_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT chain_index_cursors_next_block_check CHECK ((next_block >= 0))
);

CREATE TABLE public.chain_indexed_blocks (
    indexer text NOT NULL,
    environment text NOT NULL,
    chain_id bigint NOT NULL,
    block_number bigint NOT NULL,
    block_hash text NOT NULL,
    items text[] DEFAULT '{}'::text[] NOT NULL,
    recorded_at timestamp with time zone NOT NULL,
    CONSTRAINT chain_indexed_blocks_block_hash_check CHECK ((block_hash ~ '^0x[0-9a-f]{64}$'::text)),
    CONSTRAINT chain_indexed_blocks_block_number_check CHECK ((block_number >= 0)),
    CONSTRAINT chain_indexed_blocks_chain_id_check CHECK ((chain_id > 0)),
    CONSTRAINT chain_indexed_blocks_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT chain_indexed_blocks_indexer_check CHECK ((indexer = ANY (ARRAY['LEDGER_MIRROR'::text, 'CLAIM_ESCROW'::text])))
);

CREATE TABLE public.checkout_refunds (
    id text NOT NULL,
    checkout_id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    amount_base_units bigint NOT NULL,
    destination text NOT NULL,
    status text NOT NULL,
    tx_hash text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT checkout_refunds_amount_base_units_check CHECK ((amount_base_units > 0)),
    CONSTRAINT checkout_refunds_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT checkout_refunds_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'PROCESSED'::text])))
);

CREATE TABLE public.checkouts (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    chain_id bigint NOT NULL,
    amount_base_units bigint NOT NULL,
    currency text NOT NULL,
    cryptocurrency text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    customer_email text DEFAULT ''::text NOT NULL,
    customer_name text DEFAULT ''::text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    deposit_address text NOT NULL,
    start_block bigint NOT NULL,
    status text NOT NULL,
    received bigint DEFAULT 0 NOT NULL,
    credited bigint DEFAULT 0 NOT NULL,
    refunded bigint DEFAULT 0 NOT NULL,
    transaction_hash text DEFAULT ''::text NOT NULL,
    confirmations bigint DEFAULT 0 NOT NULL,
    payer_address text DEFAULT ''::text NOT NULL,
    failure_reason text DEFAULT ''::text NOT NULL,
    sweep_tx_hash text DEFAULT ''::text NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    watch_until timestamp with time zone NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    completed_at timestamp with time zone,
    CONSTRAINT checkouts_amount_base_units_check CHECK ((amount_base_units > 0)),
    CONSTRAINT checkouts_check CHECK (((credited >= 0) AND (credited <= received))),
    CONSTRAINT checkouts_check1 CHECK (((refunded >= 0) AND (refunded <= credited))),
    CONSTRAINT checkouts_cryptocurrency_check CHECK ((cryptocurrency = 'USDC'::text)),
    CONSTRAINT checkouts_currency_check CHECK ((currency = 'USD'::text)),
    CONSTRAINT checkouts_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT checkouts_received_check CHECK ((received >= 0)),
    CONSTRAINT checkouts_start_block_check CHECK ((start_block >= 0)),
    CONSTRAINT checkouts_status_check CHECK ((status = ANY (ARRAY['CREATED'::text, 'PENDING'::text, 'COMPLETED'::text, 'FAILED'::text])))
);

CREATE TABLE public.contacts (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    address text NOT NULL,
    address_lower text NOT NULL,
    label text NOT NULL,
    chain_id bigint NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT contacts_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text])))
);

CREATE TABLE public.custody_keys (
    ref text NOT NULL,
    address text NOT NULL,
    sealed_key bytea NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT custody_keys_address_check CHECK ((address ~ '^0x[0-9a-fA-F]{40}$'::text))
);

CREATE TABLE public.drips (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    wallet_id text NOT NULL,
    address text NOT NULL,
    chain_id bigint NOT NULL,
    asset text NOT NULL,
    amount_base_units bigint NOT NULL,
    status text NOT NULL,
    tx_hash text,
    failure_reason text,
    send_started_at timestamp with time zone,
    send_from_block bigint DEFAULT 0 NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    purpose text DEFAULT 'faucet'::text NOT NULL,
    CONSTRAINT drips_amount_base_units_check CHECK ((amount_base_units > 0)),
    CONSTRAINT drips_asset_check CHECK ((asset = ANY (ARRAY['usdc'::text, 'eth'::text]))),
    CONSTRAINT drips_confirmed_has_hash CHECK (((status <> 'CONFIRMED'::text) OR (tx_hash IS NOT NULL))),
    CONSTRAINT drips_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT drips_purpose_check CHECK ((purpose = ANY (ARRAY['faucet'::text, 'ramp'::text]))),
    CONSTRAINT drips_status_check CHECK ((status = ANY (ARRAY['SUBMITTED'::text, 'CONFIRMED'::text, 'FAILED'::text])))
);

CREATE TABLE public.events (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    type text NOT NULL,
    resource_id text NOT NULL,
    data jsonb NOT NULL,
    created_at timestamp with time zone NOT NULL,
    dispatched_at timestamp with time zone,
    CONSTRAINT events_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT events_resource_id_check CHECK ((resource_id <> ''::text)),
    CONSTRAINT events_type_check CHECK ((type ~ '^[a-z0-9_]+(\.[a-z0-9_]+)+$'::text))
);

CREATE TABLE public.handles (
    environment text NOT NULL,
    handle text NOT NULL,
    tenant_id text NOT NULL,
    wallet_id text NOT NULL,
    display_name text,
    verified boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT handles_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text])))
);

CREATE TABLE public.idempotency_keys (
    scope text NOT NULL,
    environment text NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    status_code integer NOT NULL,
    body bytea NOT NULL,
    content_type text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    tenant_id text NOT NULL,
    CONSTRAINT idempotency_keys_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT idempotency_keys_tenant_of_scope CHECK ((tenant_id =
CASE
    WHEN (scope ~~ 'tenant:%'::text) THEN substr(scope, 8)
    ELSE scope
END))
);

CREATE TABLE public.invoices (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    payee_name text DEFAULT ''::text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    amount_base_units bigint NOT NULL,
    payer_address text NOT NULL,
    payee_address text NOT NULL,
    arbiter_address text NOT NULL,
    chain_id bigint NOT NULL,
    status text NOT NULL,
    hold_wallet_id text,
    release_payment_id text,
    refund_payment_id text,
    evidence text DEFAULT ''::text NOT NULL,
    expires_at timestamp with time zone,
    funded_at timestamp with time zone,
    clock_offset_seconds bigint DEFAULT 0 NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT invoices_amount_base_units_check CHECK ((amount_base_units > 0)),
    CONSTRAINT invoices_check CHECK (((lower(payer_address) <> lower(payee_address)) AND (lower(payer_address) <> lower(arbiter_address)) AND (lower(payee_address) <> lower(arbiter_address)))),
    CONSTRAINT invoices_check1 CHECK (((status = 'DRAFT'::text) OR (status = 'CANCELLED'::text) OR (hold_wallet_id IS NOT NULL))),
    CONSTRAINT invoices_check2 CHECK (((release_payment_id IS NULL) OR (refund_payment_id IS NULL))),
    CONSTRAINT invoices_clock_offset_seconds_check CHECK ((clock_offset_seconds >= 0)),
    CONSTRAINT invoices_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT invoices_status_check CHECK ((status = ANY (ARRAY['DRAFT'::text, 'SENT'::text, 'FUNDED'::text, 'DELIVERED'::text, 'EXPIRED'::text, 'RELEASED'::text, 'REFUNDED'::text, 'CANCELLED'::text])))
);

CREATE TABLE public.job_workers (
    client_id text NOT NULL,
    replica text NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    heartbeat_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.ledger_account_homes (
    account_id text NOT NULL,
    home_tenant_id text NOT NULL
);

CREATE TABLE public.ledger_accounts (
    id text NOT NULL,
    environment text NOT NULL,
    asset text NOT NULL,
    tenant_id text,
    kind text NOT NULL,
    reference text NOT NULL,
    non_negative boolean NOT NULL,
    created_at timestamp with time zone NOT NULL,
    home_tenant_id text DEFAULT ''::text NOT NULL,
    CONSTRAINT ledger_accounts_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text])))
);

CREATE TABLE public.ledger_anchors (
    id bigint NOT NULL,
    created_at timestamp with time zone NOT NULL,
    root bytea NOT NULL,
    heads jsonb NOT NULL,
    chain_environment text NOT NULL,
    chain_id bigint NOT NULL,
    payload bytea NOT NULL,
    tx_hash text,
    block_number bigint,
    mined_at timestamp with time zone,
    CONSTRAINT ledger_anchors_block_number_check CHECK ((block_number >= 0)),
    CONSTRAINT ledger_anchors_chain_environment_check CHECK ((chain_environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT ledger_anchors_chain_id_check CHECK ((chain_id > 0)),
    CONSTRAINT ledger_anchors_check CHECK (((mined_at IS NULL) = (block_number IS NULL))),
    CONSTRAINT ledger_anchors_check1 CHECK (((mined_at IS NULL) OR (tx_hash IS NOT NULL))),
    CONSTRAINT ledger_anchors_heads_check CHECK (((jsonb_typeof(heads) = 'array'::text) AND (jsonb_array_length(heads) > 0))),
    CONSTRAINT ledger_anchors_root_check CHECK ((length(root) = 32)),
    CONSTRAINT ledger_anchors_tx_hash_check CHECK ((tx_hash ~ '^0x[0-9a-f]{64}$'::text))
);

ALTER TABLE public.ledger_anchors ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.ledger_anchors_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.ledger_balances (
    account_id text NOT NULL,
    non_negative boolean NOT NULL,
    posted bigint DEFAULT 0 NOT NULL,
    pending_debits bigint DEFAULT 0 NOT NULL,
    pending_credits bigint DEFAULT 0 NOT NULL,
    last_transfer_at timestamp with time zone,
    home_tenant_id text NOT NULL,
    CONSTRAINT ledger_balances_non_negative_check CHECK (((NOT non_negative) OR ((posted - pending_debits) >= 0))),
    CONSTRAINT ledger_balances_pending_credits_check CHECK ((pending_credits >= 0)),
    CONSTRAINT ledger_balances_pending_debits_check CHECK ((pending_debits >= 0))
)
WITH (fillfactor='70');

CREATE TABLE public.ledger_chain (
    transfer_id text NOT NULL,
    environment text NOT NULL,
    stripe smallint NOT NULL,
    "position" bigint NOT NULL,
    hash bytea NOT NULL,
    chain_key text NOT NULL,
    CONSTRAINT ledger_chain_hash_check CHECK ((length(hash) = 32)),
    CONSTRAINT ledger_chain_position_check CHECK (("position" > 0))
);

CREATE TABLE public.ledger_chain_heads (
    environment text NOT NULL,
    stripe smallint NOT NULL,
    "position" bigint DEFAULT 0 NOT NULL,
    hash bytea DEFAULT '\x'::bytea NOT NULL,
    chain_key text NOT NULL,
    CONSTRAINT ledger_chain_heads_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT ledger_chain_heads_stripe_check CHECK ((stripe >= 0))
)
WITH (fillfactor='50');

CREATE TABLE public.ledger_home_split (
    only_row boolean DEFAULT true NOT NULL,
    split_at timestamp with time zone NOT NULL,
    CONSTRAINT ledger_home_split_only_row_check CHECK (only_row)
);

CREATE TABLE public.ledger_postings (
    transfer_id text NOT NULL,
    account_id text NOT NULL,
    sequence bigint NOT NULL,
    created_at timestamp with time zone NOT NULL,
    amount bigint NOT NULL,
    posted_delta bigint NOT NULL,
    pending_debits_delta bigint NOT NULL,
    pending_credits_delta bigint NOT NULL,
    posted_after bigint NOT NULL,
    pending_debits_after bigint NOT NULL,
    pending_credits_after bigint NOT NULL,
    home_tenant_id text NOT NULL,
    transfer_home_tenant_id text NOT NULL,
    CONSTRAINT ledger_postings_amount_check CHECK ((amount <> 0)),
    CONSTRAINT ledger_postings_pending_credits_after_check CHECK ((pending_credits_after >= 0)),
    CONSTRAINT ledger_postings_pending_debits_after_check CHECK ((pending_debits_after >= 0))
);

CREATE TABLE public.ledger_transfers (
    id text NOT NULL,
    sequence bigint NOT NULL,
    environment text NOT NULL,
    reference text NOT NULL,
    type text NOT NULL,
    asset text NOT NULL,
    pending_id text,
    reversed_id text,
    amount bigint NOT NULL,
    expires_at timestamp with time zone,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone NOT NULL,
    status text NOT NULL,
    resolved_by text,
    canonical bytea NOT NULL,
    chain_linked boolean DEFAULT false NOT NULL,
    posting_accounts text[] NOT NULL,
    posting_amounts bigint[] NOT NULL,
    home_tenant_id text DEFAULT ''::text NOT NULL,
    CONSTRAINT ledger_transfers_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT ledger_transfers_postings_check CHECK (((array_ndims(posting_accounts) = 1) AND (array_ndims(posting_amounts) = 1) AND (cardinality(posting_accounts) >= 2) AND (cardinality(posting_accounts) = cardinality(posting_amounts)) AND (array_position(posting_accounts, NULL::text) IS NULL) AND (array_position(posting_amounts, NULL::bigint) IS NULL) AND (0 <> ALL (posting_amounts)))),
    CONSTRAINT ledger_transfers_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'POSTED'::text, 'VOIDED'::text, 'REVERSED'::text]))),
    CONSTRAINT ledger_transfers_type_check CHECK ((type = ANY (ARRAY['POSTED'::text, 'PENDING'::text, 'POST_PENDING'::text, 'VOID_PENDING'::text, 'REVERSAL'::text])))
);

ALTER TABLE public.ledger_transfers ALTER COLUMN sequence ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.ledger_transfers_sequence_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.members (
    id text NOT NULL,
    tenant_id text NOT NULL,
    email text NOT NULL,
    display_name text DEFAULT ''::text NOT NULL,
    role text NOT NULL,
    status text NOT NULL,
    signer_address text,
    identity_user_id text,
    invite_token_hash text NOT NULL,
    invite_expires_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone NOT NULL,
    accepted_at timestamp with time zone,
    revoked_at timestamp with time zone,
    CONSTRAINT members_role_check CHECK ((role = ANY (ARRAY['ADMIN'::text, 'MEMBER'::text]))),
    CONSTRAINT members_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'ACTIVE'::text, 'REVOKED'::text])))
);

CREATE TABLE public.offramp_claim_challenges (
    id text NOT NULL,
    claim_id text NOT NULL,
    environment text NOT NULL,
    code_hash text NOT NULL,
    phone_hash text NOT NULL,
    ip_hash text NOT NULL,
    status text NOT NULL,
    attempts_remaining integer NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    verified_at timestamp with time zone,
    consumed_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    tenant_id text NOT NULL,
    CONSTRAINT offramp_claim_challenges_attempts_remaining_check CHECK ((attempts_remaining >= 0)),
    CONSTRAINT offramp_claim_challenges_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT offramp_claim_challenges_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'VERIFIED'::text, 'CANCELLED'::text, 'CONSUMED'::text])))
);

CREATE TABLE public.offramp_claim_links (
    token_hash text NOT NULL,
    claim_id text NOT NULL,
    environment text NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    superseded_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    tenant_id text NOT NULL,
    CONSTRAINT offramp_claim_links_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text])))
);

CREATE TABLE public.offramp_claims (
    id text NOT NULL,
    onchain_id text NOT NULL,
    environment text NOT NULL,
    payment_id text NOT NULL,
    sender_tenant_id text NOT NULL,
    recipient_tenant_id text,
    phone_hash text NOT NULL,
    phone_masked text NOT NULL,
    phone_ciphertext bytea NOT NULL,
    amount_base_units bigint NOT NULL,
    chain_id bigint NOT NULL,
    chain_key text NOT NULL,
    asset_id text NOT NULL,
    metadata_hash text NOT NULL,
    status text NOT NULL,
    funded boolean DEFAULT false NOT NULL,
    fund_tx_hash text,
    lock_tx_hash text,
    release_tx_hash text,
    refund_tx_hash text,
    cancel_tx_hash text,
    decision_hash text,
    expires_at timestamp with time zone NOT NULL,
    redeemed_at timestamp with time zone,
    resend_count integer DEFAULT 0 NOT NULL,
    resend_window_start timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT offramp_claims_amount_base_units_check CHECK ((amount_base_units > 0)),
    CONSTRAINT offramp_claims_chain_id_check CHECK ((chain_id > 0)),
    CONSTRAINT offramp_claims_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT offramp_claims_metadata_hash_check CHECK ((metadata_hash ~ '^0x[0-9a-f]{64}$'::text)),
    CONSTRAINT offramp_claims_onchain_id_check CHECK ((onchain_id ~ '^0x[0-9a-f]{64}$'::text)),
    CONSTRAINT offramp_claims_phone_ciphertext_check CHECK ((length(phone_ciphertext) > 0)),
    CONSTRAINT offramp_claims_phone_hash_check CHECK ((phone_hash <> ''::text)),
    CONSTRAINT offramp_claims_resend_count_check CHECK ((resend_count >= 0)),
    CONSTRAINT offramp_claims_status_check CHECK ((status = ANY (ARRAY['OPEN'::text, 'LOCKED'::text, 'RELEASED'::text, 'REFUNDED'::text, 'EXPIRED'::text, 'CANCELED'::text])))
);

CREATE TABLE public.offramp_escrow_cursors (
    environment text NOT NULL,
    chain_id bigint NOT NULL,
    next_block bigint NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT offramp_escrow_cursors_chain_id_check CHECK ((chain_id > 0)),
    CONSTRAINT offramp_escrow_cursors_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT offramp_escrow_cursors_next_block_check CHECK ((next_block >= 0))
);

CREATE TABLE public.offramp_escrow_events (
    chain_id bigint NOT NULL,
    tx_hash text NOT NULL,
    log_index bigint NOT NULL,
    claim_id text NOT NULL,
    kind text NOT NULL,
    recorded_at timestamp with time zone NOT NULL,
    tenant_id text NOT NULL,
    CONSTRAINT offramp_escrow_events_chain_id_check CHECK ((chain_id > 0)),
    CONSTRAINT offramp_escrow_events_kind_check CHECK ((kind = ANY (ARRAY['FUNDED'::text, 'LOCKED'::text, 'RELEASED'::text, 'REFUNDED'::text, 'CANCELED'::text, 'EXPIRY_SHORTENED'::text]))),
    CONSTRAINT offramp_escrow_events_log_index_check CHECK ((log_index >= 0))
);

CREATE TABLE public.offramp_hold_rechecks (
    payment_id text NOT NULL,
    attempts integer NOT NULL,
    next_at timestamp with time zone NOT NULL,
    tenant_id text NOT NULL,
    CONSTRAINT offramp_hold_rechecks_attempts_check CHECK ((attempts > 0))
);

CREATE TABLE public.offramp_payments (
    id text NOT NULL,
    environment text NOT NULL,
    sender_tenant_id text NOT NULL,
    recipient_tenant_id text,
    recipient_phone_hash text NOT NULL,
    recipient_phone_masked text NOT NULL,
    claim_id text,
    source_chain_key text NOT NULL,
    source_asset_id text NOT NULL,
    source_amount_base_units bigint NOT NULL,
    funding_mode text NOT NULL,
    requested_destination_id text,
    speed_preference text NOT NULL,
    status text NOT NULL,
    hold_reasons text[] DEFAULT '{}'::text[] NOT NULL,
    selected_quote_id text,
    quote_set_version integer DEFAULT 0 NOT NULL,
    reservation integer DEFAULT 0 NOT NULL,
    hold_transfer_id text,
    attempt integer DEFAULT 0 NOT NULL,
    provider text,
    provider_reference text,
    failure_reason text,
    delivered_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    requote_reason text,
    CONSTRAINT offramp_payments_delivered_at CHECK (((status <> 'DELIVERED'::text) OR (delivered_at IS NOT NULL))),
    CONSTRAINT offramp_payments_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT offramp_payments_source_amount_base_units_check CHECK ((source_amount_base_units > 0))
);

CREATE TABLE public.offramp_returns (
    payment_id text NOT NULL,
    transfer_id text NOT NULL,
    amount_base_units bigint NOT NULL,
    created_at timestamp with time zone NOT NULL,
    tenant_id text NOT NULL,
    CONSTRAINT offramp_returns_amount_base_units_check CHECK ((amount_base_units > 0))
);

CREATE TABLE public.offramp_review_approvals (
    payment_id text NOT NULL,
    operator text NOT NULL,
    reasons text[] NOT NULL,
    approved_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    tenant_id text NOT NULL
);

CREATE TABLE public.operator_actions (
    id bigint NOT NULL,
    at timestamp with time zone NOT NULL,
    operator text NOT NULL,
    action text NOT NULL,
    object_id text NOT NULL,
    tenant_id text,
    environment text,
    outcome text NOT NULL,
    detail text DEFAULT ''::text NOT NULL,
    via text NOT NULL,
    CONSTRAINT operator_actions_action_check CHECK ((action = ANY (ARRAY['approve-review'::text, 'arbiter-sign'::text, 'redeliver'::text, 'retry-job'::text, 'list-tenants'::text, 'list-stuck-work'::text, 'list-failed-jobs'::text, 'list-disabled-endpoints'::text]))),
    CONSTRAINT operator_actions_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT operator_actions_outcome_check CHECK ((outcome = ANY (ARRAY['done'::text, 'refused'::text]))),
    CONSTRAINT operator_actions_via_check CHECK ((via = ANY (ARRAY['console'::text, 'api'::text])))
);

ALTER TABLE public.operator_actions ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.operator_actions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.pass_leases (
    name text NOT NULL,
    holder text NOT NULL,
    expires_at timestamp with time zone NOT NULL
);

CREATE TABLE public.payout_destinations (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    type text NOT NULL,
    status text NOT NULL,
    masked text NOT NULL,
    allow_automatic_fallback boolean NOT NULL,
    identifier_ciphertext bytea,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT payout_destinations_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT payout_destinations_status_check CHECK ((status = ANY (ARRAY['ACTIVE'::text, 'DISABLED'::text, 'REVOKED'::text])))
);

CREATE TABLE public.payout_liquidity_top_ups (
    environment text NOT NULL,
    provider text NOT NULL,
    reference text NOT NULL,
    amount_base_units bigint NOT NULL,
    operator text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT payout_liquidity_top_ups_amount_base_units_check CHECK ((amount_base_units > 0)),
    CONSTRAINT payout_liquidity_top_ups_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT payout_liquidity_top_ups_reference_check CHECK ((reference <> ''::text))
);

CREATE TABLE public.payout_mock_transfers (
    provider text NOT NULL,
    reference text NOT NULL,
    idempotency_key text NOT NULL,
    amount_base_units bigint NOT NULL,
    step integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone NOT NULL
);

CREATE TABLE public.payout_onchain_transfers (
    reference text NOT NULL,
    idempotency_key text NOT NULL,
    environment text NOT NULL,
    to_address text NOT NULL,
    amount_base_units bigint NOT NULL,
    tx_hash text,
    sending_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT payout_onchain_transfers_amount_base_units_check CHECK ((amount_base_units > 0))
);

CREATE TABLE public.phone_alias_attempts (
    id bigint NOT NULL,
    environment text NOT NULL,
    kind text NOT NULL,
    phone_hash text NOT NULL,
    tenant_id text NOT NULL,
    ip_hash text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT phone_alias_attempts_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT phone_alias_attempts_kind_check CHECK ((kind = ANY (ARRAY['CODE_SENT'::text, 'CODE_FAILED'::text])))
);

ALTER TABLE public.phone_alias_attempts ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.phone_alias_attempts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.phone_aliases (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    phone_hash text NOT NULL,
    phone_ciphertext bytea NOT NULL,
    masked text NOT NULL,
    status text NOT NULL,
    code_hash text DEFAULT ''::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    code_expires_at timestamp with time zone NOT NULL,
    verified_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT phone_aliases_attempts_check CHECK (((attempts >= 0) AND (attempts <= 5))),
    CONSTRAINT phone_aliases_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT phone_aliases_status_check CHECK ((status = ANY (ARRAY['PENDING_VERIFICATION'::text, 'VERIFIED'::text, 'FAILED'::text])))
);

CREATE TABLE public.policies (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    name text NOT NULL,
    status text NOT NULL,
    active_version_id text NOT NULL,
    active_version integer NOT NULL,
    created_at timestamp with time zone NOT NULL,
    archived_at timestamp with time zone,
    CONSTRAINT policies_active_version_check CHECK ((active_version >= 1)),
    CONSTRAINT policies_check CHECK (((status = 'ARCHIVED'::text) = (archived_at IS NOT NULL))),
    CONSTRAINT policies_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT policies_status_check CHECK ((status = ANY (ARRAY['ACTIVE'::text, 'ARCHIVED'::text])))
);

CREATE TABLE public.policy_attachments (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    policy_id text NOT NULL,
    subject_type text NOT NULL,
    subject_id text NOT NULL,
    attached_at timestamp with time zone NOT NULL,
    detached_at timestamp with time zone,
    CONSTRAINT policy_attachments_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT policy_attachments_subject_type_check CHECK ((subject_type = ANY (ARRAY['wallet'::text, 'card'::text, 'agent'::text, 'treasury_account'::text, 'service_balance'::text])))
);

CREATE TABLE public.policy_decisions (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    policy_id text NOT NULL,
    version_id text NOT NULL,
    policy_version integer NOT NULL,
    sha256 text NOT NULL,
    subject_type text,
    subject_id text,
    source text NOT NULL,
    reference_id text,
    mode text,
    amount_base_units bigint NOT NULL,
    mcc text,
    counterparty text,
    allow boolean NOT NULL,
    reason text NOT NULL,
    rule_trace jsonb NOT NULL,
    blocked boolean NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT policy_decisions_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT policy_decisions_mode_check CHECK ((mode = ANY (ARRAY['off'::text, 'log'::text, 'enforce'::text]))),
    CONSTRAINT policy_decisions_sha256_check CHECK ((sha256 ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT policy_decisions_source_check CHECK ((source = ANY (ARRAY['EVALUATE'::text, 'PAYMENT'::text, 'OFFRAMP'::text, 'CARD'::text])))
);

CREATE TABLE public.policy_versions (
    id text NOT NULL,
    policy_id text NOT NULL,
    version integer NOT NULL,
    sha256 text NOT NULL,
    ir text NOT NULL,
    document jsonb NOT NULL,
    created_at timestamp with time zone NOT NULL,
    tenant_id text NOT NULL,
    CONSTRAINT policy_versions_sha256_check CHECK ((sha256 ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT policy_versions_version_check CHECK ((version >= 1))
);

CREATE TABLE public.provider_events (
    provider text NOT NULL,
    event_id text NOT NULL,
    received_at timestamp with time zone NOT NULL
);

CREATE TABLE public.ramps (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    wallet_id text NOT NULL,
    direction text NOT NULL,
    provider text NOT NULL,
    amount_base_units bigint NOT NULL,
    drip_id text,
    payment_id text,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT ramps_amount_base_units_check CHECK ((amount_base_units > 0)),
    CONSTRAINT ramps_direction_check CHECK ((direction = ANY (ARRAY['ON'::text, 'OFF'::text]))),
    CONSTRAINT ramps_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT ramps_linked CHECK ((((direction = 'ON'::text) AND (drip_id IS NOT NULL) AND (payment_id IS NULL)) OR ((direction = 'OFF'::text) AND (payment_id IS NOT NULL) AND (drip_id IS NULL)))),
    CONSTRAINT ramps_provider_check CHECK ((provider <> ''::text))
);

CREATE UNLOGGED TABLE public.rate_limit_buckets (
    key text NOT NULL,
    tat timestamp with time zone NOT NULL
);

CREATE UNLOGGED TABLE public.rate_limit_windows (
    key text NOT NULL,
    times timestamp with time zone[] NOT NULL,
    expires_at timestamp with time zone NOT NULL
);

CREATE TABLE public.recipient_credentials (
    tenant_id text NOT NULL,
    environment text NOT NULL,
    type text NOT NULL,
    status text NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT recipient_credentials_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT recipient_credentials_status_check CHECK ((status = ANY (ARRAY['ACTIVE'::text, 'EXPIRED'::text, 'REVOKED'::text, 'SUSPENDED'::text]))),
    CONSTRAINT recipient_credentials_type_check CHECK ((type = 'BUSINESS_IDENTITY'::text))
);

CREATE TABLE public.relayer_nonces (
    chain_id bigint NOT NULL,
    address text NOT NULL,
    next_nonce bigint NOT NULL,
    CONSTRAINT relayer_nonces_next_nonce_check CHECK ((next_nonce >= 0))
);

CREATE TABLE public.relayer_transactions (
    chain_id bigint NOT NULL,
    address text NOT NULL,
    nonce bigint NOT NULL,
    tx_hash text NOT NULL,
    to_address text,
    value_wei numeric NOT NULL,
    data bytea NOT NULL,
    gas bigint NOT NULL,
    gas_fee_cap numeric NOT NULL,
    gas_tip_cap numeric NOT NULL,
    sent_at timestamp with time zone NOT NULL,
    settled_at timestamp with time zone,
    CONSTRAINT relayer_transactions_gas_check CHECK ((gas > 0)),
    CONSTRAINT relayer_transactions_gas_fee_cap_check CHECK ((gas_fee_cap >= (0)::numeric)),
    CONSTRAINT relayer_transactions_gas_tip_cap_check CHECK ((gas_tip_cap >= (0)::numeric)),
    CONSTRAINT relayer_transactions_nonce_check CHECK ((nonce >= 0)),
    CONSTRAINT relayer_transactions_value_wei_check CHECK ((value_wei >= (0)::numeric))
);

CREATE TABLE public.relayer_tx_counts (
    tenant_id text NOT NULL,
    environment text NOT NULL,
    day date NOT NULL,
    count integer NOT NULL,
    CONSTRAINT relayer_tx_counts_count_check CHECK ((count > 0)),
    CONSTRAINT relayer_tx_counts_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text])))
);

CREATE TABLE public.request_logs (
    tenant_id text NOT NULL,
    id text NOT NULL,
    environment text NOT NULL,
    method text NOT NULL,
    route text NOT NULL,
    status integer NOT NULL,
    request_id text NOT NULL,
    key_id text,
    user_id text,
    latency_micros bigint NOT NULL,
    error_body jsonb,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT request_logs_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT request_logs_latency_micros_check CHECK ((latency_micros >= 0)),
    CONSTRAINT request_logs_status_check CHECK (((status >= 100) AND (status <= 599)))
);

CREATE TABLE public.river_job (
    id bigint NOT NULL,
    state public.river_job_state DEFAULT 'available'::public.river_job_state NOT NULL,
    attempt smallint DEFAULT 0 NOT NULL,
    max_attempts smallint DEFAULT 25 NOT NULL,
    attempted_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    finalized_at timestamp with time zone,
    scheduled_at timestamp with time zone DEFAULT now() NOT NULL,
    priority smallint DEFAULT 1 NOT NULL,
    args jsonb NOT NULL,
    attempted_by text[],
    errors jsonb[],
    kind text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    queue text DEFAULT 'default'::text NOT NULL,
    tags character varying(255)[] DEFAULT '{}'::character varying[] NOT NULL,
    unique_key bytea,
    unique_states bit(8),
    CONSTRAINT finalized_or_finalized_at_null CHECK ((((finalized_at IS NULL) AND (state <> ALL (ARRAY['cancelled'::public.river_job_state, 'completed'::public.river_job_state, 'discarded'::public.river_job_state]))) OR ((finalized_at IS NOT NULL) AND (state = ANY (ARRAY['cancelled'::public.river_job_state, 'completed'::public.river_job_state, 'discarded'::public.river_job_state]))))),
    CONSTRAINT kind_length CHECK (((char_length(kind) > 0) AND (char_length(kind) < 128))),
    CONSTRAINT max_attempts_is_positive CHECK ((max_attempts > 0)),
    CONSTRAINT priority_in_range CHECK (((priority >= 1) AND (priority <= 4))),
    CONSTRAINT queue_length CHECK (((char_length(queue) > 0) AND (char_length(queue) < 128)))
);

CREATE SEQUENCE public.river_job_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.river_job_id_seq OWNED BY public.river_job.id;

CREATE UNLOGGED TABLE public.river_leader (
    elected_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    leader_id text NOT NULL,
    name text DEFAULT 'default'::text NOT NULL,
    CONSTRAINT leader_id_length CHECK (((char_length(leader_id) > 0) AND (char_length(leader_id) < 128))),
    CONSTRAINT name_length CHECK ((name = 'default'::text))
);

CREATE TABLE public.river_migration (
    line text NOT NULL,
    version bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT line_length CHECK (((char_length(line) > 0) AND (char_length(line) < 128))),
    CONSTRAINT version_gte_1 CHECK ((version >= 1))
);

CREATE TABLE public.river_notification (
    id bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    payload text NOT NULL,
    topic text NOT NULL,
    CONSTRAINT topic_length CHECK (((length(topic) > 0) AND (length(topic) < 128)))
);

CREATE SEQUENCE public.river_notification_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.river_notification_id_seq OWNED BY public.river_notification.id;

CREATE TABLE public.river_queue (
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    paused_at timestamp with time zone,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

CREATE TABLE public.route_quotes (
    id text NOT NULL,
    payment_id text NOT NULL,
    set_version integer NOT NULL,
    "position" integer NOT NULL,
    destination_id text NOT NULL,
    destination_type text NOT NULL,
    provider text NOT NULL,
    source_amount_base_units bigint NOT NULL,
    source_asset_id text NOT NULL,
    destination_amount_minor bigint NOT NULL,
    destination_currency text NOT NULL,
    provider_fee_minor bigint NOT NULL,
    network_fee_minor bigint NOT NULL,
    exchange_rate text NOT NULL,
    estimated_delivery_seconds integer NOT NULL,
    requires_bridge boolean NOT NULL,
    requires_conversion boolean NOT NULL,
    requires_prefunding boolean NOT NULL,
    status text NOT NULL,
    deliver_base_units bigint NOT NULL,
    fee_base_units bigint NOT NULL,
    quote_expires_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone NOT NULL,
    tenant_id text NOT NULL,
    CONSTRAINT route_quotes_deliver_base_units_check CHECK ((deliver_base_units > 0)),
    CONSTRAINT route_quotes_fee_base_units_check CHECK ((fee_base_units >= 0)),
    CONSTRAINT route_quotes_status_check CHECK ((status = ANY (ARRAY['ACTIVE'::text, 'SUPERSEDED'::text, 'EXPIRED'::text]))),
    CONSTRAINT route_quotes_sum CHECK (((deliver_base_units + fee_base_units) = source_amount_base_units))
);

CREATE TABLE public.safe_payment_holds (
    tenant_id text NOT NULL,
    payment_id text NOT NULL,
    wallet_id text NOT NULL,
    safe_nonce bigint NOT NULL,
    amount_base_units bigint NOT NULL,
    recipient text NOT NULL,
    transfer_id text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT safe_payment_holds_amount_base_units_check CHECK ((amount_base_units > 0))
);

CREATE TABLE public.safe_payments (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    source_wallet_id text NOT NULL,
    safe_address text NOT NULL,
    chain_id bigint NOT NULL,
    destination_type text NOT NULL,
    destination_handle text,
    destination_address text NOT NULL,
    destination_wallet_id text,
    destination_chain_id bigint NOT NULL,
    asset text NOT NULL,
    amount_base_units bigint NOT NULL,
    memo text,
    status text NOT NULL,
    safe_nonce bigint NOT NULL,
    safe_tx_hash text,
    threshold integer NOT NULL,
    signatures jsonb DEFAULT '[]'::jsonb NOT NULL,
    executed_tx_hash text,
    failure_reason text,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    kind text DEFAULT 'transfer'::text NOT NULL,
    call_value text,
    call_data bytea,
    rejection_payment_id text,
    rejects_payment_id text,
    CONSTRAINT safe_payments_call_value_check CHECK ((call_value ~ '^[0-9]{1,78}$'::text)),
    CONSTRAINT safe_payments_destination_type_check CHECK ((destination_type = ANY (ARRAY['handle'::text, 'email'::text, 'address'::text, 'wallet'::text]))),
    CONSTRAINT safe_payments_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT safe_payments_kind_check CHECK ((kind = ANY (ARRAY['transfer'::text, 'transaction'::text]))),
    CONSTRAINT safe_payments_kind_shape CHECK ((((kind = 'transfer'::text) AND (amount_base_units > 0) AND (call_value IS NULL) AND (call_data IS NULL)) OR ((kind = 'transaction'::text) AND (amount_base_units = 0) AND (call_value IS NOT NULL) AND (call_data IS NOT NULL)))),
    CONSTRAINT safe_payments_status_check CHECK ((status = ANY (ARRAY['CREATED'::text, 'AWAITING_SIGNATURE'::text, 'SIGNING'::text, 'READY_TO_EXECUTE'::text, 'EXECUTING'::text, 'COMPLETED'::text, 'FAILED'::text, 'CANCELLED'::text])))
);

CREATE TABLE public.schema_migrations (
    version bigint NOT NULL,
    dirty boolean NOT NULL
);

CREATE TABLE public.sms_messages (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    to_hash text NOT NULL,
    to_masked text NOT NULL,
    to_ciphertext bytea NOT NULL,
    purpose text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    body_ciphertext bytea NOT NULL,
    idempotency_key text,
    CONSTRAINT sms_messages_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text])))
);

CREATE TABLE public.tenant_lookups (
    lookup_key text NOT NULL,
    kind text NOT NULL,
    tenant_id text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT tenant_lookups_kind_check CHECK ((kind ~ '^[a-z][a-z_]*$'::text))
);

CREATE TABLE public.tenants (
    id text NOT NULL,
    slug text NOT NULL,
    name text NOT NULL,
    owner_user_id text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT tenants_slug_format CHECK ((slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'::text))
);

CREATE TABLE public.treasury_accounts (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    name text NOT NULL,
    chain_id bigint NOT NULL,
    threshold integer NOT NULL,
    clock_offset_days integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT treasury_accounts_clock_offset_days_check CHECK ((clock_offset_days >= 0)),
    CONSTRAINT treasury_accounts_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT treasury_accounts_name_check CHECK ((name <> ''::text)),
    CONSTRAINT treasury_accounts_threshold_check CHECK ((threshold > 0))
);

CREATE TABLE public.treasury_buckets (
    id text NOT NULL,
    account_id text NOT NULL,
    wallet_id text NOT NULL,
    name text NOT NULL,
    kind text NOT NULL,
    target_bps integer NOT NULL,
    apy_bps integer NOT NULL,
    "position" integer NOT NULL,
    tenant_id text NOT NULL,
    CONSTRAINT treasury_buckets_apy_bps_check CHECK (((apy_bps >= 0) AND (apy_bps <= 10000))),
    CONSTRAINT treasury_buckets_kind_check CHECK ((kind = ANY (ARRAY['OPERATING'::text, 'RESERVE'::text, 'YIELD'::text]))),
    CONSTRAINT treasury_buckets_name_check CHECK ((name <> ''::text)),
    CONSTRAINT treasury_buckets_position_check CHECK ((("position" >= 0) AND ("position" <= 7))),
    CONSTRAINT treasury_buckets_target_bps_check CHECK (((target_bps >= 0) AND (target_bps <= 10000)))
);

CREATE TABLE public.treasury_rules (
    id text NOT NULL,
    account_id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    type text NOT NULL,
    source_bucket_id text,
    dest_bucket_id text,
    threshold_base_units bigint,
    target_base_units bigint,
    interval_seconds integer NOT NULL,
    enabled boolean NOT NULL,
    last_fired_at timestamp with time zone,
    last_evaluated_at timestamp with time zone,
    last_skipped_at timestamp with time zone,
    last_skip_reason text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT treasury_rules_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT treasury_rules_interval_seconds_check CHECK ((interval_seconds > 0)),
    CONSTRAINT treasury_rules_target_base_units_check CHECK ((target_base_units >= 0)),
    CONSTRAINT treasury_rules_threshold_base_units_check CHECK ((threshold_base_units >= 0)),
    CONSTRAINT treasury_rules_type_check CHECK ((type = ANY (ARRAY['SWEEP_EXCESS'::text, 'TOP_UP'::text, 'REBALANCE_TO_TARGET'::text])))
);

CREATE TABLE public.treasury_sweeps (
    id text NOT NULL,
    account_id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    rule_id text,
    source_bucket_id text NOT NULL,
    dest_bucket_id text NOT NULL,
    amount_base_units bigint NOT NULL,
    status text NOT NULL,
    payment_id text NOT NULL,
    proposed_by text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT treasury_sweeps_amount_base_units_check CHECK ((amount_base_units > 0)),
    CONSTRAINT treasury_sweeps_check CHECK ((source_bucket_id <> dest_bucket_id)),
    CONSTRAINT treasury_sweeps_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT treasury_sweeps_status_check CHECK ((status = 'PROPOSED'::text))
);

CREATE TABLE public.two_phase_marks (
    id integer NOT NULL
);

CREATE TABLE public.twofactor_budgets (
    tenant_id text NOT NULL,
    environment text NOT NULL,
    subject text NOT NULL,
    failures timestamp with time zone[] DEFAULT '{}'::timestamp with time zone[] NOT NULL,
    locked_until timestamp with time zone,
    CONSTRAINT twofactor_budgets_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT twofactor_budgets_failures_bounded CHECK ((cardinality(failures) <= 10))
);

CREATE TABLE public.twofactor_challenges (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    binding text NOT NULL,
    source_wallet_id text NOT NULL,
    amount_base_units bigint NOT NULL,
    destination_address text NOT NULL,
    destination_label text NOT NULL,
    status text NOT NULL,
    attempts integer NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone NOT NULL,
    satisfied_at timestamp with time zone,
    redeemed_at timestamp with time zone,
    payment_id text,
    CONSTRAINT twofactor_challenges_amount_base_units_check CHECK ((amount_base_units >= 0)),
    CONSTRAINT twofactor_challenges_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT twofactor_challenges_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT twofactor_challenges_redeemed CHECK (((status = 'REDEEMED'::text) = ((payment_id IS NOT NULL) AND (redeemed_at IS NOT NULL)))),
    CONSTRAINT twofactor_challenges_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'SATISFIED'::text, 'REDEEMED'::text, 'CANCELLED'::text])))
);

CREATE TABLE public.twofactor_factors (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    type text NOT NULL,
    label text NOT NULL,
    status text NOT NULL,
    secret_ciphertext bytea NOT NULL,
    created_at timestamp with time zone NOT NULL,
    verified_at timestamp with time zone,
    last_used_step bigint DEFAULT 0 NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    CONSTRAINT twofactor_factors_attempts_check CHECK (((attempts >= 0) AND (attempts <= 5))),
    CONSTRAINT twofactor_factors_cancelled CHECK (((status = 'CANCELLED'::text) = (attempts = 5))),
    CONSTRAINT twofactor_factors_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT twofactor_factors_last_used_step_check CHECK ((last_used_step >= 0)),
    CONSTRAINT twofactor_factors_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'ACTIVE'::text, 'CANCELLED'::text]))),
    CONSTRAINT twofactor_factors_type_check CHECK ((type = 'totp'::text)),
    CONSTRAINT twofactor_factors_verified_at CHECK (((status = 'ACTIVE'::text) = (verified_at IS NOT NULL)))
);

CREATE TABLE public.twofactor_settings (
    tenant_id text NOT NULL,
    environment text NOT NULL,
    approval_above_base_units bigint,
    approve_new_payees boolean NOT NULL,
    require_saved_payees boolean NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT twofactor_settings_approval_above_base_units_check CHECK ((approval_above_base_units >= 0)),
    CONSTRAINT twofactor_settings_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text])))
);

CREATE TABLE public.wallets (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    name text NOT NULL,
    chain_id bigint NOT NULL,
    address text NOT NULL,
    owners jsonb NOT NULL,
    threshold integer NOT NULL,
    status text NOT NULL,
    deploy_tx_hash text,
    deploy_attempts integer DEFAULT 0 NOT NULL,
    failure_reason text,
    created_at timestamp with time zone NOT NULL,
    deployed_at timestamp with time zone,
    purpose text DEFAULT 'GENERAL'::text NOT NULL,
    setup_module text,
    custody_key_ref text,
    CONSTRAINT wallets_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT wallets_purpose_check CHECK ((purpose = ANY (ARRAY['GENERAL'::text, 'AGENT'::text, 'TREASURY'::text, 'ESCROW'::text]))),
    CONSTRAINT wallets_setup_module_check CHECK ((setup_module ~ '^0x[0-9a-fA-F]{40}$'::text)),
    CONSTRAINT wallets_status_check CHECK ((status = ANY (ARRAY['PENDING_DEPLOYMENT'::text, 'DEPLOYING'::text, 'DEPLOYED'::text, 'FAILED'::text]))),
    CONSTRAINT wallets_threshold_check CHECK ((threshold >= 1))
);

CREATE TABLE public.webhook_attempts (
    delivery_id text NOT NULL,
    number integer NOT NULL,
    at timestamp with time zone NOT NULL,
    status_code integer NOT NULL,
    error text DEFAULT ''::text NOT NULL,
    duration_ms bigint NOT NULL,
    succeeded boolean NOT NULL,
    unknown_outcome boolean DEFAULT false NOT NULL,
    tenant_id text NOT NULL,
    CONSTRAINT webhook_attempts_number_check CHECK ((number > 0))
);

CREATE TABLE public.webhook_deliveries (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    endpoint_id text NOT NULL,
    event_id text NOT NULL,
    event_type text NOT NULL,
    status text NOT NULL,
    attempts integer NOT NULL,
    redelivery_of text,
    next_attempt_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    attempt_started_at timestamp with time zone,
    CONSTRAINT webhook_deliveries_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT webhook_deliveries_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'SUCCEEDED'::text, 'FAILED'::text])))
);

CREATE TABLE public.webhook_endpoints (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    url text NOT NULL,
    event_types text[] DEFAULT '{}'::text[] NOT NULL,
    enabled boolean NOT NULL,
    secret_sealed bytea NOT NULL,
    failing_since timestamp with time zone,
    disabled_reason text DEFAULT ''::text NOT NULL,
    deleted_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    enabled_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT webhook_endpoints_environment_check CHECK ((environment = ANY (ARRAY['TEST'::text, 'LIVE'::text]))),
    CONSTRAINT webhook_endpoints_url_check CHECK (((url ~ '^https?://'::text) AND (length(url) <= 2048)))
);

ALTER TABLE ONLY public.river_job ALTER COLUMN id SET DEFAULT nextval('public.river_job_id_seq'::regclass);

ALTER TABLE ONLY public.river_notification ALTER COLUMN id SET DEFAULT nextval('public.river_notification_id_seq'::regclass);

ALTER TABLE ONLY public.agent_card_spend
    ADD CONSTRAINT agent_card_spend_pkey PRIMARY KEY (tenant_id, authorization_id);

ALTER TABLE ONLY public.agents
    ADD CONSTRAINT agents_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.agents
    ADD CONSTRAINT agents_wallet_id_key UNIQUE (tenant_id, wallet_id);

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pub_id_key UNIQUE (tenant_id, pub_id);

ALTER TABLE ONLY public.background_failures
    ADD CONSTRAINT background_failures_pkey PRIMARY KEY (pass, item);

ALTER TABLE ONLY public.bills
    ADD CONSTRAINT bills_pkey PRIMARY KEY (payer_tenant_id, id);

ALTER TABLE ONLY public.card_authorizations
    ADD CONSTRAINT card_authorizations_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.card_spend
    ADD CONSTRAINT card_spend_pkey PRIMARY KEY (tenant_id, card_id);

ALTER TABLE ONLY public.cardholders
    ADD CONSTRAINT cardholders_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.cards
    ADD CONSTRAINT cards_issuer_issuer_card_id_key UNIQUE (tenant_id, issuer, issuer_card_id);

ALTER TABLE ONLY public.cards
    ADD CONSTRAINT cards_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.chain_index_cursors
    ADD CONSTRAINT chain_index_cursors_pkey PRIMARY KEY (environment, chain_id);

ALTER TABLE ONLY public.chain_indexed_blocks
    ADD CONSTRAINT chain_indexed_blocks_pkey PRIMARY KEY (indexer, environment, chain_id, block_number);

ALTER TABLE ONLY public.checkout_refunds
    ADD CONSTRAINT checkout_refunds_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.checkouts
    ADD CONSTRAINT checkouts_deposit_address_key UNIQUE (tenant_id, deposit_address);

ALTER TABLE ONLY public.checkouts
    ADD CONSTRAINT checkouts_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.contacts
    ADD CONSTRAINT contacts_address_key UNIQUE (tenant_id, environment, address_lower);

ALTER TABLE ONLY public.contacts
    ADD CONSTRAINT contacts_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.custody_keys
    ADD CONSTRAINT custody_keys_address_key UNIQUE (address);

ALTER TABLE ONLY public.custody_keys
    ADD CONSTRAINT custody_keys_pkey PRIMARY KEY (ref);

ALTER TABLE ONLY public.drips
    ADD CONSTRAINT drips_chain_tx_hash_key UNIQUE (tenant_id, chain_id, tx_hash);

ALTER TABLE ONLY public.drips
    ADD CONSTRAINT drips_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.handles
    ADD CONSTRAINT handles_pkey PRIMARY KEY (tenant_id, environment, handle);

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (tenant_id, scope, environment, key);

ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_hold_wallet_id_key UNIQUE (tenant_id, hold_wallet_id);

ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.job_workers
    ADD CONSTRAINT job_workers_pkey PRIMARY KEY (client_id);

ALTER TABLE ONLY public.ledger_account_homes
    ADD CONSTRAINT ledger_account_homes_pkey PRIMARY KEY (account_id);

ALTER TABLE ONLY public.ledger_accounts
    ADD CONSTRAINT ledger_accounts_pkey PRIMARY KEY (id, home_tenant_id);

ALTER TABLE ONLY public.ledger_accounts
    ADD CONSTRAINT ledger_accounts_reference_key UNIQUE (environment, asset, reference);

ALTER TABLE ONLY public.ledger_anchors
    ADD CONSTRAINT ledger_anchors_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.ledger_balances
    ADD CONSTRAINT ledger_balances_pkey PRIMARY KEY (account_id, home_tenant_id);

ALTER TABLE ONLY public.ledger_chain_heads
    ADD CONSTRAINT ledger_chain_heads_pkey PRIMARY KEY (environment, stripe, chain_key);

ALTER TABLE ONLY public.ledger_chain
    ADD CONSTRAINT ledger_chain_pkey PRIMARY KEY (environment, stripe, "position", chain_key);

ALTER TABLE ONLY public.ledger_home_split
    ADD CONSTRAINT ledger_home_split_pkey PRIMARY KEY (only_row);

ALTER TABLE ONLY public.ledger_postings
    ADD CONSTRAINT ledger_postings_pkey PRIMARY KEY (account_id, created_at, sequence, home_tenant_id);

ALTER TABLE ONLY public.ledger_transfers
    ADD CONSTRAINT ledger_transfers_pkey PRIMARY KEY (id, home_tenant_id);

ALTER TABLE ONLY public.ledger_transfers
    ADD CONSTRAINT ledger_transfers_reference_key UNIQUE (environment, reference);

ALTER TABLE ONLY public.ledger_transfers
    ADD CONSTRAINT ledger_transfers_sequence_key UNIQUE (sequence, home_tenant_id);

ALTER TABLE ONLY public.members
    ADD CONSTRAINT members_invite_token_hash_key UNIQUE (tenant_id, invite_token_hash);

ALTER TABLE ONLY public.members
    ADD CONSTRAINT members_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.offramp_claim_challenges
    ADD CONSTRAINT offramp_claim_challenges_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.offramp_claim_links
    ADD CONSTRAINT offramp_claim_links_pkey PRIMARY KEY (tenant_id, token_hash);

ALTER TABLE ONLY public.offramp_claims
    ADD CONSTRAINT offramp_claims_onchain_key UNIQUE (sender_tenant_id, environment, chain_id, onchain_id);

ALTER TABLE ONLY public.offramp_claims
    ADD CONSTRAINT offramp_claims_payment_key UNIQUE (sender_tenant_id, payment_id);

ALTER TABLE ONLY public.offramp_claims
    ADD CONSTRAINT offramp_claims_pkey PRIMARY KEY (sender_tenant_id, id);

ALTER TABLE ONLY public.offramp_escrow_cursors
    ADD CONSTRAINT offramp_escrow_cursors_pkey PRIMARY KEY (environment, chain_id);

ALTER TABLE ONLY public.offramp_escrow_events
    ADD CONSTRAINT offramp_escrow_events_pkey PRIMARY KEY (tenant_id, chain_id, tx_hash, log_index);

ALTER TABLE ONLY public.offramp_hold_rechecks
    ADD CONSTRAINT offramp_hold_rechecks_pkey PRIMARY KEY (tenant_id, payment_id);

ALTER TABLE ONLY public.offramp_payments
    ADD CONSTRAINT offramp_payments_pkey PRIMARY KEY (sender_tenant_id, id);

ALTER TABLE ONLY public.offramp_returns
    ADD CONSTRAINT offramp_returns_pkey PRIMARY KEY (tenant_id, payment_id);

ALTER TABLE ONLY public.offramp_review_approvals
    ADD CONSTRAINT offramp_review_approvals_pkey PRIMARY KEY (tenant_id, payment_id);

ALTER TABLE ONLY public.operator_actions
    ADD CONSTRAINT operator_actions_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.pass_leases
    ADD CONSTRAINT pass_leases_pkey PRIMARY KEY (name);

ALTER TABLE ONLY public.payout_destinations
    ADD CONSTRAINT payout_destinations_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.payout_liquidity_top_ups
    ADD CONSTRAINT payout_liquidity_top_ups_pkey PRIMARY KEY (environment, provider, reference);

ALTER TABLE ONLY public.payout_mock_transfers
    ADD CONSTRAINT payout_mock_transfers_key UNIQUE (provider, idempotency_key);

ALTER TABLE ONLY public.payout_mock_transfers
    ADD CONSTRAINT payout_mock_transfers_pkey PRIMARY KEY (provider, reference);

ALTER TABLE ONLY public.payout_onchain_transfers
    ADD CONSTRAINT payout_onchain_transfers_idempotency_key_key UNIQUE (idempotency_key);

ALTER TABLE ONLY public.payout_onchain_transfers
    ADD CONSTRAINT payout_onchain_transfers_pkey PRIMARY KEY (reference);

ALTER TABLE ONLY public.phone_alias_attempts
    ADD CONSTRAINT phone_alias_attempts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.phone_aliases
    ADD CONSTRAINT phone_aliases_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.policies
    ADD CONSTRAINT policies_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.policy_attachments
    ADD CONSTRAINT policy_attachments_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.policy_decisions
    ADD CONSTRAINT policy_decisions_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.policy_versions
    ADD CONSTRAINT policy_versions_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.policy_versions
    ADD CONSTRAINT policy_versions_policy_version_key UNIQUE (tenant_id, policy_id, version);

ALTER TABLE ONLY public.provider_events
    ADD CONSTRAINT provider_events_pkey PRIMARY KEY (provider, event_id);

ALTER TABLE ONLY public.ramps
    ADD CONSTRAINT ramps_drip_id_key UNIQUE (tenant_id, drip_id);

ALTER TABLE ONLY public.ramps
    ADD CONSTRAINT ramps_payment_id_key UNIQUE (tenant_id, payment_id);

ALTER TABLE ONLY public.ramps
    ADD CONSTRAINT ramps_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.rate_limit_buckets
    ADD CONSTRAINT rate_limit_buckets_pkey PRIMARY KEY (key);

ALTER TABLE ONLY public.rate_limit_windows
    ADD CONSTRAINT rate_limit_windows_pkey PRIMARY KEY (key);

ALTER TABLE ONLY public.recipient_credentials
    ADD CONSTRAINT recipient_credentials_pkey PRIMARY KEY (tenant_id, environment, type);

ALTER TABLE ONLY public.relayer_nonces
    ADD CONSTRAINT relayer_nonces_pkey PRIMARY KEY (chain_id, address);

ALTER TABLE ONLY public.relayer_transactions
    ADD CONSTRAINT relayer_transactions_pkey PRIMARY KEY (chain_id, tx_hash);

ALTER TABLE ONLY public.relayer_tx_counts
    ADD CONSTRAINT relayer_tx_counts_pkey PRIMARY KEY (tenant_id, environment, day);

ALTER TABLE ONLY public.request_logs
    ADD CONSTRAINT request_logs_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.river_job
    ADD CONSTRAINT river_job_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.river_leader
    ADD CONSTRAINT river_leader_pkey PRIMARY KEY (name);

ALTER TABLE ONLY public.river_migration
    ADD CONSTRAINT river_migration_pkey1 PRIMARY KEY (line, version);

ALTER TABLE ONLY public.river_notification
    ADD CONSTRAINT river_notification_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.river_queue
    ADD CONSTRAINT river_queue_pkey PRIMARY KEY (name);

ALTER TABLE ONLY public.route_quotes
    ADD CONSTRAINT route_quotes_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.safe_payment_holds
    ADD CONSTRAINT safe_payment_holds_pkey PRIMARY KEY (tenant_id, payment_id);

ALTER TABLE ONLY public.safe_payments
    ADD CONSTRAINT safe_payments_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);

ALTER TABLE ONLY public.sms_messages
    ADD CONSTRAINT sms_messages_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.tenant_lookups
    ADD CONSTRAINT tenant_lookups_pkey PRIMARY KEY (lookup_key, kind, tenant_id);

ALTER TABLE ONLY public.tenants
    ADD CONSTRAINT tenants_owner_user_id_key UNIQUE (owner_user_id);

ALTER TABLE ONLY public.tenants
    ADD CONSTRAINT tenants_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.tenants
    ADD CONSTRAINT tenants_slug_key UNIQUE (slug);

ALTER TABLE ONLY public.treasury_accounts
    ADD CONSTRAINT treasury_accounts_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.treasury_buckets
    ADD CONSTRAINT treasury_buckets_account_id_position_key UNIQUE (tenant_id, account_id, "position");

ALTER TABLE ONLY public.treasury_buckets
    ADD CONSTRAINT treasury_buckets_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.treasury_buckets
    ADD CONSTRAINT treasury_buckets_wallet_id_key UNIQUE (tenant_id, wallet_id);

ALTER TABLE ONLY public.treasury_rules
    ADD CONSTRAINT treasury_rules_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.treasury_sweeps
    ADD CONSTRAINT treasury_sweeps_payment_id_key UNIQUE (tenant_id, payment_id);

ALTER TABLE ONLY public.treasury_sweeps
    ADD CONSTRAINT treasury_sweeps_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.two_phase_marks
    ADD CONSTRAINT two_phase_marks_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.twofactor_budgets
    ADD CONSTRAINT twofactor_budgets_pkey PRIMARY KEY (tenant_id, environment, subject);

ALTER TABLE ONLY public.twofactor_challenges
    ADD CONSTRAINT twofactor_challenges_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.twofactor_factors
    ADD CONSTRAINT twofactor_factors_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.twofactor_settings
    ADD CONSTRAINT twofactor_settings_pkey PRIMARY KEY (tenant_id, environment);

ALTER TABLE ONLY public.wallets
    ADD CONSTRAINT wallets_chain_address_key UNIQUE (tenant_id, chain_id, address);

ALTER TABLE ONLY public.wallets
    ADD CONSTRAINT wallets_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (tenant_id, delivery_id, number);

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (tenant_id, id);

CREATE INDEX agent_card_spend_agent_idx ON public.agent_card_spend USING btree (tenant_id, agent_id, month_start) WHERE (released_at IS NULL);

CREATE INDEX agents_tenant_idx ON public.agents USING btree (tenant_id, environment, created_at, id);

CREATE INDEX api_keys_agent_idx ON public.api_keys USING btree (agent_id) WHERE (agent_id IS NOT NULL);

CREATE INDEX api_keys_created_by_key_idx ON public.api_keys USING btree (created_by_key_id) WHERE (created_by_key_id IS NOT NULL);

CREATE INDEX api_keys_created_by_member_idx ON public.api_keys USING btree (created_by_member_id) WHERE (created_by_member_id IS NOT NULL);

CREATE INDEX api_keys_tenant_env_idx ON public.api_keys USING btree (tenant_id, environment, id);

CREATE INDEX background_failures_status_idx ON public.background_failures USING btree (status, last_failed_at);

CREATE INDEX bills_payer_idx ON public.bills USING btree (payer_tenant_id, environment, created_at DESC, id);

CREATE INDEX card_authorizations_card_idx ON public.card_authorizations USING btree (tenant_id, card_id, id);

CREATE INDEX card_authorizations_open_idx ON public.card_authorizations USING btree (created_at) WHERE (status = 'APPROVED'::text);

CREATE INDEX card_authorizations_unsettled_idx ON public.card_authorizations USING btree (updated_at) WHERE (settlement_status = ANY (ARRAY['PENDING'::text, 'SUBMITTED'::text]));

CREATE INDEX cardholders_tenant_env_idx ON public.cardholders USING btree (tenant_id, environment, id);

CREATE UNIQUE INDEX cards_agent_idx ON public.cards USING btree (tenant_id, agent_id) WHERE (agent_id IS NOT NULL);

CREATE INDEX cards_tenant_env_idx ON public.cards USING btree (tenant_id, environment, id);

CREATE INDEX cards_wallet_idx ON public.cards USING btree (tenant_id, wallet_id) WHERE (wallet_id IS NOT NULL);

CREATE INDEX checkout_refunds_checkout ON public.checkout_refunds USING btree (tenant_id, checkout_id, id);

CREATE INDEX checkout_refunds_tenant_time ON public.checkout_refunds USING btree (tenant_id, environment, created_at);

CREATE INDEX checkouts_tenant_created ON public.checkouts USING btree (tenant_id, environment, created_at DESC, id DESC);

CREATE INDEX checkouts_watched ON public.checkouts USING btree (environment, watch_until, id);

CREATE INDEX contacts_tenant_idx ON public.contacts USING btree (tenant_id, environment, created_at, id);

CREATE INDEX drips_tenant_created_idx ON public.drips USING btree (tenant_id, environment, created_at);

CREATE INDEX drips_wallet_created_idx ON public.drips USING btree (tenant_id, wallet_id, created_at);

CREATE INDEX events_resource_idx ON public.events USING btree (tenant_id, resource_id, id);

CREATE INDEX events_tenant_idx ON public.events USING btree (tenant_id, environment, id);

CREATE INDEX events_tenant_time_idx ON public.events USING btree (tenant_id, environment, created_at);

CREATE INDEX events_undispatched_idx ON public.events USING btree (tenant_id, id) WHERE (dispatched_at IS NULL);

CREATE INDEX handles_wallet_idx ON public.handles USING btree (tenant_id, wallet_id);

CREATE INDEX idempotency_keys_expires_idx ON public.idempotency_keys USING btree (expires_at);

CREATE INDEX invoices_poll_idx ON public.invoices USING btree (environment, id) WHERE ((status = 'SENT'::text) OR (release_payment_id IS NOT NULL) OR (refund_payment_id IS NOT NULL));

CREATE INDEX invoices_tenant_idx ON public.invoices USING btree (tenant_id, environment, created_at DESC, id);

CREATE INDEX job_workers_replica_idx ON public.job_workers USING btree (replica);

CREATE INDEX ledger_accounts_shares_idx ON public.ledger_accounts USING btree (id) WHERE ((tenant_id IS NULL) AND (home_tenant_id <> ''::text));

CREATE INDEX ledger_accounts_tenant_idx ON public.ledger_accounts USING btree (tenant_id, environment, id) WHERE (tenant_id IS NOT NULL);

CREATE UNIQUE INDEX ledger_anchors_one_open ON public.ledger_anchors USING btree ((true)) WHERE (mined_at IS NULL);

CREATE INDEX members_email_lower_idx ON public.members USING btree (lower(email));

CREATE INDEX members_identity_user_idx ON public.members USING btree (identity_user_id) WHERE (status = 'ACTIVE'::text);

CREATE INDEX members_tenant_idx ON public.members USING btree (tenant_id, id);

CREATE INDEX offramp_claim_challenges_ip_idx ON public.offramp_claim_challenges USING btree (ip_hash, created_at);

CREATE INDEX offramp_claim_challenges_phone_idx ON public.offramp_claim_challenges USING btree (phone_hash, created_at);

CREATE INDEX offramp_claim_links_claim_idx ON public.offramp_claim_links USING btree (tenant_id, claim_id);

CREATE INDEX offramp_claims_due_idx ON public.offramp_claims USING btree (status, expires_at);

CREATE INDEX offramp_claims_sender_idx ON public.offramp_claims USING btree (sender_tenant_id, environment, id);

CREATE INDEX offramp_payments_awaiting_idx ON public.offramp_payments USING btree (id) WHERE (status = 'AWAITING_RECIPIENT_CONFIRMATION'::text);

CREATE INDEX offramp_payments_held_idx ON public.offramp_payments USING btree (id) WHERE (status = ANY (ARRAY['PAYOUT_SELECTION_REQUIRED'::text, 'COMPLIANCE_HOLD'::text]));

CREATE UNIQUE INDEX offramp_payments_provider_ref_key ON public.offramp_payments USING btree (sender_tenant_id, provider, provider_reference) WHERE (provider_reference IS NOT NULL);

CREATE INDEX offramp_payments_recipient_idx ON public.offramp_payments USING btree (recipient_tenant_id, environment, id);

CREATE INDEX offramp_payments_sender_idx ON public.offramp_payments USING btree (sender_tenant_id, environment, id);

CREATE INDEX offramp_payments_status_idx ON public.offramp_payments USING btree (status);

CREATE INDEX operator_actions_at_idx ON public.operator_actions USING btree (at DESC, id DESC);

CREATE INDEX payout_destinations_tenant_idx ON public.payout_destinations USING btree (tenant_id, environment, id);

CREATE INDEX phone_alias_attempts_ip_idx ON public.phone_alias_attempts USING btree (ip_hash, created_at);

CREATE INDEX phone_alias_attempts_phone_idx ON public.phone_alias_attempts USING btree (environment, phone_hash, created_at);

CREATE INDEX phone_alias_attempts_tenant_idx ON public.phone_alias_attempts USING btree (tenant_id, environment, created_at);

CREATE INDEX phone_aliases_pending_idx ON public.phone_aliases USING btree (tenant_id, environment, code_expires_at) WHERE (status = 'PENDING_VERIFICATION'::text);

CREATE INDEX phone_aliases_tenant_idx ON public.phone_aliases USING btree (tenant_id, environment, id);

CREATE UNIQUE INDEX phone_aliases_verified_key ON public.phone_aliases USING btree (tenant_id, environment, phone_hash) WHERE (status = 'VERIFIED'::text);

CREATE INDEX policies_tenant_env_idx ON public.policies USING btree (tenant_id, environment, id);

CREATE INDEX policy_attachments_policy_idx ON public.policy_attachments USING btree (tenant_id, policy_id, id) WHERE (detached_at IS NULL);

CREATE UNIQUE INDEX policy_attachments_subject_active_key ON public.policy_attachments USING btree (tenant_id, environment, subject_type, subject_id) WHERE (detached_at IS NULL);

CREATE INDEX policy_decisions_reference_idx ON public.policy_decisions USING btree (tenant_id, reference_id) WHERE (reference_id IS NOT NULL);

CREATE INDEX policy_decisions_subject_idx ON public.policy_decisions USING btree (tenant_id, environment, subject_type, subject_id, created_at DESC, id DESC);

CREATE INDEX policy_decisions_tenant_env_idx ON public.policy_decisions USING btree (tenant_id, environment, id);

CREATE INDEX ramps_tenant_idx ON public.ramps USING btree (tenant_id, environment, id);

CREATE INDEX ramps_wallet_idx ON public.ramps USING btree (tenant_id, wallet_id, id);

CREATE INDEX ramps_window_idx ON public.ramps USING btree (tenant_id, environment, direction, created_at);

CREATE INDEX relayer_transactions_nonce_idx ON public.relayer_transactions USING btree (chain_id, address, nonce);

CREATE INDEX relayer_transactions_unsettled_idx ON public.relayer_transactions USING btree (chain_id, address, nonce) WHERE (settled_at IS NULL);

CREATE INDEX request_logs_created_idx ON public.request_logs USING btree (created_at);

CREATE INDEX request_logs_list_idx ON public.request_logs USING btree (tenant_id, environment, created_at DESC, id DESC);

CREATE INDEX river_job_args_index ON public.river_job USING gin (args);

CREATE INDEX river_job_kind ON public.river_job USING btree (kind);

CREATE INDEX river_job_metadata_index ON public.river_job USING gin (metadata);

CREATE INDEX river_job_prioritized_fetching_index ON public.river_job USING btree (state, queue, priority, scheduled_at, id);

CREATE INDEX river_job_state_and_finalized_at_index ON public.river_job USING btree (state, finalized_at) WHERE (finalized_at IS NOT NULL);

CREATE UNIQUE INDEX river_job_unique_idx ON public.river_job USING btree (unique_key) WHERE ((unique_key IS NOT NULL) AND (unique_states IS NOT NULL) AND public.river_job_state_in_bitmask(unique_states, state));

CREATE INDEX river_notification_created_at_idx ON public.river_notification USING btree (created_at);

CREATE INDEX river_notification_topic_id_idx ON public.river_notification USING btree (topic, id);

CREATE INDEX route_quotes_payment_idx ON public.route_quotes USING btree (tenant_id, payment_id, set_version, "position");

CREATE INDEX safe_payment_holds_wallet_idx ON public.safe_payment_holds USING btree (tenant_id, wallet_id, safe_nonce);

CREATE INDEX safe_payments_executing_idx ON public.safe_payments USING btree (updated_at) WHERE (status = 'EXECUTING'::text);

CREATE INDEX safe_payments_source_created_idx ON public.safe_payments USING btree (tenant_id, source_wallet_id, created_at DESC, id DESC);

CREATE INDEX safe_payments_tenant_env_idx ON public.safe_payments USING btree (tenant_id, environment, id);

CREATE INDEX safe_payments_wallet_pending_idx ON public.safe_payments USING btree (tenant_id, source_wallet_id, safe_nonce) WHERE (status = ANY (ARRAY['CREATED'::text, 'AWAITING_SIGNATURE'::text, 'SIGNING'::text, 'READY_TO_EXECUTE'::text, 'EXECUTING'::text]));

CREATE INDEX sms_messages_created_idx ON public.sms_messages USING btree (created_at);

CREATE UNIQUE INDEX sms_messages_idempotency_key ON public.sms_messages USING btree (tenant_id, idempotency_key);

CREATE INDEX sms_messages_tenant_idx ON public.sms_messages USING btree (tenant_id, environment, id);

CREATE UNIQUE INDEX tenant_lookups_one_tenant ON public.tenant_lookups USING btree (lookup_key, kind) WHERE (kind <> 'member_user'::text);

CREATE INDEX treasury_accounts_tenant_idx ON public.treasury_accounts USING btree (tenant_id, environment, id);

CREATE INDEX treasury_rules_account_idx ON public.treasury_rules USING btree (tenant_id, account_id, id) WHERE (deleted_at IS NULL);

CREATE INDEX treasury_rules_enabled_idx ON public.treasury_rules USING btree (environment, id) WHERE (enabled AND (deleted_at IS NULL));

CREATE INDEX treasury_sweeps_account_idx ON public.treasury_sweeps USING btree (tenant_id, account_id, id);

CREATE INDEX treasury_sweeps_rule_idx ON public.treasury_sweeps USING btree (tenant_id, rule_id, id) WHERE (rule_id IS NOT NULL);

CREATE INDEX twofactor_budgets_locked_idx ON public.twofactor_budgets USING btree (locked_until) WHERE (locked_until IS NOT NULL);

CREATE INDEX twofactor_challenges_tenant_idx ON public.twofactor_challenges USING btree (tenant_id, environment, created_at);

CREATE INDEX twofactor_factors_tenant_idx ON public.twofactor_factors USING btree (tenant_id, environment, created_at, id);

CREATE INDEX wallets_env_chain_idx ON public.wallets USING btree (environment, chain_id, id);

CREATE INDEX wallets_tenant_env_idx ON public.wallets USING btree (tenant_id, environment, id);

CREATE INDEX webhook_deliveries_endpoint_idx ON public.webhook_deliveries USING btree (tenant_id, endpoint_id, id);

CREATE UNIQUE INDEX webhook_deliveries_first_key ON public.webhook_deliveries USING btree (tenant_id, event_id, endpoint_id) WHERE (redelivery_of IS NULL);

CREATE INDEX webhook_deliveries_pending_idx ON public.webhook_deliveries USING btree (environment, next_attempt_at) WHERE (status = 'PENDING'::text);

CREATE INDEX webhook_endpoints_tenant_idx ON public.webhook_endpoints USING btree (tenant_id, environment, id) WHERE (deleted_at IS NULL);

CREATE CONSTRAINT TRIGGER ledger_transfers_link AFTER INSERT ON public.ledger_transfers DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((NOT new.chain_linked)) EXECUTE FUNCTION public.ledger_link_transfer();

CREATE TRIGGER policy_versions_no_rewrite BEFORE DELETE OR UPDATE ON public.policy_versions FOR EACH ROW EXECUTE FUNCTION public.policy_versions_immutable();

ALTER TABLE ONLY public.agent_card_spend
    ADD CONSTRAINT agent_card_spend_agent_id_fkey FOREIGN KEY (tenant_id, agent_id) REFERENCES public.agents(tenant_id, id);

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_agent_id_fkey FOREIGN KEY (tenant_id, agent_id) REFERENCES public.agents(tenant_id, id);

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_created_by_key_id_fkey FOREIGN KEY (tenant_id, created_by_key_id) REFERENCES public.api_keys(tenant_id, id);

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_created_by_member_id_fkey FOREIGN KEY (tenant_id, created_by_member_id) REFERENCES public.members(tenant_id, id);

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.bills
    ADD CONSTRAINT bills_payer_payment_id_fkey FOREIGN KEY (payer_tenant_id, payer_payment_id) REFERENCES public.safe_payments(tenant_id, id);

ALTER TABLE ONLY public.bills
    ADD CONSTRAINT bills_payer_tenant_id_fkey FOREIGN KEY (payer_tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.bills
    ADD CONSTRAINT bills_sender_tenant_id_fkey FOREIGN KEY (sender_tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.card_authorizations
    ADD CONSTRAINT card_authorizations_card_id_fkey FOREIGN KEY (tenant_id, card_id) REFERENCES public.cards(tenant_id, id);

ALTER TABLE ONLY public.card_spend
    ADD CONSTRAINT card_spend_card_id_fkey FOREIGN KEY (tenant_id, card_id) REFERENCES public.cards(tenant_id, id);

ALTER TABLE ONLY public.cardholders
    ADD CONSTRAINT cardholders_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.cards
    ADD CONSTRAINT cards_cardholder_id_fkey FOREIGN KEY (tenant_id, cardholder_id) REFERENCES public.cardholders(tenant_id, id);

ALTER TABLE ONLY public.cards
    ADD CONSTRAINT cards_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.cards
    ADD CONSTRAINT cards_wallet_id_fkey FOREIGN KEY (tenant_id, wallet_id) REFERENCES public.wallets(tenant_id, id);

ALTER TABLE ONLY public.checkout_refunds
    ADD CONSTRAINT checkout_refunds_checkout_id_fkey FOREIGN KEY (tenant_id, checkout_id) REFERENCES public.checkouts(tenant_id, id);

ALTER TABLE ONLY public.checkout_refunds
    ADD CONSTRAINT checkout_refunds_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.checkouts
    ADD CONSTRAINT checkouts_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.drips
    ADD CONSTRAINT drips_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.drips
    ADD CONSTRAINT drips_wallet_id_fkey FOREIGN KEY (tenant_id, wallet_id) REFERENCES public.wallets(tenant_id, id);

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.handles
    ADD CONSTRAINT handles_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.handles
    ADD CONSTRAINT handles_wallet_id_fkey FOREIGN KEY (tenant_id, wallet_id) REFERENCES public.wallets(tenant_id, id);

ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_hold_wallet_id_fkey FOREIGN KEY (tenant_id, hold_wallet_id) REFERENCES public.wallets(tenant_id, id);

ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_refund_payment_id_fkey FOREIGN KEY (tenant_id, refund_payment_id) REFERENCES public.safe_payments(tenant_id, id);

ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_release_payment_id_fkey FOREIGN KEY (tenant_id, release_payment_id) REFERENCES public.safe_payments(tenant_id, id);

ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.ledger_balances
    ADD CONSTRAINT ledger_balances_account_fkey FOREIGN KEY (account_id, home_tenant_id) REFERENCES public.ledger_accounts(id, home_tenant_id);

ALTER TABLE ONLY public.ledger_transfers
    ADD CONSTRAINT ledger_transfers_pending_fkey FOREIGN KEY (pending_id, home_tenant_id) REFERENCES public.ledger_transfers(id, home_tenant_id);

ALTER TABLE ONLY public.members
    ADD CONSTRAINT members_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.offramp_claim_challenges
    ADD CONSTRAINT offramp_claim_challenges_claim_id_fkey FOREIGN KEY (tenant_id, claim_id) REFERENCES public.offramp_claims(sender_tenant_id, id);

ALTER TABLE ONLY public.offramp_claim_links
    ADD CONSTRAINT offramp_claim_links_claim_id_fkey FOREIGN KEY (tenant_id, claim_id) REFERENCES public.offramp_claims(sender_tenant_id, id);

ALTER TABLE ONLY public.offramp_claims
    ADD CONSTRAINT offramp_claims_payment_id_fkey FOREIGN KEY (sender_tenant_id, payment_id) REFERENCES public.offramp_payments(sender_tenant_id, id);

ALTER TABLE ONLY public.offramp_claims
    ADD CONSTRAINT offramp_claims_recipient_tenant_id_fkey FOREIGN KEY (recipient_tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.offramp_claims
    ADD CONSTRAINT offramp_claims_sender_tenant_id_fkey FOREIGN KEY (sender_tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.offramp_hold_rechecks
    ADD CONSTRAINT offramp_hold_rechecks_payment_id_fkey FOREIGN KEY (tenant_id, payment_id) REFERENCES public.offramp_payments(sender_tenant_id, id) ON DELETE CASCADE;

ALTER TABLE ONLY public.offramp_payments
    ADD CONSTRAINT offramp_payments_recipient_tenant_id_fkey FOREIGN KEY (recipient_tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.offramp_payments
    ADD CONSTRAINT offramp_payments_sender_tenant_id_fkey FOREIGN KEY (sender_tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.offramp_returns
    ADD CONSTRAINT offramp_returns_payment_id_fkey FOREIGN KEY (tenant_id, payment_id) REFERENCES public.offramp_payments(sender_tenant_id, id);

ALTER TABLE ONLY public.offramp_review_approvals
    ADD CONSTRAINT offramp_review_approvals_payment_id_fkey FOREIGN KEY (tenant_id, payment_id) REFERENCES public.offramp_payments(sender_tenant_id, id);

ALTER TABLE ONLY public.payout_destinations
    ADD CONSTRAINT payout_destinations_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.phone_alias_attempts
    ADD CONSTRAINT phone_alias_attempts_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.phone_aliases
    ADD CONSTRAINT phone_aliases_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.policies
    ADD CONSTRAINT policies_active_version_fkey FOREIGN KEY (tenant_id, active_version_id) REFERENCES public.policy_versions(tenant_id, id) DEFERRABLE INITIALLY DEFERRED;

ALTER TABLE ONLY public.policies
    ADD CONSTRAINT policies_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.policy_attachments
    ADD CONSTRAINT policy_attachments_policy_id_fkey FOREIGN KEY (tenant_id, policy_id) REFERENCES public.policies(tenant_id, id);

ALTER TABLE ONLY public.policy_attachments
    ADD CONSTRAINT policy_attachments_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.policy_decisions
    ADD CONSTRAINT policy_decisions_policy_id_fkey FOREIGN KEY (tenant_id, policy_id) REFERENCES public.policies(tenant_id, id);

ALTER TABLE ONLY public.policy_decisions
    ADD CONSTRAINT policy_decisions_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.policy_decisions
    ADD CONSTRAINT policy_decisions_version_id_fkey FOREIGN KEY (tenant_id, version_id) REFERENCES public.policy_versions(tenant_id, id);

ALTER TABLE ONLY public.policy_versions
    ADD CONSTRAINT policy_versions_policy_id_fkey FOREIGN KEY (tenant_id, policy_id) REFERENCES public.policies(tenant_id, id);

ALTER TABLE ONLY public.ramps
    ADD CONSTRAINT ramps_drip_id_fkey FOREIGN KEY (tenant_id, drip_id) REFERENCES public.drips(tenant_id, id);

ALTER TABLE ONLY public.ramps
    ADD CONSTRAINT ramps_payment_id_fkey FOREIGN KEY (tenant_id, payment_id) REFERENCES public.safe_payments(tenant_id, id);

ALTER TABLE ONLY public.ramps
    ADD CONSTRAINT ramps_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.ramps
    ADD CONSTRAINT ramps_wallet_id_fkey FOREIGN KEY (tenant_id, wallet_id) REFERENCES public.wallets(tenant_id, id);

ALTER TABLE ONLY public.recipient_credentials
    ADD CONSTRAINT recipient_credentials_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.relayer_tx_counts
    ADD CONSTRAINT relayer_tx_counts_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.route_quotes
    ADD CONSTRAINT route_quotes_payment_id_fkey FOREIGN KEY (tenant_id, payment_id) REFERENCES public.offramp_payments(sender_tenant_id, id);

ALTER TABLE ONLY public.safe_payment_holds
    ADD CONSTRAINT safe_payment_holds_payment_id_fkey FOREIGN KEY (tenant_id, payment_id) REFERENCES public.safe_payments(tenant_id, id);

ALTER TABLE ONLY public.safe_payments
    ADD CONSTRAINT safe_payments_source_wallet_id_fkey FOREIGN KEY (tenant_id, source_wallet_id) REFERENCES public.wallets(tenant_id, id);

ALTER TABLE ONLY public.safe_payments
    ADD CONSTRAINT safe_payments_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.sms_messages
    ADD CONSTRAINT sms_messages_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.treasury_accounts
    ADD CONSTRAINT treasury_accounts_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.treasury_buckets
    ADD CONSTRAINT treasury_buckets_account_id_fkey FOREIGN KEY (tenant_id, account_id) REFERENCES public.treasury_accounts(tenant_id, id);

ALTER TABLE ONLY public.treasury_buckets
    ADD CONSTRAINT treasury_buckets_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.treasury_buckets
    ADD CONSTRAINT treasury_buckets_wallet_id_fkey FOREIGN KEY (tenant_id, wallet_id) REFERENCES public.wallets(tenant_id, id);

ALTER TABLE ONLY public.treasury_rules
    ADD CONSTRAINT treasury_rules_account_id_fkey FOREIGN KEY (tenant_id, account_id) REFERENCES public.treasury_accounts(tenant_id, id);

ALTER TABLE ONLY public.treasury_rules
    ADD CONSTRAINT treasury_rules_dest_bucket_id_fkey FOREIGN KEY (tenant_id, dest_bucket_id) REFERENCES public.treasury_buckets(tenant_id, id);

ALTER TABLE ONLY public.treasury_rules
    ADD CONSTRAINT treasury_rules_source_bucket_id_fkey FOREIGN KEY (tenant_id, source_bucket_id) REFERENCES public.treasury_buckets(tenant_id, id);

ALTER TABLE ONLY public.treasury_rules
    ADD CONSTRAINT treasury_rules_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.treasury_sweeps
    ADD CONSTRAINT treasury_sweeps_account_id_fkey FOREIGN KEY (tenant_id, account_id) REFERENCES public.treasury_accounts(tenant_id, id);

ALTER TABLE ONLY public.treasury_sweeps
    ADD CONSTRAINT treasury_sweeps_dest_bucket_id_fkey FOREIGN KEY (tenant_id, dest_bucket_id) REFERENCES public.treasury_buckets(tenant_id, id);

ALTER TABLE ONLY public.treasury_sweeps
    ADD CONSTRAINT treasury_sweeps_payment_id_fkey FOREIGN KEY (tenant_id, payment_id) REFERENCES public.safe_payments(tenant_id, id);

ALTER TABLE ONLY public.treasury_sweeps
    ADD CONSTRAINT treasury_sweeps_rule_id_fkey FOREIGN KEY (tenant_id, rule_id) REFERENCES public.treasury_rules(tenant_id, id);

ALTER TABLE ONLY public.treasury_sweeps
    ADD CONSTRAINT treasury_sweeps_source_bucket_id_fkey FOREIGN KEY (tenant_id, source_bucket_id) REFERENCES public.treasury_buckets(tenant_id, id);

ALTER TABLE ONLY public.treasury_sweeps
    ADD CONSTRAINT treasury_sweeps_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.wallets
    ADD CONSTRAINT wallets_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_delivery_id_fkey FOREIGN KEY (tenant_id, delivery_id) REFERENCES public.webhook_deliveries(tenant_id, id);

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (tenant_id, endpoint_id) REFERENCES public.webhook_endpoints(tenant_id, id);

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_event_id_fkey FOREIGN KEY (tenant_id, event_id) REFERENCES public.events(tenant_id, id);

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_redelivery_of_fkey FOREIGN KEY (tenant_id, redelivery_of) REFERENCES public.webhook_deliveries(tenant_id, id);

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);
