-- ledger_link_batch: the same links and heads as before (migration 000077), with fewer
-- statements per group (environment, bucket). A batch of many tenants' transfers touches many
-- buckets, and each group cost a statement to find its key, two to three to choose and lock its
-- stripe, one to read its head and one to move it: about 0.1 ms a group, ten groups for a
-- batch of 32 tenants' deposits (docs/performance.md).
--
-- Now:
--   * the groups and each transfer's group are found by one statement;
--   * with more than one group, one statement locks a stripe of every group (the first its
--     transaction can take without waiting, in the order ledger_chain_lane uses, or the one the
--     transaction already holds) and reads its head; a group whose four stripes are all held by
--     other transactions is then locked by waiting, as before;
--   * with one group (every call on Citus, where a batch is written per home tenant, so every
--     statement names one bucket's key and goes to its shard alone), one statement locks the
--     stripe and reads its head; those statements name the group's key, environment and stripe
--     as plain variables (array elements as parameters there crashed Citus 13.2.2's
--     coordinator with a segmentation fault);
--   * the hashes are chained in memory in transfer order, the heads moved by one statement
--     (one naming the key with one group) and the links inserted by one.
-- The stripe a transaction takes for a bucket is remembered for the rest of the transaction
-- (the setting ledger_chain_lane reads), so it holds at most one head per environment and bucket.
CREATE OR REPLACE FUNCTION ledger_link_batch(p_environments text[], p_homes text[], p_ids text[], p_canonicals bytea[])
RETURNS integer LANGUAGE plpgsql AS $$
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
