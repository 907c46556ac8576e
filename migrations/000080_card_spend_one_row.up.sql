-- A card's spend in its current windows is one row (card_spend) instead of one row per window
-- (card_spend_windows: a day, a week and a month row per card, and every earlier window's): an
-- approval writes one row version instead of three, and the decision's lock read finds one row
-- by its key. The row holds each period's key and spend; the keys sort in time within a period
-- (COLLATE "C": "2026-12-06", "2026-W49", "2026-12"), and a key only moves forward:
--   - an approval in a later window than the row's starts that period at its amount (the
--     window rolled over); in the same window it adds; in an earlier window (an approval whose
--     windows were taken just before a rollover another approval already made) it adds to the
--     row's current window, so every window's cap holds as written;
--   - a credit (a reversal, an expiry, a capture's remainder) gives back only to a period whose
--     key is still the authorization's: a period that rolled over is not made to go down.
-- Earlier windows' rows are not kept: nothing reads them (WindowSpend and the decision's reads
-- name the windows of the moment).
CREATE TABLE card_spend (
    tenant_id     text NOT NULL,
    card_id       text NOT NULL,
    day_key       text COLLATE "C" NOT NULL,
    spent_daily   bigint NOT NULL CHECK (spent_daily >= 0),
    week_key      text COLLATE "C" NOT NULL,
    spent_weekly  bigint NOT NULL CHECK (spent_weekly >= 0),
    month_key     text COLLATE "C" NOT NULL,
    spent_monthly bigint NOT NULL CHECK (spent_monthly >= 0),
    PRIMARY KEY (tenant_id, card_id)
);

-- On a Citus database whose cards are distributed already, the new table joins their shard
-- group before it keys to them (Citus refuses a key from a local table to a distributed one);
-- `corridor migrate`'s plan (CitusPlan) then finds it placed.
DO $$
DECLARE
    cards_distributed boolean := false;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        EXECUTE $q$SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'cards'::regclass)$q$
            INTO cards_distributed;
    END IF;
    IF cards_distributed THEN
        EXECUTE $q$SELECT create_distributed_table('card_spend', 'tenant_id', colocate_with => 'cards')$q$;
    END IF;
END
$$;

ALTER TABLE card_spend ADD CONSTRAINT card_spend_card_id_fkey
    FOREIGN KEY (tenant_id, card_id) REFERENCES cards (tenant_id, id);

-- Each card's latest window of each period, with its spend (the windows' keys tell the period
-- by their shape).
INSERT INTO card_spend (tenant_id, card_id, day_key, spent_daily, week_key, spent_weekly, month_key, spent_monthly)
SELECT tenant_id, card_id,
       coalesce(max(window_key COLLATE "C") FILTER (WHERE window_key ~ '^\d{4}-\d{2}-\d{2}$'), ''),
       coalesce((array_agg(spent_base_units ORDER BY window_key COLLATE "C" DESC) FILTER (WHERE window_key ~ '^\d{4}-\d{2}-\d{2}$'))[1], 0),
       coalesce(max(window_key COLLATE "C") FILTER (WHERE window_key ~ '^\d{4}-W\d{2}$'), ''),
       coalesce((array_agg(spent_base_units ORDER BY window_key COLLATE "C" DESC) FILTER (WHERE window_key ~ '^\d{4}-W\d{2}$'))[1], 0),
       coalesce(max(window_key COLLATE "C") FILTER (WHERE window_key ~ '^\d{4}-\d{2}$'), ''),
       coalesce((array_agg(spent_base_units ORDER BY window_key COLLATE "C" DESC) FILTER (WHERE window_key ~ '^\d{4}-\d{2}$'))[1], 0)
FROM card_spend_windows
GROUP BY tenant_id, card_id;

DROP TABLE card_spend_windows;

-- The decision's reads: the card's row locked, then its spend row in a fresh snapshot (the
-- function is VOLATILE: each statement takes one, after the lock). A period whose key is
-- before the decision's window rolled over: it spent nothing yet. A period at a later key
-- than the decision's is the one its approval adds to, and is read as it stands. With p_skip
-- (a pipeline batch's claim of its Idempotency-Keys) a card another transaction holds is
-- skipped instead of waited for: no row comes back, and the authorization then locks the card
-- with a statement of its own, so the batch's claim never waits for a card while it holds
-- balance rows. It replaces card_lock_for_decision_skip, which took the card with SKIP LOCKED
-- and then called this function, which took it again.
DROP FUNCTION card_lock_for_decision_skip(text, text, text, text, text, text);
DROP FUNCTION card_lock_for_decision(text, text, text, text, text, text);
CREATE FUNCTION card_lock_for_decision(p_tenant text, p_environment text, p_id text, p_day text, p_week text, p_month text,
    p_skip boolean DEFAULT false)
RETURNS TABLE (card cards, spent_daily bigint, spent_weekly bigint, spent_monthly bigint, policy_attached boolean)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    c cards;
BEGIN
    IF p_skip THEN
        SELECT * INTO c FROM cards
        WHERE tenant_id = p_tenant AND environment = p_environment AND id = p_id
        FOR UPDATE SKIP LOCKED;
    ELSE
        SELECT * INTO c FROM cards
        WHERE tenant_id = p_tenant AND environment = p_environment AND id = p_id
        FOR UPDATE;
    END IF;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT c,
           CASE WHEN s.day_key >= p_day THEN s.spent_daily ELSE 0 END::bigint,
           CASE WHEN s.week_key >= p_week THEN s.spent_weekly ELSE 0 END::bigint,
           CASE WHEN s.month_key >= p_month THEN s.spent_monthly ELSE 0 END::bigint,
           EXISTS (
               SELECT 1 FROM policy_attachments a
               WHERE a.tenant_id = p_tenant AND a.environment = p_environment AND a.detached_at IS NULL
                 AND ((a.subject_type = 'card' AND a.subject_id = c.id)
                   OR (a.subject_type = 'wallet' AND a.subject_id = c.wallet_id)
                   OR (a.subject_type = 'agent' AND a.subject_id = c.agent_id)))
    FROM (SELECT) AS one
    LEFT JOIN card_spend s ON s.tenant_id = p_tenant AND s.card_id = p_id;
END
$$;

-- An authorization's card is its tenant's (card_authorizations_card_id_fkey, whose card keys to
-- its tenant): the key to tenants checked nothing more, at a share lock on the tenant's row per
-- authorization.
ALTER TABLE card_authorizations DROP CONSTRAINT card_authorizations_tenant_id_fkey;

-- The card's list of authorizations by creation time duplicated the list by id (ids are
-- UUIDv7s: they sort by creation time). Its readers, the card's list (ORDER BY id) and the
-- agent's timeline (a join on the tenant and card, sorted after the union), find the card's
-- rows through card_authorizations_card_idx; each approval wrote an entry here for nothing.
DROP INDEX card_authorizations_card_created_idx;
