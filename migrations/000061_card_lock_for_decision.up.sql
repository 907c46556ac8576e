-- card_lock_for_decision locks a card's row and then reads what an authorization decides on
-- beside it, in one round trip: the card's spend in its day, week and month windows, and
-- whether an active spend policy is attached to the card, its wallet or its agent. It is
-- VOLATILE on purpose: under READ COMMITTED each statement inside takes a fresh snapshot, so the
-- windows are read after the lock is granted and include every decision that held the lock
-- before (a single SELECT would read them as of its own start, before any wait for the lock).
-- No row: no such card of that tenant and environment.
CREATE FUNCTION card_lock_for_decision(p_tenant text, p_environment text, p_id text, p_day text, p_week text, p_month text)
RETURNS TABLE (card cards, spent_daily bigint, spent_weekly bigint, spent_monthly bigint, policy_attached boolean)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    c cards;
BEGIN
    SELECT * INTO c FROM cards
    WHERE tenant_id = p_tenant AND environment = p_environment AND id = p_id
    FOR UPDATE;
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
               WHERE a.tenant_id = c.tenant_id AND a.environment = c.environment AND a.detached_at IS NULL
                 AND ((a.subject_type = 'card' AND a.subject_id = c.id)
                   OR (a.subject_type = 'wallet' AND a.subject_id = c.wallet_id)
                   OR (a.subject_type = 'agent' AND a.subject_id = c.agent_id)))
    FROM card_spend_windows w
    WHERE w.card_id = c.id AND w.window_key IN (p_day, p_week, p_month);
END
$$;
