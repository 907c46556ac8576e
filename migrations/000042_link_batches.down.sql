DROP FUNCTION ledger_link_batch(text[], text[], bytea[]);

CREATE OR REPLACE FUNCTION ledger_link_transfer() RETURNS trigger LANGUAGE plpgsql AS $$
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

DROP TRIGGER ledger_transfers_link ON ledger_transfers;
CREATE CONSTRAINT TRIGGER ledger_transfers_link AFTER INSERT ON ledger_transfers
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_link_transfer();

DROP FUNCTION ledger_chain_stripe(text);

ALTER TABLE ledger_transfers DROP COLUMN chain_linked;
