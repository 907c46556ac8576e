-- Back to migration 000077's ledger_link_batch: one group after the other, each locked by
-- ledger_chain_lane and its head read and moved by statements of its own.
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
