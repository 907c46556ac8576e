package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"corridor/core"
	"corridor/ledger"
)

// The ledger inside a pipeline batch (pipeline.go). The batch locks each balance row once and
// keeps its balance in memory; a transfer is decided against those balances, inserts its
// transfer row at once (the row claims its reference: a concurrent twin in another batch waits
// on it, and a recorded one makes the insert do nothing), and buffers its postings and
// balances-after. Before COMMIT the batch writes every buffered posting and one update per
// touched account in one statement, so a hot account is written once per batch, not once per
// transfer. The chain link is appended at commit by the trigger on ledger_transfers, as
// without the pipeline.
//
// A unit keeps its own layer (balances it read or changed, postings it buffered) and merges it
// into the batch when its savepoint is released; a unit rolled back drops its layer. Anything
// that reads the ledger tables inside a batch (a replay, Transfer, Balances, the reports) or
// writes them directly (a transfer with a target, a nested unit of work) writes the buffered
// rows first; after a direct write the unit reads its balances again (the rows stay locked by
// the batch, so that costs a query, never a wait). Buffered rows the batch's earlier units
// wrote from inside a unit that is then rolled back go back into the batch's buffer.

// batchLedger is the ledger state of a batch after its released units.
type batchLedger struct {
	known   map[string]knownBalance // balance rows this batch locked, as the batch left them
	pending []bufferedPosting       // not yet written
}

type knownBalance struct {
	balance ledger.Balance
	at      time.Time // transfers on the account are never created before this
}

type bufferedPosting struct {
	transferID, accountID string
	sequence              int64
	at                    time.Time
	amount                int64
	delta                 ledger.Delta
	after                 ledger.Balance
}

func newBatchLedger() *batchLedger { return &batchLedger{known: map[string]knownBalance{}} }

// unitLedger is one unit's layer over its batch.
type unitLedger struct {
	batch         *batchLedger
	q             txQuerier
	known         map[string]knownBalance
	forget        bool // the batch's known balances are stale for this unit (a direct write ran)
	pending       []bufferedPosting
	flushedParent []bufferedPosting // the batch's rows this unit wrote; back to the batch on rollback
	err           error             // a write the unit could not report (LedgerReports' flush)
	lockConflict  bool              // a statement of the unit would have waited on a lock
}

func (b *batchLedger) unit(q *sql.Tx) *unitLedger {
	return &unitLedger{batch: b, q: txQuerier{q}, known: map[string]knownBalance{}}
}

func (u *unitLedger) get(id string) (knownBalance, bool) {
	if k, ok := u.known[id]; ok {
		return k, true
	}
	if u.forget {
		return knownBalance{}, false
	}
	k, ok := u.batch.known[id]
	return k, ok
}

// merge folds a released unit into its batch.
func (u *unitLedger) merge() {
	if u.forget {
		u.batch.known = make(map[string]knownBalance, len(u.known))
	}
	for id, k := range u.known {
		u.batch.known[id] = k
	}
	u.batch.pending = append(u.batch.pending, u.pending...)
}

// discard drops a rolled-back unit's layer and gives the batch back the rows the unit wrote
// for it.
func (u *unitLedger) discard() {
	if len(u.flushedParent) > 0 {
		u.batch.pending = append(u.flushedParent, u.batch.pending...)
	}
	u.known, u.pending, u.flushedParent = map[string]knownBalance{}, nil, nil
}

// flush writes the batch's and the unit's buffered rows inside the unit's savepoint.
func (u *unitLedger) flush(ctx context.Context) error {
	rows := append(append([]bufferedPosting(nil), u.batch.pending...), u.pending...)
	if err := writeBuffered(ctx, u.q, rows); err != nil {
		u.noteLock(err)
		return err
	}
	u.flushedParent = append(u.flushedParent, u.batch.pending...)
	u.batch.pending, u.pending = nil, nil
	return nil
}

// flushForDirect writes the buffered rows before a direct write and forgets the balances
// the direct write may change.
func (u *unitLedger) flushForDirect(ctx context.Context) error {
	if err := u.flush(ctx); err != nil {
		return err
	}
	u.forget, u.known = true, map[string]knownBalance{}
	return nil
}

func (u *unitLedger) noteLock(err error) {
	if lockNotAvailable(err) {
		u.lockConflict = true
	}
}

// flush writes the batch's buffered rows before its COMMIT.
func (b *batchLedger) flush(ctx context.Context, q *sql.Tx) error {
	err := writeBuffered(ctx, txQuerier{q}, b.pending)
	if err == nil {
		b.pending = nil
	}
	return err
}

const writeBufferedSQL = `
WITH p AS (
    INSERT INTO ledger_postings (transfer_id, account_id, sequence, created_at, amount, posted_delta,
        pending_debits_delta, pending_credits_delta, posted_after, pending_debits_after, pending_credits_after)
    SELECT * FROM unnest($1::text[], $2::text[], $3::int8[], $4::timestamptz[], $5::int8[], $6::int8[],
        $7::int8[], $8::int8[], $9::int8[], $10::int8[], $11::int8[])
)
UPDATE ledger_balances bl SET posted = u.posted, pending_debits = u.pending_debits,
    pending_credits = u.pending_credits, last_transfer_at = u.at
FROM unnest($12::text[], $13::int8[], $14::int8[], $15::int8[], $16::timestamptz[])
    AS u(account_id, posted, pending_debits, pending_credits, at)
WHERE bl.account_id = u.account_id`

// writeBuffered inserts rows and sets each touched account's balance to its last row's
// balance-after, in one statement.
func writeBuffered(ctx context.Context, q txQuerier, rows []bufferedPosting) error {
	if len(rows) == 0 {
		return nil
	}
	n := len(rows)
	transfers, accounts := make([]string, n), make([]string, n)
	sequences, amounts := make([]int64, n), make([]int64, n)
	ats := make([]time.Time, n)
	dp, dd, dc, ap, ad, ac := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	last := map[string]int{}
	var order []string
	for i, r := range rows {
		transfers[i], accounts[i], sequences[i], ats[i], amounts[i] = r.transferID, r.accountID, r.sequence, r.at, r.amount
		dp[i], dd[i], dc[i] = r.delta.Posted, r.delta.PendingDebits, r.delta.PendingCredits
		ap[i], ad[i], ac[i] = r.after.Posted, r.after.PendingDebits, r.after.PendingCredits
		if _, ok := last[r.accountID]; !ok {
			order = append(order, r.accountID)
		}
		last[r.accountID] = i
	}
	ids := make([]string, len(order))
	bp, bd, bc := make([]int64, len(order)), make([]int64, len(order)), make([]int64, len(order))
	bat := make([]time.Time, len(order))
	for j, id := range order {
		r := rows[last[id]]
		ids[j], bp[j], bd[j], bc[j], bat[j] = id, r.after.Posted, r.after.PendingDebits, r.after.PendingCredits, r.at
	}
	_, err := q.ExecContext(ctx, writeBufferedSQL, transfers, accounts, sequences, ats, amounts, dp, dd, dc, ap, ad, ac,
		ids, bp, bd, bc, bat)
	return ledgerError("write batch", err)
}

const insertTransferSQL = `
INSERT INTO ledger_transfers (id, environment, reference, type, asset, pending_id, reversed_id, amount,
    expires_at, metadata, created_at, status, canonical)
VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::int8, $9::timestamptz,
    $10::jsonb, $11::timestamptz, $12::text, $13::bytea)
ON CONFLICT (environment, reference) DO NOTHING
RETURNING sequence`

// in binds the repository to a unit's layer of a batch (nil: no batch).
func (r ledgerRepo) in(u *unitLedger) ledgerRepo {
	r.u = u
	return r
}

// reading binds the reports to a unit of a batch: they read the tables, so the buffered rows
// are written first (an error fails the unit).
func (r ledgerRepo) reading(u *unitLedger) ledgerRepo {
	if u != nil && u.err == nil {
		u.err = u.flush(context.Background())
	}
	return r
}

// postBatched is Post inside a batch.
func (r ledgerRepo) postBatched(ctx context.Context, now time.Time, spec ledger.TransferSpec) (ledger.Transfer, bool, error) {
	if spec.TargetID() != "" {
		// Rare on a hot path (holds posted or voided, reversals): written directly.
		if err := r.u.flushForDirect(ctx); err != nil {
			return ledger.Transfer{}, false, err
		}
		t, replayed, err := r.in(nil).Post(ctx, now, spec)
		if err != nil {
			r.u.noteLock(err)
		}
		return t, replayed, err
	}
	if err := spec.Validate(); err != nil {
		return ledger.Transfer{}, false, err
	}
	if err := storableMetadata(spec.Metadata); err != nil {
		return ledger.Transfer{}, false, err
	}
	in := ledger.ApplyInput{Spec: spec, TransferID: core.NewID(core.PrefixTransfer), Now: now.UTC().Truncate(time.Microsecond),
		Accounts: map[string]ledger.Account{}, Balances: map[string]ledger.Balance{}}
	var missing []string
	for _, id := range ledger.InvolvedAccountIDs(spec, nil) {
		if k, ok := r.u.get(id); ok {
			in.Balances[id] = k.balance
			in.Now = latest(in.Now, k.at)
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		known := len(in.Balances)
		recorded, err := r.lockBalances(ctx, spec, missing, &in)
		if err != nil {
			r.u.noteLock(err)
			return ledger.Transfer{}, false, err
		}
		if recorded {
			return r.replayInBatch(ctx, spec, true)
		}
		for _, id := range missing {
			if b, ok := in.Balances[id]; ok {
				r.u.known[id] = knownBalance{balance: b, at: in.Now}
			}
		}
		if len(in.Balances) == known { // nothing was locked, so nothing looked the reference up
			if t, found, err := r.replayInBatch(ctx, spec, false); found || err != nil {
				return t, found, err
			}
		}
	} else if err := r.loadAccounts(ctx, &in); err != nil {
		return ledger.Transfer{}, false, err
	}
	res, err := ledger.Apply(in)
	if err != nil {
		// A twin may be recorded (committed by another batch, or by this one): its replay is
		// the answer, not this refusal.
		if t, found, rerr := r.replayInBatch(ctx, spec, false); found || rerr != nil {
			return t, found && rerr == nil, rerr
		}
		return ledger.Transfer{}, false, err
	}
	deltas, err := ledger.Effects(res.Transfer, nil)
	if err != nil {
		return ledger.Transfer{}, false, err
	}
	args, err := writeArgs(res, deltas)
	if err != nil {
		return ledger.Transfer{}, false, err
	}
	var sequence int64
	err = r.q.QueryRowContext(ctx, insertTransferSQL, args[:13]...).Scan(&sequence)
	if errors.Is(err, sql.ErrNoRows) { // the reference is recorded
		return r.replayInBatch(ctx, spec, true)
	}
	if err != nil {
		r.u.noteLock(err)
		return ledger.Transfer{}, false, ledgerError("write transfer", err)
	}
	t := res.Transfer
	for i, p := range t.Postings {
		after := res.Balances[p.AccountID]
		r.u.pending = append(r.u.pending, bufferedPosting{transferID: t.ID, accountID: p.AccountID, sequence: sequence,
			at: t.CreatedAt, amount: p.Amount, delta: deltas[i], after: after})
		r.u.known[p.AccountID] = knownBalance{balance: after, at: t.CreatedAt}
	}
	return t, false, nil
}

// replayInBatch writes the buffered rows (the recorded transfer may be one of them) and
// answers with the recorded transfer; must means it is known to be recorded.
func (r ledgerRepo) replayInBatch(ctx context.Context, spec ledger.TransferSpec, must bool) (ledger.Transfer, bool, error) {
	if err := r.u.flush(ctx); err != nil {
		return ledger.Transfer{}, false, err
	}
	if must {
		return r.mustReplay(ctx, spec)
	}
	return r.replay(ctx, spec)
}
