-- The ledger's rows learn the tenant they live with, and the hash chain is striped by it, so
-- that on a database distributed by tenant a transfer's rows and its chain link stay in its
-- tenant's shard group (docs/scaling.md, docs/ledger.md "Integrity").
--
-- home_tenant_id: an account's own tenant, the tenant of a platform account's per-tenant share
-- (reference platform:…@ten_…), or '' for a platform account proper; a transfer's is the home
-- of its first debited account that has one, else of its first credited one (ledger.HomeOf).
ALTER TABLE ledger_accounts ADD COLUMN home_tenant_id text NOT NULL DEFAULT '';
UPDATE ledger_accounts SET home_tenant_id = CASE
    WHEN tenant_id IS NOT NULL THEN tenant_id
    WHEN reference ~ '.@[^@]+$' THEN substring(reference FROM '@([^@]+)$')
    ELSE '' END;
-- The sweep reads the shares (a few per tenant) without scanning every account.
CREATE INDEX ledger_accounts_shares_idx ON ledger_accounts (id) WHERE tenant_id IS NULL AND home_tenant_id <> '';
ALTER TABLE ledger_transfers ADD COLUMN home_tenant_id text NOT NULL DEFAULT '';
UPDATE ledger_transfers t SET home_tenant_id = h.home
FROM (
    SELECT t2.id, coalesce(
        (SELECT a.home_tenant_id FROM unnest(t2.posting_accounts, t2.posting_amounts) WITH ORDINALITY AS l (account_id, amount, n)
         JOIN ledger_accounts a ON a.id = l.account_id
         WHERE a.home_tenant_id <> '' ORDER BY (l.amount > 0), l.n LIMIT 1), '') AS home
    FROM ledger_transfers t2
) h
WHERE h.id = t.id AND h.home <> '';

-- ledger_chain_bucket is a tenant's chain bucket: its hash range among 32, the split Citus
-- gives a text distribution column over its default 32 shards, so one bucket's tenants share a
-- shard group. Stripes 0-15 are the environment-wide stripes of before (their transfers stay
-- where they were appended); bucket b owns stripes 16 + 4b .. 19 + 4b, four lanes so that
-- concurrent commits of one bucket need not wait for each other.
CREATE FUNCTION ledger_chain_bucket(p_tenant text) RETURNS smallint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (((hashtext(p_tenant)::bigint + 2147483648) * 32) / 4294967296)::smallint
$$;

INSERT INTO ledger_chain_heads (environment, stripe)
SELECT e, s FROM unnest(ARRAY['TEST', 'LIVE']) AS e, generate_series(16, 16 + 32 * 4 - 1) AS s
ON CONFLICT DO NOTHING;

-- ledger_chain_lane locks and returns the stripe a transaction appends a bucket's transfers
-- to: the one it already holds for the bucket, else the first free lane from txid mod 4 on
-- (SKIP LOCKED), else txid mod 4, waiting. Remembered in a transaction-local setting, so a
-- transaction holds at most one head per environment and bucket.
CREATE FUNCTION ledger_chain_lane(p_environment text, p_bucket smallint) RETURNS smallint LANGUAGE plpgsql AS $$
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

-- ledger_link_batch appends the links of transfers (given in their order) to the chains of
-- their environments and homes' buckets, one group after the other in (environment, bucket)
-- order, each group's transfers in the order given: hash = sha256(previous hash || canonical).
-- The links of every group are inserted, and the heads moved, in one statement each at the end.
CREATE FUNCTION ledger_link_batch(p_environments text[], p_homes text[], p_ids text[], p_canonicals bytea[])
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

DROP FUNCTION ledger_link_batch(text[], text[], bytea[]);
DROP FUNCTION ledger_chain_stripe(text);
