-- card_lock_for_decision_skip is card_lock_for_decision for a pipeline batch's claim of its
-- Idempotency-Keys: the card's row is skipped when another transaction holds it (no row comes
-- back, and the authorization then locks the card with a statement of its own), so the batch's
-- claim never waits for a card while it holds balance rows. As in card_lock_for_decision, the
-- windows and the attachment check run after the lock, each in a snapshot of its own (a
-- VOLATILE function's statements take a fresh one), so they include every decision that held
-- the card's lock before.
CREATE FUNCTION card_lock_for_decision_skip(p_tenant text, p_environment text, p_id text, p_day text, p_week text, p_month text)
RETURNS TABLE (card cards, spent_daily bigint, spent_weekly bigint, spent_monthly bigint, policy_attached boolean)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    c cards;
BEGIN
    SELECT * INTO c FROM cards
    WHERE tenant_id = p_tenant AND environment = p_environment AND id = p_id
    FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT c,
           coalesce(sum(w.spent_base_units) FILTER (WHERE w.window_key = p_day), 0)::bigint,
           coalesce(sum(w.spent_base_units) FILTER (WHERE w.window_key = p_week), 0)::bigint,
           coalesce(sum(w.spent_base_units) FILTER (WHERE w.window_key = p_month), 0)::bigint,
           EXISTS (
               SELECT 1 FROM policy_attachments a
               WHERE a.tenant_id = p_tenant AND a.environment = p_environment AND a.detached_at IS NULL
                 AND ((a.subject_type = 'card' AND a.subject_id = c.id)
                   OR (a.subject_type = 'wallet' AND a.subject_id = c.wallet_id)
                   OR (a.subject_type = 'agent' AND a.subject_id = c.agent_id)))
    FROM card_spend_windows w
    WHERE w.tenant_id = p_tenant AND w.card_id = p_id AND w.window_key IN (p_day, p_week, p_month);
END
$$;
