-- A unit of work that writes both a table on the Citus coordinator (River's job inserts, the
-- ledger while it stays there) and a worker's shard must not commit the worker first and the
-- coordinator after: a coordinator that dies in between keeps one half (docs/reliability.md,
-- "Citus"). Citus commits a transaction with two-phase commit, deciding it by the coordinator's
-- own commit record, as soon as the transaction modified a table through its local execution.
-- two_phase_marks is such a table on Citus (placed citus-local by `corridor migrate`, an empty
-- table with a shard on the coordinator); mark_two_phase_commit(), run by the store just before
-- COMMIT, touches it when the transaction wrote anything on the coordinator. On plain
-- PostgreSQL the store never calls it.
CREATE TABLE two_phase_marks (id integer PRIMARY KEY);

CREATE FUNCTION mark_two_phase_commit() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    -- A transaction id is assigned only once the coordinator's own tables were written (or
    -- rows locked): a unit that wrote a worker alone needs no second phase.
    IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
        DELETE FROM two_phase_marks WHERE id = 0;
    END IF;
END $$;
