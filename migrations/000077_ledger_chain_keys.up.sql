-- The hash chain's tables gain a distribution key per tenant bucket: chain_key, a text whose
-- hash falls in its bucket's range (ledger_chain_bucket(ledger_chain_key(b)) = b), so that on
-- a database distributed by tenant a bucket's heads and links share the shard group of the
-- bucket's tenants, and a commit's chain write goes to its tenants' node (docs/scaling.md,
-- "The ledger's hash chain"). On plain PostgreSQL it is one more short column in two keys.

-- ledger_chain_key is bucket b's key: the first of 'chain-<b>-<n>' (n = 0, 1, ...) whose
-- hashtext falls in b's range, found once and written down here (a test checks each one, on
-- PostgreSQL and against a Citus cluster's shard ranges).
CREATE FUNCTION ledger_chain_key(p_bucket smallint) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (ARRAY['chain-0-40', 'chain-1-10', 'chain-2-36', 'chain-3-16', 'chain-4-19', 'chain-5-3', 'chain-6-147',
        'chain-7-7', 'chain-8-129', 'chain-9-42', 'chain-10-14', 'chain-11-15', 'chain-12-17', 'chain-13-0',
        'chain-14-46', 'chain-15-6', 'chain-16-27', 'chain-17-5', 'chain-18-6', 'chain-19-10', 'chain-20-126',
        'chain-21-28', 'chain-22-10', 'chain-23-104', 'chain-24-64', 'chain-25-12', 'chain-26-15', 'chain-27-23',
        'chain-28-2', 'chain-29-59', 'chain-30-13', 'chain-31-28'])[p_bucket + 1]
$$;

-- ledger_chain_stripe_key is the key of a stripe's bucket. The environment-wide stripes of
-- before (0-15) take no new links; they sit with bucket 0.
CREATE FUNCTION ledger_chain_stripe_key(p_stripe smallint) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ledger_chain_key(CASE WHEN p_stripe < 16 THEN 0 ELSE (p_stripe - 16) / 4 END::smallint)
$$;

ALTER TABLE ledger_chain_heads ADD COLUMN chain_key text;
UPDATE ledger_chain_heads SET chain_key = ledger_chain_stripe_key(stripe);
ALTER TABLE ledger_chain_heads ALTER COLUMN chain_key SET NOT NULL,
    DROP CONSTRAINT ledger_chain_heads_pkey,
    ADD CONSTRAINT ledger_chain_heads_pkey PRIMARY KEY (environment, stripe, chain_key);

ALTER TABLE ledger_chain ADD COLUMN chain_key text;
UPDATE ledger_chain SET chain_key = ledger_chain_stripe_key(stripe);
-- The position key becomes the primary key: Citus moves a shard between nodes by logical
-- replication, which needs one (a unique constraint is not a replica identity).
ALTER TABLE ledger_chain ALTER COLUMN chain_key SET NOT NULL,
    DROP CONSTRAINT ledger_chain_position_key,
    ADD CONSTRAINT ledger_chain_pkey PRIMARY KEY (environment, stripe, position, chain_key);

-- ledger_chain_lane: as before (migration 000065), every statement naming the bucket's key.
CREATE OR REPLACE FUNCTION ledger_chain_lane(p_environment text, p_bucket smallint) RETURNS smallint LANGUAGE plpgsql AS $$
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

CREATE OR REPLACE FUNCTION ledger_link_transfer() RETURNS trigger LANGUAGE plpgsql AS $$
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

-- ledger_link_batch: as before (migration 000065), the links and heads written with their
-- bucket's key. One group (environment, bucket) after the other, each group's head moved by a
-- statement naming its key (on Citus it goes to the bucket's shard alone: an UPDATE joined to
-- an array of keys would go to every shard); the links of every group inserted in one
-- statement at the end (Citus sends each row to its shard).
CREATE OR REPLACE FUNCTION ledger_link_batch(p_environments text[], p_homes text[], p_ids text[], p_canonicals bytea[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    g       record;
    s       smallint;
    k       text;
    pos     bigint;
    h       bytea;
    i       integer;
    members integer[] := '{}';
    envs    text[] := '{}';
    stripes smallint[] := '{}';
    keys    text[] := '{}';
    places  bigint[] := '{}';
    hashes  bytea[] := '{}';
BEGIN
    FOR g IN
        SELECT x.e, ledger_chain_bucket(x.home) AS b, array_agg(x.n::integer ORDER BY x.n) AS members
        FROM unnest(p_environments, p_homes) WITH ORDINALITY AS x (e, home, n)
        GROUP BY 1, 2 ORDER BY 1, 2
    LOOP
        k := ledger_chain_key(g.b);
        s := ledger_chain_lane(g.e, g.b);
        SELECT position, hash INTO STRICT pos, h FROM ledger_chain_heads
        WHERE chain_key = k AND environment = g.e AND stripe = s;
        FOREACH i IN ARRAY g.members LOOP
            pos := pos + 1;
            h := sha256(h || p_canonicals[i]);
            members := members || i;
            envs := envs || g.e;
            stripes := stripes || s;
            keys := keys || k;
            places := places || pos;
            hashes := hashes || h;
        END LOOP;
        UPDATE ledger_chain_heads SET position = pos, hash = h WHERE chain_key = k AND environment = g.e AND stripe = s;
    END LOOP;
    INSERT INTO ledger_chain (transfer_id, environment, stripe, position, hash, chain_key)
    SELECT p_ids[x.i], x.e, x.s, x.position, x.hash, x.k
    FROM unnest(members, envs, stripes, places, hashes, keys) AS x (i, e, s, position, hash, k);
    RETURN coalesce(array_length(p_ids, 1), 0);
END
$$;
