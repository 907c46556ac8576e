package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/ports"
)

// The card's lock read that also locks its hold's rows. A known funding-account card's
// authorization names the rows its hold will lock (the tenant's service balance, the card's
// authorized account, the hold's reference) before its unit runs. They are locked in the card's
// lock read, after the card's row, never before it: the expiry pass, a capture and a reversal
// lock the card and then the hold's rows, and an authorization that locked the balance first
// and waited for the card could deadlock with them (docs/ledger.md, "Lock order"). The statement
// still costs the unit no exchange: the lock read already had one of its own.

// lockCardAndHoldSQL is lockCardForDecisionSQL ($1-$6) with the batch's locking read beside it:
// $7 the balance rows it waits for, in account-id order; $8 the rows it takes unless another
// transaction holds them; $9 and $10 the references (environment, reference); $11 the homes.
// The locks are taken by subqueries that name the locked card's row, so PostgreSQL runs them
// only once card_lock_for_decision has returned it: a card that is not found locks nothing.
// The rows come back as two JSON arrays of text beside the card's columns.
const lockCardAndHoldSQL = `WITH w AS MATERIALIZED (
    SELECT b.account_id, b.posted, b.pending_debits, b.pending_credits, b.last_transfer_at
    FROM ledger_balances b WHERE b.account_id = ANY($7::text[]) AND b.home_tenant_id = ANY($11::text[])
    ORDER BY b.account_id FOR UPDATE
), s AS MATERIALIZED (
    SELECT b.account_id, b.posted, b.pending_debits, b.pending_credits, b.last_transfer_at
    FROM ledger_balances b WHERE b.account_id = ANY($8::text[]) AND b.home_tenant_id = ANY($11::text[])
    ORDER BY b.account_id FOR UPDATE SKIP LOCKED
)
SELECT (r.card).id, (r.card).tenant_id, (r.card).environment, (r.card).funding,
    (r.card).wallet_id, (r.card).safe_address, (r.card).cardholder_id, (r.card).agent_id, (r.card).issuer,
    (r.card).issuer_card_id, (r.card).last4, (r.card).funding_account_id, (r.card).chain,
    (r.card).crypto_account_address, (r.card).crypto_account_type, (r.card).status,
    (r.card).per_transaction_limit, (r.card).daily_limit, (r.card).weekly_limit, (r.card).monthly_limit,
    (r.card).blocked_mcc::text, (r.card).allowed_mcc::text, (r.card).created_at, (r.card).updated_at,
    r.spent_daily, r.spent_weekly, r.spent_monthly, r.policy_attached,
    (SELECT coalesce(jsonb_agg(jsonb_build_array(l.account_id, l.posted::text, l.pending_debits::text,
        l.pending_credits::text, l.last_transfer_at)), '[]')::text
     FROM (SELECT * FROM w UNION ALL SELECT * FROM s) l WHERE (r.card).id IS NOT NULL),
    (SELECT coalesce(jsonb_agg(jsonb_build_array(x.id, x.environment, x.reference)), '[]')::text
     FROM ledger_transfers x JOIN unnest($9::text[], $10::text[]) AS q (environment, reference)
         ON x.environment = q.environment AND x.reference = q.reference AND x.home_tenant_id = ANY($11::text[])
     WHERE (r.card).id IS NOT NULL)
FROM card_lock_for_decision($1, $2, $3, $4, $5, $6) AS r`

// holdLocking reports whether the card's lock read locks the hold's rows too: the unit is a
// pipeline batch's and the request named rows. On Citus the card's shard is not the ledger's,
// so the hold's own locking read locks them, after the card as well.
func holdLocking(ctx context.Context, u *unitLedger) (ports.LedgerIntent, bool) {
	if u == nil || u.m.b.p.citus {
		return ports.LedgerIntent{}, false
	}
	in, ok := ports.LedgerIntentOf(ctx)
	return in, ok && (len(in.Accounts) > 0 || len(in.References) > 0)
}

// lockCardAndHold runs lockCardAndHoldSQL and gives the unit the balances and references it
// read, as the unit's own locking read would, so the hold decides in memory. It runs on the
// statement's generic plan, as the claim that locks does: with array parameters PostgreSQL
// would otherwise plan it on every call.
func (r cardRepo) lockCardAndHold(ctx context.Context, in ports.LedgerIntent, tenantID string, env core.Environment, id string, w card.Windows) (ports.CardDecisionRows, error) {
	u := r.unit
	u.m.enterSQL()
	set := u.intentLocks(ctx, in)
	envs, refs := make([]string, len(set.refs)), make([]string, len(set.refs))
	for i, k := range set.refs {
		envs[i], refs[i] = k.environment, k.reference
	}
	if _, err := u.q.ExecContext(ctx, "SET LOCAL plan_cache_mode = force_generic_plan", deferExec{}); err != nil {
		return ports.CardDecisionRows{}, err
	}
	var d ports.CardDecisionRows
	var balances, found string
	dest, finish := decisionScan(&d)
	err := u.q.QueryRowContext(ctx, lockCardAndHoldSQL, withPending{}, tenantID, string(env), id, w.Day, w.Week, w.Month,
		nonNil(set.wait), nonNil(set.skip), envs, refs, homesOf(u.batch.accounts)).Scan(append(dest, &balances, &found)...)
	if err == nil || errors.Is(err, sql.ErrNoRows) {
		// Only after a statement that did not fail: after a failure the transaction takes no
		// statement but the rollback to the unit's savepoint, which undoes the setting anyway.
		_, _ = u.q.ExecContext(ctx, "SET LOCAL plan_cache_mode = DEFAULT", deferExec{})
	} else {
		u.noteLock(err)
	}
	if err = finish(err); err != nil {
		return d, err
	}
	if err := u.takeLocked(balances, found, set.refs); err != nil {
		return d, err
	}
	return d, nil
}

// takeLocked folds the statement's locked balances into the unit's known rows and records,
// for every reference looked up, the transfer found or none.
func (u *unitLedger) takeLocked(balances, found string, looked []refKey) error {
	var rows, refs [][]*string
	if err := json.Unmarshal([]byte(balances), &rows); err != nil {
		return fmt.Errorf("card and hold lock: balances: %w", err)
	}
	if err := json.Unmarshal([]byte(found), &refs); err != nil {
		return fmt.Errorf("card and hold lock: references: %w", err)
	}
	for _, row := range rows {
		if len(row) != 5 || row[0] == nil || row[1] == nil || row[2] == nil || row[3] == nil {
			return fmt.Errorf("card and hold lock: a balance row of %d columns", len(row))
		}
		var k knownBalance
		var err error
		if k.balance.Posted, err = strconv.ParseInt(*row[1], 10, 64); err == nil {
			if k.balance.PendingDebits, err = strconv.ParseInt(*row[2], 10, 64); err == nil {
				k.balance.PendingCredits, err = strconv.ParseInt(*row[3], 10, 64)
			}
		}
		if err == nil && row[4] != nil {
			k.at, err = time.Parse(time.RFC3339Nano, *row[4])
			k.at = k.at.UTC()
		}
		if err != nil {
			return fmt.Errorf("card and hold lock: balance of %s: %w", *row[0], err)
		}
		u.known[*row[0]] = k
	}
	ids := map[refKey]string{}
	for _, ref := range refs {
		if len(ref) == 3 && ref[0] != nil && ref[1] != nil && ref[2] != nil {
			ids[refKey{*ref[1], *ref[2]}] = *ref[0]
		}
	}
	for _, k := range looked {
		u.batch.dbRefs[k] = ids[k]
	}
	return nil
}
