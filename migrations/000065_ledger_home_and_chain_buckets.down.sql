-- Back to environment-wide stripes: new links go to stripes 0-15 again; links already in a
-- bucket's stripe stay there (the heads are kept so that they still verify).
CREATE FUNCTION ledger_chain_stripe(p_environment text) RETURNS smallint LANGUAGE plpgsql AS $$
DECLARE
    setting text := 'corridor.chain_stripe_' || lower(p_environment);
    s       smallint := nullif(current_setting(setting, true), '')::smallint;
BEGIN
    IF s IS NOT NULL THEN
        RETURN s;
    END IF;
    SELECT h.stripe INTO s FROM ledger_chain_heads h
    WHERE h.environment = p_environment AND h.stripe = txid_current() % 16 FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        SELECT h.stripe INTO s FROM ledger_chain_heads h WHERE h.environment = p_environment AND h.stripe < 16
        ORDER BY (h.stripe + txid_current()) % 16 LIMIT 1 FOR UPDATE SKIP LOCKED;
    END IF;
    IF NOT FOUND THEN
        s := (txid_current() % 16)::smallint;
        PERFORM 1 FROM ledger_chain_heads h WHERE h.environment = p_environment AND h.stripe = s FOR UPDATE;
    END IF;
    PERFORM set_config(setting, s::text, true);
    RETURN s;
END
$$;

CREATE OR REPLACE FUNCTION ledger_link_transfer() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    s        smallint := ledger_chain_stripe(NEW.environment);
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

CREATE FUNCTION ledger_link_batch(p_environments text[], p_ids text[], p_canonicals bytea[]) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    env    text;
    s      smallint;
    pos    bigint;
    h      bytea;
    n      integer := coalesce(array_length(p_ids, 1), 0);
    ids    text[];
    places bigint[];
    hashes bytea[];
BEGIN
    FOR env IN SELECT DISTINCT e FROM unnest(p_environments) AS e LOOP
        s := ledger_chain_stripe(env);
        SELECT position, hash INTO STRICT pos, h FROM ledger_chain_heads WHERE environment = env AND stripe = s;
        ids := '{}';
        places := '{}';
        hashes := '{}';
        FOR i IN 1 .. n LOOP
            IF p_environments[i] = env THEN
                pos := pos + 1;
                h := sha256(h || p_canonicals[i]);
                ids := ids || p_ids[i];
                places := places || pos;
                hashes := hashes || h;
            END IF;
        END LOOP;
        INSERT INTO ledger_chain (transfer_id, environment, stripe, position, hash)
        SELECT x.id, env, s, x.position, x.hash FROM unnest(ids, places, hashes) AS x (id, position, hash);
        UPDATE ledger_chain_heads SET position = pos, hash = h WHERE environment = env AND stripe = s;
    END LOOP;
    RETURN n;
END
$$;

DROP FUNCTION ledger_link_batch(text[], text[], text[], bytea[]);
DROP FUNCTION ledger_chain_lane(text, smallint);
DROP FUNCTION ledger_chain_bucket(text);
ALTER TABLE ledger_transfers DROP COLUMN home_tenant_id;
DROP INDEX ledger_accounts_shares_idx;
ALTER TABLE ledger_accounts DROP COLUMN home_tenant_id;
