package postgres

import (
	"context"
	"database/sql"
	"sync/atomic"
	"time"
)

// Card approvals written with the batch. Inside a pipeline batch (not on Citus), a card
// authorization's approval (CreateSpendingAuthorization: the authorization, its event and its
// card's spend) is not sent as a statement of its own: the unit holds it in its ledger layer,
// hands it to the batch when it ends well (dropped with the rest of the unit when it fails),
// and one statement writes every approval the batch holds. With the hold buffered and the
// record held, an authorization whose card the batch's claim read sends no statement of its
// own, and a batch of them writes its approvals once instead of once per unit.
//
// What keeps it right:
//   - The approval and its effects still commit together, and nothing is answered before the
//     batch's COMMIT: the write travels with the COMMIT, and its failure fails the COMMIT, so
//     every unit runs again alone, where the failure is its own unit's.
//   - Nothing of the batch reads around a held approval: before any statement of a unit
//     (enterSQLFor: the Bun hook, the raw queriers, TxFromContext) and before the batch's
//     claim, the held approvals are written first, so a later unit's card read, spend change,
//     authorization lookup or event read sees them as it saw the statement before. A unit
//     that writes them inside its savepoint and is then rolled back gives the batch's ones
//     back (they wait again), as the ledger's buffered rows are given back.
//   - One card once per write: a second approval on a card already held in the batch is not
//     held but sent as before, after the held ones (the spend upsert updates a row once per
//     statement). The batch's claim reads a card for the first unit naming it only, and the
//     approval marks its card touched (touchCard), so a later decision on the card reads it
//     itself, which writes the held approvals first.

// heldApproval is an approval's row values, its event's, and its event's stored data.
type heldApproval struct {
	id, tenant, env, cardID string
	amount                  int64
	mcc, merchant           string
	counterparty            *string
	day, week, month        string
	hold, policy, decision  *string
	at                      time.Time
	eventID, eventType      string
	data                    string
}

// holdApproval keeps h for the batch's write, in u's turn. It is false when u cannot hold it:
// on Citus, or when an approval on h's card is held already (the caller then sends its own
// statement, after the held ones).
func (u *unitLedger) holdApproval(h heldApproval) bool {
	if u == nil || u.m.b.p.citus {
		return false
	}
	u.m.enterSQL() // its turn: every unit before it has ended and handed over its approvals
	for _, list := range [][]heldApproval{u.approvals, u.batch.approvals} {
		for _, held := range list {
			if held.tenant == h.tenant && held.cardID == h.cardID {
				return false
			}
		}
	}
	u.approvals = append(u.approvals, h)
	return true
}

// writeHeldApprovals writes the batch's and the unit's held approvals inside the unit's
// savepoint, before the unit's statement; the batch's come back to it if the unit is rolled
// back (discard, restore). A failure surfaces from the statement that carries the write, and
// fails the batch (driver.go).
func (u *unitLedger) writeHeldApprovals() {
	if len(u.batch.approvals)+len(u.approvals) == 0 {
		return
	}
	held := append(append([]heldApproval(nil), u.batch.approvals...), u.approvals...)
	b := u.m.b
	if err := writeApprovals(b.bc.ctx, b.tx.Tx, held, &b.p.stats.approvalWrites); err != nil {
		b.poison(err)
		return
	}
	u.flushedApprovals = append(u.flushedApprovals, u.batch.approvals...)
	u.batch.approvals, u.approvals = nil, nil
}

// writeApprovalsSQL inserts approvals, their events and adds each to its card's spend row, as
// createSpendingAuthorizationSQL does for one ($1–$18 its arguments as arrays, in its order).
var writeApprovalsSQL = `WITH a AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[], $6::text[], $7::text[], $8::text[],
        $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::timestamptz[], $16::text[],
        $17::text[], $18::text[])
        AS x (id, tenant_id, environment, card_id, amount, mcc, merchant, counterparty, day_key, week_key, month_key,
            hold, policy, decision, at, event_id, event_type, data)
), created AS (
    INSERT INTO card_authorizations (id, tenant_id, environment, card_id, amount_base_units, captured_base_units,
        mcc, merchant_name, counterparty, status, decline_reason, reversal_reason, day_key, week_key, month_key,
        hold_transfer_id, policy_id, policy_decision_id, settlement_status, settlement_tx_hash, settlement_error,
        created_at, updated_at)
    SELECT id, tenant_id, environment, card_id, amount, 0, mcc, merchant, counterparty, 'APPROVED', NULL, NULL,
        day_key, week_key, month_key, hold, policy, decision, NULL, NULL, NULL, at, at FROM a
), announced AS (
    INSERT INTO events (id, tenant_id, environment, type, resource_id, data, created_at, dispatched_at)
    SELECT a.event_id, a.tenant_id, a.environment, a.event_type, a.id, a.data::jsonb, a.at,
        CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints p WHERE p.tenant_id = a.tenant_id
            AND p.environment = a.environment AND p.deleted_at IS NULL AND p.enabled) THEN NULL ELSE now() END
    FROM a
)
INSERT INTO card_spend AS s (tenant_id, card_id, day_key, spent_daily, week_key, spent_weekly, month_key, spent_monthly)
SELECT tenant_id, card_id, day_key, amount, week_key, amount, month_key, amount FROM a
` + spendOnConflict

// writeApprovals sends held in one statement that waits on the connection and travels with the
// next statement or the COMMIT (driver.go); nothing when held is empty.
func writeApprovals(ctx context.Context, q *sql.Tx, held []heldApproval, count *atomic.Int64) error {
	if len(held) == 0 {
		return nil
	}
	n := len(held)
	var (
		ids, tenants, envs, cards, mccs, merchants  = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		days, weeks, months, eventIDs, types, datas = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		counterparties, holds, policies, decisions  = make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n)
		amounts                                     = make([]int64, n)
		ats                                         = make([]time.Time, n)
	)
	for i, h := range held {
		ids[i], tenants[i], envs[i], cards[i], amounts[i], mccs[i], merchants[i] = h.id, h.tenant, h.env, h.cardID, h.amount, h.mcc, h.merchant
		counterparties[i], days[i], weeks[i], months[i] = h.counterparty, h.day, h.week, h.month
		holds[i], policies[i], decisions[i], ats[i] = h.hold, h.policy, h.decision, h.at
		eventIDs[i], types[i], datas[i] = h.eventID, h.eventType, h.data
	}
	count.Add(1)
	// Its generic plan, set for it alone: its plan does not depend on its arrays, and on the
	// default setting PostgreSQL planned it again on about half its calls (docs/performance.md).
	// The three wait on the connection and travel together.
	if _, err := q.ExecContext(ctx, "SET LOCAL plan_cache_mode = force_generic_plan", deferExec{}); err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, writeApprovalsSQL, deferExec{}, ids, tenants, envs, cards, amounts, mccs, merchants,
		counterparties, days, weeks, months, holds, policies, decisions, ats, eventIDs, types, datas); err != nil {
		return err
	}
	_, err := q.ExecContext(ctx, "SET LOCAL plan_cache_mode = DEFAULT", deferExec{})
	return err
}
