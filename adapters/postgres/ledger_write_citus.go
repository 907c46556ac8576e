package postgres

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
)

// On Citus a batch's write is not the one statement writeBufferedSQL: its postings read the
// sequence values the transfers' insert returns, and Citus runs such a statement through the
// coordinator with the data-modifying step's result sent to every worker, so a silent worker
// held up the COMMIT of another worker's tenants. Here the transfers get their sequence values
// first (one query on the coordinator, which holds the sequence), and every statement that
// follows names one home's rows only, so Citus sends it to that home's shard alone. The
// inserts are multi-row VALUES statements (ledger_values_citus.go): an INSERT ... SELECT from
// unnest ran through the coordinator and made every unit commit with two-phase commit.

// nextSequencesSQL takes n values of the transfers' sequence, in order.
const nextSequencesSQL = `SELECT nextval('ledger_transfers_sequence_seq') FROM generate_series(1, $1::int)`

// citusBalancesSQL sets one home's touched balances to their last posting's balance-after.
const citusBalancesSQL = `
UPDATE ledger_balances bl SET posted = u.posted, pending_debits = u.pending_debits,
    pending_credits = u.pending_credits, last_transfer_at = u.at
FROM unnest($1::text[], $2::int8[], $3::int8[], $4::int8[], $5::timestamptz[])
    AS u (account_id, posted, pending_debits, pending_credits, at)
WHERE bl.home_tenant_id = $6::text AND bl.account_id = u.account_id`

// citusLinkSQL links the batch's transfers to their chains (the function's statements each
// name one chain bucket's key).
const citusLinkSQL = `SELECT ledger_link_batch($1::text[], $2::text[], $3::text[], $4::bytea[])`

// writeBufferedCitus writes ts as writeBuffered does, in statements that each reach one shard.
// The sequence query runs at once (carrying the statements waiting on the connection); the
// writes are marked as marker says (deferred with the COMMIT in a batch).
func writeBufferedCitus(ctx context.Context, q txQuerier, ts []bufferedTransfer, marker []any) error {
	exec := func(sql string, args ...any) error {
		_, err := q.ExecContext(ctx, sql, append(append([]any(nil), marker...), args...)...)
		return ledgerError("write batch", err)
	}
	seqs, err := nextSequences(ctx, q, len(ts))
	if err != nil {
		return err
	}
	for _, h := range transferHomes(ts) {
		if err := citusTransfersInsert.exec(h, citusTransferRows(ts, seqs, h), exec); err != nil {
			return err
		}
	}
	if err := writeHomesCitus(citusPostingsOf(ts, seqs), exec); err != nil {
		return err
	}
	n := len(ts)
	envs, homes, ids, canonical := make([]string, n), make([]string, n), make([]string, n), make([][]byte, n)
	for i, t := range ts {
		envs[i], homes[i], ids[i], canonical[i] = t.row.environment, t.row.home, t.row.id, t.row.canonical
	}
	return exec(citusLinkSQL, envs, homes, ids, canonical)
}

// Citus routes a statement whose shard is chosen by a parameter (the home) only when it plans
// it with the parameter's value. PostgreSQL switches a prepared statement to its generic plan
// after five executions on a connection, and Citus's generic plan of the balance update (an
// UPDATE joined to unnest) asks every shard: on a connection refusing multi-shard statements
// the sixth single write failed, and on the service's a silent worker would hold it up. So a
// single write on Citus plans with its values, set for it alone (the SETs travel with the next
// statement, no round trip of their own). A batch's write does not need it: run eight times
// in turn on connections refusing multi-shard statements it stays on one shard
// (TestCitus_BatchWriteRoutesToOneShard).
const (
	citusCustomPlansSQL  = "SET LOCAL plan_cache_mode = force_custom_plan"
	citusDefaultPlansSQL = "SET LOCAL plan_cache_mode = DEFAULT"
)

// writeHomesCitus inserts each home's postings, then sets each home's touched balances.
func writeHomesCitus(w citusPostings, exec func(sql string, args ...any) error) error {
	for _, h := range w.homes {
		if err := citusPostingsInsert.exec(h, w.postingRows(h), exec); err != nil {
			return err
		}
	}
	for _, h := range w.homes {
		if args := w.balanceArgs(h); args != nil {
			if err := exec(citusBalancesSQL, args...); err != nil {
				return err
			}
		}
	}
	return nil
}

// nextSequences takes n sequence values, ascending: the transfers' serial order.
func nextSequences(ctx context.Context, q txQuerier, n int) ([]int64, error) {
	rows, err := q.QueryContext(ctx, nextSequencesSQL, withPending{}, n)
	if err != nil {
		return nil, ledgerError("write batch", err)
	}
	defer rows.Close()
	seqs := make([]int64, 0, n)
	for rows.Next() {
		var s int64
		if err := rows.Scan(&s); err != nil {
			return nil, ledgerError("write batch", err)
		}
		seqs = append(seqs, s)
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	return seqs, ledgerError("write batch", rows.Err())
}

// transferHomes lists the transfers' homes in their first transfer's order.
func transferHomes(ts []bufferedTransfer) []string {
	seen := map[string]bool{}
	var homes []string
	for _, t := range ts {
		if !seen[t.row.home] {
			seen[t.row.home] = true
			homes = append(homes, t.row.home)
		}
	}
	return homes
}

// citusTransferRows lays out home h's transfers as rows of citusTransfersInsert.
func citusTransferRows(ts []bufferedTransfer, seqs []int64, h string) [][]any {
	var rows [][]any
	for i, t := range ts {
		r := t.row
		if r.home != h {
			continue
		}
		a, m := postingArrays(t.postings)
		rows = append(rows, []any{r.id, r.environment, r.reference, r.typ, r.asset, r.pendingID, r.reversedID,
			r.amount, r.expiresAt, r.metadata, r.createdAt, r.status, r.canonical, a, m, seqs[i]})
	}
	return rows
}

// citusPostings is a batch's postings and last balances, each with its account's home.
type citusPostings struct {
	homes    []string // the accounts' homes, in their first posting's order
	postings []citusPosting
	last     map[string]int // an account's last posting (an index into postings)
	order    []string       // the accounts in their first posting's order
}

type citusPosting struct {
	bufferedPosting
	transferID, transferHome string
	seq                      int64
	at                       time.Time
}

func citusPostingsOf(ts []bufferedTransfer, seqs []int64) citusPostings {
	w := citusPostings{last: map[string]int{}}
	seen := map[string]bool{}
	for i, t := range ts {
		for _, p := range t.postings {
			if !seen[p.home] {
				seen[p.home] = true
				w.homes = append(w.homes, p.home)
			}
			if _, ok := w.last[p.accountID]; !ok {
				w.order = append(w.order, p.accountID)
			}
			w.last[p.accountID] = len(w.postings)
			w.postings = append(w.postings, citusPosting{p, t.row.id, t.row.home, seqs[i], t.row.createdAt})
		}
	}
	return w
}

// postingRows lays out the postings on home h as rows of citusPostingsInsert.
func (w citusPostings) postingRows(h string) [][]any {
	var rows [][]any
	for _, p := range w.postings {
		if p.home != h {
			continue
		}
		rows = append(rows, []any{p.transferID, p.accountID, p.seq, p.at, p.amount, p.delta.Posted,
			p.delta.PendingDebits, p.delta.PendingCredits, p.after.Posted, p.after.PendingDebits,
			p.after.PendingCredits, p.transferHome})
	}
	return rows
}

// balanceArgs lays out the arguments of citusBalancesSQL for the accounts of home h (nil: none).
func (w citusPostings) balanceArgs(h string) []any {
	var ids []string
	var bp, bd, bc []int64
	var at []time.Time
	for _, id := range w.order {
		p := w.postings[w.last[id]]
		if p.home != h {
			continue
		}
		ids, at = append(ids, id), append(at, p.at)
		bp, bd, bc = append(bp, p.after.Posted), append(bd, p.after.PendingDebits), append(bc, p.after.PendingCredits)
	}
	if ids == nil {
		return nil
	}
	return []any{ids, bp, bd, bc, at, h}
}

// A transfer written alone (a unit outside a batch, or one naming a target) takes the same
// shape on Citus: writeTransferSQL's postings read the sequence its transfer's insert returns
// in the same statement, which Citus runs through the coordinator with every shard asked, so a
// transfer over two homes (a sweep) was refused on connections that refuse multi-shard
// statements and a silent worker could hold up another worker's tenant.

// citusTransferSQL inserts one transfer with its sequence value already taken. A twin that
// committed the same reference (or id) first makes it insert nothing, as writeTransferSQL's t.
// Its chain link is appended at commit by the ledger_transfers_link trigger, as on PostgreSQL.
const citusTransferSQL = `
INSERT INTO ledger_transfers (id, environment, reference, type, asset, pending_id, reversed_id, amount,
    expires_at, metadata, created_at, status, canonical, posting_accounts, posting_amounts,
    home_tenant_id, sequence) OVERRIDING SYSTEM VALUE
VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::int8, $9::timestamptz,
    $10::jsonb, $11::timestamptz, $12::text, $13::bytea, $14::text[], $15::int8[], $16::text, $17::int8)
ON CONFLICT DO NOTHING
RETURNING id`

// citusResolveTargetSQL records the target's new state in the target's home.
const citusResolveTargetSQL = `
UPDATE ledger_transfers SET status = $1::text, resolved_by = $2::text WHERE id = $3::text AND home_tenant_id = $4::text`

// writeTransferCitus writes an accepted transfer as writeTransferSQL does, in statements that each
// name one home (planned with their values): the sequence first, then the transfer in its home (nothing more when a twin
// holds the reference: written is false), each home's postings and balances, and the target's
// new state in its home.
func writeTransferCitus(ctx context.Context, q txQuerier, res ledger.Result, deltas []ledger.Delta, accounts map[string]ledger.Account) (bool, error) {
	bt, err := bufferedOf(res, deltas, accounts)
	if err != nil {
		return false, err
	}
	exec := func(query string, args ...any) error {
		_, err := q.ExecContext(ctx, query, args...)
		return ledgerError("write transfer", err)
	}
	// The plan mode's SETs wait on the connection for the next statement; the writes answer at
	// once, as writeTransferSQL does, so a failure is the write's own.
	setPlans := func(query string) error {
		_, err := q.ExecContext(ctx, query, deferExec{})
		return ledgerError("write transfer", err)
	}
	if err := setPlans(citusCustomPlansSQL); err != nil {
		return false, err
	}
	seqs, err := nextSequences(ctx, q, 1)
	if err != nil {
		return false, err
	}
	row := bt.row
	pAccounts, pAmounts := postingArrays(bt.postings)
	var id string
	err = q.QueryRowContext(ctx, citusTransferSQL, row.id, row.environment, row.reference, row.typ, row.asset,
		row.pendingID, row.reversedID, row.amount, row.expiresAt, row.metadata, row.createdAt, row.status,
		row.canonical, pAccounts, pAmounts, row.home, seqs[0]).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return false, setPlans(citusDefaultPlansSQL)
	}
	if err != nil {
		return false, ledgerError("write transfer", err)
	}
	if err := writeHomesCitus(citusPostingsOf([]bufferedTransfer{bt}, seqs), exec); err != nil {
		return false, err
	}
	if t := res.Target; t != nil {
		home := ledger.HomeOf(t.Transfer, accounts)
		if err := exec(citusResolveTargetSQL, string(t.State.Status), row.id, t.Transfer.ID, home); err != nil {
			return false, err
		}
	}
	return true, setPlans(citusDefaultPlansSQL)
}

// bufferedOf lays out an accepted transfer as a batch buffers it: its row and its postings,
// each with its account's home, change and balance after.
func bufferedOf(res ledger.Result, deltas []ledger.Delta, accounts map[string]ledger.Account) (bufferedTransfer, error) {
	t := res.Transfer
	if len(deltas) != len(t.Postings) {
		return bufferedTransfer{}, core.E(core.CodeInternal, "ledger: %s has %d postings and %d deltas", t.ID, len(t.Postings), len(deltas))
	}
	row, err := transferRowOf(res)
	if err != nil {
		return bufferedTransfer{}, err
	}
	bt := bufferedTransfer{row: row, postings: make([]bufferedPosting, len(t.Postings))}
	for i, p := range t.Postings {
		if deltas[i].AccountID != p.AccountID {
			return bufferedTransfer{}, core.E(core.CodeInternal, "ledger: deltas of %s are not in posting order", t.ID)
		}
		bt.postings[i] = bufferedPosting{accountID: p.AccountID, home: accounts[p.AccountID].Home(), amount: p.Amount,
			delta: deltas[i], after: res.Balances[p.AccountID]}
	}
	return bt, nil
}
