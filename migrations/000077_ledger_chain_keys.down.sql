-- Back to chain tables without a distribution key: the link functions of migration 000065,
-- then the keys without chain_key.
CREATE OR REPLACE FUNCTION ledger_chain_lane(p_environment text, p_bucket smallint) RETURNS smallint LANGUAGE plpgsql AS $$
DECLARE
    setting text := 'corridor.chain_lane_' || lower(p_environment) || '_' || p_bucket;
    s       smallint := nullif(current_setting(setting, true), '')::smallint;
    first   smallint := 16 + 4 * p_bucket;
BEGIN
    IF s IS NOT NULL THEN
        RETURN s;
    END IF;
    SELECT h.stripe INTO s FROM ledger_chain_heads h
    WHERE h.environment = p_environment AND h.stripe BETWEEN first AND first + 3
    ORDER BY (h.stripe - first + txid_current()) % 4 LIMIT 1 FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        s := first + (txid_current() % 4)::smallint;
        PERFORM 1 FROM ledger_chain_heads h WHERE h.environment = p_environment AND h.stripe = s FOR UPDATE;
    END IF;
    PERFORM set_config(setting, s::text, true);
    RETURN s;
END
$$;

CREATE OR REPLACE FUNCTION ledger_link_transfer() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    s        smallint := ledger_chain_lane(NEW.environment, ledger_chain_bucket(NEW.home_tenant_id));
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

CREATE OR REPLACE FUNCTION ledger_link_batch(p_environments text[], p_homes text[], p_ids text[], p_canonicals bytea[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    g       record;
    s       smallint;
    pos     bigint;
    h       bytea;
    i       integer;
    members integer[] := '{}';
    envs    text[] := '{}';
    stripes smallint[] := '{}';
    places  bigint[] := '{}';
    hashes  bytea[] := '{}';
    h_envs  text[] := '{}';
    h_s     smallint[] := '{}';
    h_pos   bigint[] := '{}';
    h_hash  bytea[] := '{}';
BEGIN
    FOR g IN
        SELECT x.e, ledger_chain_bucket(x.home) AS b, array_agg(x.n::integer ORDER BY x.n) AS members
        FROM unnest(p_environments, p_homes) WITH ORDINALITY AS x (e, home, n)
        GROUP BY 1, 2 ORDER BY 1, 2
    LOOP
        s := ledger_chain_lane(g.e, g.b);
        SELECT position, hash INTO STRICT pos, h FROM ledger_chain_heads WHERE environment = g.e AND stripe = s;
        FOREACH i IN ARRAY g.members LOOP
            pos := pos + 1;
            h := sha256(h || p_canonicals[i]);
            members := members || i;
            envs := envs || g.e;
            stripes := stripes || s;
            places := places || pos;
            hashes := hashes || h;
        END LOOP;
        h_envs := h_envs || g.e;
        h_s := h_s || s;
        h_pos := h_pos || pos;
        h_hash := h_hash || h;
    END LOOP;
    INSERT INTO ledger_chain (transfer_id, environment, stripe, position, hash)
    SELECT p_ids[x.i], x.e, x.s, x.position, x.hash
    FROM unnest(members, envs, stripes, places, hashes) AS x (i, e, s, position, hash);
    UPDATE ledger_chain_heads hd SET position = x.position, hash = x.hash
    FROM unnest(h_envs, h_s, h_pos, h_hash) AS x (e, s, position, hash)
    WHERE hd.environment = x.e AND hd.stripe = x.s;
    RETURN coalesce(array_length(p_ids, 1), 0);
END
$$;

ALTER TABLE ledger_chain DROP CONSTRAINT ledger_chain_pkey,
    ADD CONSTRAINT ledger_chain_position_key UNIQUE (environment, stripe, position);
ALTER TABLE ledger_chain DROP COLUMN chain_key;
ALTER TABLE ledger_chain_heads DROP CONSTRAINT ledger_chain_heads_pkey,
    ADD CONSTRAINT ledger_chain_heads_pkey PRIMARY KEY (environment, stripe);
ALTER TABLE ledger_chain_heads DROP COLUMN chain_key;
DROP FUNCTION ledger_chain_stripe_key(smallint);
DROP FUNCTION ledger_chain_key(smallint);
