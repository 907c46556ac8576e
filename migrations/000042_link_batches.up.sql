-- A pipeline batch links the transfers it writes itself, set-wise: one call per write hashes
-- them in order, appends their links and moves its stripe's head once, where the row trigger
-- runs a function, an UPDATE of the head and an INSERT per transfer. chain_linked marks the
-- rows it linked; the row trigger's WHEN skips them (evaluated at insert, so they never queue
-- a deferred event). `corridor ledger verify` still finds any transfer without its link.
ALTER TABLE ledger_transfers ADD COLUMN chain_linked boolean NOT NULL DEFAULT false;

-- ledger_chain_stripe locks and returns the stripe a transaction appends to in an environment:
-- the one it already holds, else the first free one from txid mod 16 on (SKIP LOCKED: a commit
-- never waits for another transaction's stripe while a free one exists), else txid mod 16,
-- waiting. It is remembered in a transaction-local setting, so a transaction holds at most one
-- head per environment (a savepoint rolled back forgets both the setting and the lock).
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
        SELECT h.stripe INTO s FROM ledger_chain_heads h WHERE h.environment = p_environment
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

DROP TRIGGER ledger_transfers_link ON ledger_transfers;
CREATE CONSTRAINT TRIGGER ledger_transfers_link AFTER INSERT ON ledger_transfers
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NOT NEW.chain_linked)
    EXECUTE FUNCTION ledger_link_transfer();

-- ledger_link_batch appends the links of transfers (given in their order) to the chains of
-- their environments: hash = sha256(previous hash || canonical), as the trigger computes it.
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
