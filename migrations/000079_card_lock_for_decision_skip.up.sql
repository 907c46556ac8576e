-- card_lock_for_decision_skip is card_lock_for_decision (which it calls) for a pipeline batch's claim of its
-- Idempotency-Keys: the card's row is skipped when another transaction holds it (no row comes
-- back, and the authorization then locks the card with a statement of its own), so the batch's
-- claim never waits for a card while it holds balance rows. As in card_lock_for_decision, the
-- windows and the attachment check run after the lock, each in a snapshot of its own (a
-- VOLATILE function's statements take a fresh one), so they include every decision that held
-- the card's lock before.
CREATE FUNCTION card_lock_for_decision_skip(p_tenant text, p_environment text, p_id text, p_day text, p_week text, p_month text)
RETURNS TABLE (card cards, spent_daily bigint, spent_weekly bigint, spent_monthly bigint, policy_attached boolean)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM 1 FROM cards
    WHERE tenant_id = p_tenant AND environment = p_environment AND id = p_id
    FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    -- The card is this transaction's now: card_lock_for_decision's lock takes it again without
    -- waiting, and its reads are the decision's.
    RETURN QUERY SELECT * FROM card_lock_for_decision(p_tenant, p_environment, p_id, p_day, p_week, p_month);
END
$$;
