package postgres

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
)

// LedgerVerification is what `corridor ledger verify` found.
type LedgerVerification struct {
	Transfers int64
	Accounts  int
	Chains    int          // chain stripes walked: environments × ChainStripes
	Breaks    []ChainBreak // the first break of every broken stripe, earliest sequence first
	Problems  []string     // history, balance, state and trial-balance discrepancies
	// MoreProblems counts problems found beyond the first maxProblems.
	MoreProblems int
}

// ChainBreak names the first transfer of a stripe whose recorded hash does not match.
type ChainBreak struct {
	Environment core.Environment
	Stripe      int
	Position    int64
	TransferID  string
	Sequence    int64
	Reason      string
}

// OK reports a ledger whose chains, history, balances, states and trial balances all agree.
func (v LedgerVerification) OK() bool { return len(v.Breaks) == 0 && len(v.Problems) == 0 }

// FirstBreak is the earliest (by sequence) broken transfer, if any.
func (v LedgerVerification) FirstBreak() (ChainBreak, bool) {
	if len(v.Breaks) == 0 {
		return ChainBreak{}, false
	}
	return v.Breaks[0], true
}

const (
	maxProblems     = 100
	verifyBatchSize = 1000
	verifyChainsSQL = `SELECT environment, stripe, position, hash FROM ledger_chain_heads ORDER BY environment, stripe`
	// verifyHeadsSQL reads every head with its bucket's distribution key (migration 000077),
	// so that each stripe's walk names it and reads one shard group on a distributed ledger.
	verifyHeadsSQL = `SELECT environment, stripe, position, hash, chain_key FROM ledger_chain_heads ORDER BY environment, stripe`
	// verifyLinksSQL reads a batch of one stripe's links, no further than the head read first:
	// links are only appended, so a walk bounded by its head reads the same rows on any later
	// snapshot (a distributed database's nodes do not share one).
	verifyLinksSQL = `SELECT transfer_id, position, hash FROM ledger_chain
WHERE chain_key = $1 AND environment = $2 AND stripe = $3 AND position > $4 AND position <= $5
ORDER BY position LIMIT $6`
	// verifyLinkedSQL reads the transfers a batch of links names. Read apart from the links: on
	// a distributed ledger the two tables are distributed by different columns, which Citus
	// does not join.
	verifyLinkedSQL = `SELECT ` + transferColumns + ` FROM ledger_transfers t WHERE t.id = ANY($1::text[])`
	// verifyPlacementSQL finds transfers that are not in exactly one stripe, and transfers in a
	// bucket's stripe other than their home tenant's bucket (a stripe must lie in one shard
	// group), or filed under another bucket's key than their stripe's. The links are counted
	// per transfer first (a multi-shard aggregate on Citus), then joined to the transfers.
	// $1 = ChainStripesBefore, $2 = ChainLanes.
	verifyPlacementSQL = `WITH c AS MATERIALIZED (
    SELECT transfer_id, count(*) AS links, min(stripe) AS stripe, bool_or(chain_key <> ledger_chain_stripe_key(stripe)) AS miskeyed
    FROM ledger_chain GROUP BY transfer_id)
SELECT t.id, t.home_tenant_id, coalesce(c.links, 0),
    coalesce(c.miskeyed OR (c.stripe >= $1 AND (c.stripe - $1) / $2 <> ledger_chain_bucket(t.home_tenant_id)), false)
FROM ledger_transfers t LEFT JOIN c ON c.transfer_id = t.id
WHERE c.links IS DISTINCT FROM 1 OR c.miskeyed OR (c.stripe >= $1 AND (c.stripe - $1) / $2 <> ledger_chain_bucket(t.home_tenant_id))
ORDER BY t.sequence LIMIT 10`
	// verifyHistorySQL reads each transfer with the history rows its arrays name, found by the
	// history's primary key (account_id, created_at, sequence) from the transfer's own columns.
	// A leg without its history row reads as found = false (and zeros).
	verifyHistorySQL = `SELECT ` + transferColumns + `, x.pd, x.pdd, x.pcd, x.pa, x.pda, x.pca, x.amount, x.found
FROM ledger_transfers t, LATERAL (
    SELECT array_agg(coalesce(p.posted_delta, 0) ORDER BY l.n) AS pd,
           array_agg(coalesce(p.pending_debits_delta, 0) ORDER BY l.n) AS pdd,
           array_agg(coalesce(p.pending_credits_delta, 0) ORDER BY l.n) AS pcd,
           array_agg(coalesce(p.posted_after, 0) ORDER BY l.n) AS pa,
           array_agg(coalesce(p.pending_debits_after, 0) ORDER BY l.n) AS pda,
           array_agg(coalesce(p.pending_credits_after, 0) ORDER BY l.n) AS pca,
           array_agg(coalesce(p.amount, 0) ORDER BY l.n) AS amount,
           array_agg(p.transfer_id IS NOT DISTINCT FROM t.id ORDER BY l.n) AS found
    FROM unnest(t.posting_accounts) WITH ORDINALITY AS l (account_id, n)
    LEFT JOIN ledger_postings p
        ON p.account_id = l.account_id AND p.created_at = t.created_at AND p.sequence = t.sequence) x
ORDER BY t.sequence`
	// verifyStrayHistorySQL finds history rows that no transfer's arrays list (their transfer is
	// missing, or it does not name their account, or it has another created_at or sequence),
	// and rows whose account does not exist: what the postings' foreign keys guarded before
	// migration 000050.
	verifyStrayHistorySQL = `SELECT * FROM (
    SELECT p.account_id, p.sequence, p.transfer_id, 'account' AS missing FROM ledger_postings p
    WHERE NOT EXISTS (SELECT 1 FROM ledger_accounts a WHERE a.id = p.account_id)
    UNION ALL
    SELECT p.account_id, p.sequence, p.transfer_id, 'transfer' FROM ledger_postings p
    WHERE NOT EXISTS (SELECT 1 FROM ledger_transfers t WHERE t.id = p.transfer_id AND t.sequence = p.sequence
        AND t.created_at = p.created_at AND p.account_id = ANY (t.posting_accounts))
) s ORDER BY sequence, account_id, missing LIMIT $1`
)

// VerifyLedger checks the whole ledger in one read-only snapshot:
//
//  1. every chain stripe, in position order, with ledger.VerifyChain: positions have no gaps
//     and each recorded hash is ledger.ChainHash of the previous one and the transfer, as its
//     columns and postings read now; the head row matches the last link. Stripes are walked in
//     parallel (verifyWorkers transactions on the same snapshot): each lies in one shard group,
//     so on a distributed ledger each walk reads one group (by the stripe's chain key, up to
//     the head read first: on Citus the exported snapshot does not reach the workers, and links
//     are only appended). Then no link lies past its head, every transfer is in exactly one
//     stripe, and a bucket's stripe holds only transfers whose home tenant is in the bucket,
//     under its stripe's key;
//  2. the history, in sequence order: each posting's recorded balance change is what
//     ledger.Effects says the transfer does, and the recorded balance after it is the running
//     sum; holds are resolved at most once and transfer states match their resolutions;
//     every leg of a transfer's arrays has its history row with the same amount, and every
//     history row is listed by its transfer's arrays and has an account (migration 000050
//     dropped the foreign keys that guarded the last two);
//  3. every balance row equals its account's history, and the trial balance of every
//     environment and asset sums to zero.
//
// It streams transfers, holding only per-account balances and open holds in memory.
func VerifyLedger(ctx context.Context, db *bun.DB) (LedgerVerification, error) {
	tx, err := db.DB.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return LedgerVerification{}, err
	}
	defer func() { _ = tx.Rollback() }()
	v := &verifier{q: tx, citus: isCitus(ctx, db.DB), running: map[string]ledger.Balance{}, holds: map[string]ledger.Transfer{},
		claims: map[string]ledger.TransferState{}, resolved: map[string]ledger.TransferState{}}
	if err := v.chains(ctx, db.DB); err != nil {
		return v.out, err
	}
	if err := v.history(ctx); err != nil {
		return v.out, err
	}
	v.states()
	if err := v.balances(ctx); err != nil {
		return v.out, err
	}
	sort.Slice(v.out.Breaks, func(i, j int) bool { return v.out.Breaks[i].Sequence < v.out.Breaks[j].Sequence })
	return v.out, nil
}

type verifier struct {
	q        *sql.Tx
	citus    bool // the ledger's whole reads join on the coordinator (onCoordinator)
	out      LedgerVerification
	running  map[string]ledger.Balance       // per account, from the history
	holds    map[string]ledger.Transfer      // open holds, by id
	claims   map[string]ledger.TransferState // target id → the state its resolver implies
	resolved map[string]ledger.TransferState // stored states other than a transfer's initial one
}

func (v *verifier) problem(format string, args ...any) {
	if len(v.out.Problems) >= maxProblems {
		v.out.MoreProblems++
		return
	}
	v.out.Problems = append(v.out.Problems, fmt.Sprintf(format, args...))
}

type chainHead struct {
	env      string
	stripe   int
	position int64
	hash     []byte
	key      string // the bucket's distribution key (chain_key)
}

// verifyWorkers is how many stripes are walked at once, each on a connection of its own.
const verifyWorkers = 4

func (v *verifier) chains(ctx context.Context, db *sql.DB) error {
	rows, err := v.q.QueryContext(ctx, verifyHeadsSQL)
	if err != nil {
		return err
	}
	var heads []chainHead
	for rows.Next() {
		var h chainHead
		if err := rows.Scan(&h.env, &h.stripe, &h.position, &h.hash, &h.key); err != nil {
			rows.Close()
			return err
		}
		heads = append(heads, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	v.out.Chains = len(heads)
	breaks, err := walkStripes(ctx, db, v.q, heads)
	if err != nil {
		return err
	}
	v.out.Breaks = append(v.out.Breaks, breaks...)
	if err := v.beyondHeads(ctx); err != nil {
		return err
	}
	return v.placement(ctx, db)
}

// verifyBeyondHeadsSQL finds the stripes with links past their head. It joins each link to its
// head by the bucket key too, so on Citus it runs within each shard group, heads and links read
// together there.
const verifyBeyondHeadsSQL = `SELECT c.environment, c.stripe, h.position, min(c.position), count(*)
FROM ledger_chain c JOIN ledger_chain_heads h
    ON h.chain_key = c.chain_key AND h.environment = c.environment AND h.stripe = c.stripe
WHERE c.position > h.position GROUP BY c.environment, c.stripe, h.position ORDER BY 1, 2`

// beyondHeads reports links past their stripe's head: the walks stop at the head they read.
func (v *verifier) beyondHeads(ctx context.Context) error {
	rows, err := v.q.QueryContext(ctx, verifyBeyondHeadsSQL)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var b ChainBreak
		var env string
		var head, links int64
		if err := rows.Scan(&env, &b.Stripe, &head, &b.Position, &links); err != nil {
			return err
		}
		b.Environment, b.Sequence = core.Environment(env), 1<<63-1
		b.Reason = fmt.Sprintf("chain head says position %d, %d links lie beyond it", head, links)
		v.out.Breaks = append(v.out.Breaks, b)
	}
	return rows.Err()
}

// walkStripes walks every stripe, verifyWorkers at a time. Each worker reads in its own
// read-only transaction on the snapshot of tx (pg_export_snapshot), so the whole walk sees one
// instant as a single transaction would. A pool that cannot lend a second connection walks
// them in tx, one after the other.
func walkStripes(ctx context.Context, db *sql.DB, tx *sql.Tx, heads []chainHead) ([]ChainBreak, error) {
	workers := min(verifyWorkers, len(heads))
	if limit := db.Stats().MaxOpenConnections; limit > 0 {
		workers = min(workers, limit-1)
	}
	if workers < 2 {
		w := &verifier{q: tx}
		for _, h := range heads {
			if err := w.stripe(ctx, h); err != nil {
				return nil, err
			}
		}
		return w.out.Breaks, nil
	}
	var snapshot string
	if err := tx.QueryRowContext(ctx, `SELECT pg_export_snapshot()`).Scan(&snapshot); err != nil {
		return nil, err
	}
	work := make(chan chainHead)
	found := make([][]ChainBreak, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found[i], errs[i] = walkOnSnapshot(ctx, db, snapshot, work)
		}()
	}
	for _, h := range heads {
		work <- h
	}
	close(work)
	wg.Wait()
	var out []ChainBreak
	for i := range workers {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out = append(out, found[i]...)
	}
	return out, nil
}

// walkOnSnapshot walks the stripes it receives in a transaction on the exported snapshot. It
// drains work even after an error, so the sender never blocks.
func walkOnSnapshot(ctx context.Context, db *sql.DB, snapshot string, work <-chan chainHead) ([]ChainBreak, error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err == nil {
		defer func() { _ = tx.Rollback() }()
		_, err = tx.ExecContext(ctx, `SET TRANSACTION SNAPSHOT `+quoteLiteral(snapshot))
	}
	w := &verifier{q: tx}
	for h := range work {
		if err == nil {
			err = w.stripe(ctx, h)
		}
	}
	return w.out.Breaks, err
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// placement reports transfers that no chain covers (a link row deleted, or written with the
// link trigger disabled), transfers linked more than once, and transfers linked into the
// stripe of another bucket than their home tenant's.
func (v *verifier) placement(ctx context.Context, db *sql.DB) error {
	rows, err := v.q.QueryContext(ctx, onCoordinator(v.citus, verifyPlacementSQL), ChainStripesBefore, ChainLanes)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, home string
		var links int
		var misplaced bool
		if err := rows.Scan(&id, &home, &links, &misplaced); err != nil {
			return err
		}
		if links == 0 {
			if links, err = linksNow(ctx, db, id); err != nil {
				return err
			}
		}
		switch {
		case links == 0:
			v.problem("transfer %s is in no hash chain", id)
		case links > 1:
			v.problem("transfer %s is in %d hash chain positions, not exactly one", id, links)
		}
		if misplaced {
			v.problem("transfer %s (home %q) is linked in a stripe of another tenant bucket than its home's, or under another bucket's key", id, home)
		}
	}
	return rows.Err()
}

// linksNow counts a transfer's links again, outside the snapshot. On a distributed database the
// nodes' snapshots are not one instant: a transfer committed on one node may be read before its
// link, committed in the same transaction on another, becomes visible there. A link deleted
// stays deleted, so a transfer still without one is reported.
func linksNow(ctx context.Context, db *sql.DB, id string) (int, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM ledger_chain WHERE transfer_id = $1`, id).Scan(&n)
	return n, err
}

// stripe walks one chain in batches, carrying the last verified hash from batch to batch.
func (v *verifier) stripe(ctx context.Context, head chainHead) error {
	var prev []byte
	var position int64
	for {
		batch, err := v.stripeBatch(ctx, head, position)
		if err != nil {
			return err
		}
		if len(batch) == 0 {
			break
		}
		for _, e := range batch {
			if e.missing {
				v.breakAt(head, e, fmt.Sprintf("position %d names transfer %s, which does not exist", e.position, e.stored.Transfer.ID))
				return nil
			}
			if e.position != position+1 {
				v.breakAt(head, e, fmt.Sprintf("position %d follows position %d: a transfer is missing", e.position, position))
				return nil
			}
			entry := []ledger.ChainEntry{{Transfer: e.stored.Transfer, Hash: e.hash}}
			if _, ok := ledger.VerifyChain(prev, entry); !ok {
				v.breakAt(head, e, "recorded hash differs from the hash of its content and the previous hash")
				return nil
			}
			prev, position = e.hash, e.position
		}
	}
	if position != head.position || !bytes.Equal(prev, head.hash) {
		v.out.Breaks = append(v.out.Breaks, ChainBreak{Environment: core.Environment(head.env), Stripe: head.stripe,
			Position: position, Sequence: 1<<63 - 1,
			Reason: fmt.Sprintf("chain head says position %d, the last transfer is at %d (or its hash differs)", head.position, position)})
	}
	return nil
}

func (v *verifier) breakAt(head chainHead, e stripeEntry, reason string) {
	v.out.Breaks = append(v.out.Breaks, ChainBreak{Environment: core.Environment(head.env), Stripe: head.stripe,
		Position: e.position, TransferID: e.stored.Transfer.ID, Sequence: e.sequence, Reason: reason})
}

type stripeEntry struct {
	stored   ledger.StoredTransfer
	sequence int64
	position int64
	hash     []byte
	missing  bool // the link names a transfer that does not exist
}

type extraScanner struct {
	rows  rowScanner
	extra []any
}

func (s extraScanner) Scan(dest ...any) error { return s.rows.Scan(append(dest, s.extra...)...) }

// stripeBatch reads the next links of a stripe after position after, up to its head, with
// their transfers. A link whose transfer is missing ends the batch, so the walk reports a
// gap at its position.
func (v *verifier) stripeBatch(ctx context.Context, head chainHead, after int64) ([]stripeEntry, error) {
	rows, err := v.q.QueryContext(ctx, verifyLinksSQL, head.key, head.env, head.stripe, after, head.position, verifyBatchSize)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var links []stripeEntry
	var ids []string
	for rows.Next() {
		var e stripeEntry
		if err := rows.Scan(&e.stored.Transfer.ID, &e.position, &e.hash); err != nil {
			return nil, err
		}
		links = append(links, e)
		ids = append(ids, e.stored.Transfer.ID)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil || len(links) == 0 {
		return nil, err
	}
	transfers, err := v.linked(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]stripeEntry, 0, len(links))
	for _, e := range links {
		t, ok := transfers[e.stored.Transfer.ID]
		if !ok {
			// The walk sees a gap here: "a transfer is missing".
			e.stored.Transfer = ledger.Transfer{ID: e.stored.Transfer.ID}
			e.missing = true
		} else {
			e.stored, e.sequence = t.stored, t.sequence
		}
		out = append(out, e)
	}
	return out, nil
}

// linked reads the transfers of ids, by id.
func (v *verifier) linked(ctx context.Context, ids []string) (map[string]stripeEntry, error) {
	rows, err := v.q.QueryContext(ctx, verifyLinkedSQL, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]stripeEntry, len(ids))
	for rows.Next() {
		var e stripeEntry
		if e.stored, e.sequence, err = scanTransfer(rows); err != nil {
			return nil, err
		}
		out[e.stored.Transfer.ID] = e
	}
	return out, rows.Err()
}

// history replays every transfer in sequence order through ledger.Effects.
func (v *verifier) history(ctx context.Context) error {
	rows, err := v.q.QueryContext(ctx, onCoordinator(v.citus, verifyHistorySQL))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var cols [7][]int64
		var found []bool
		extra := make([]any, 0, len(cols)+1)
		for i := range cols {
			extra = append(extra, typeMap.SQLScanner(&cols[i]))
		}
		extra = append(extra, typeMap.SQLScanner(&found))
		stored, _, err := scanTransfer(extraScanner{rows, extra})
		if err != nil {
			return err
		}
		v.out.Transfers++
		v.legs(stored.Transfer, cols[6], found)
		v.transfer(stored, [6][]int64(cols[:6]))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	return v.strayHistory(ctx)
}

// legs checks that every leg of a transfer's arrays has its history row, with the same amount
// (the hash chain covers the arrays; the history rows are what statements read).
func (v *verifier) legs(t ledger.Transfer, amounts []int64, found []bool) {
	for i, p := range t.Postings {
		switch {
		case i >= len(found) || i >= len(amounts) || !found[i]:
			v.problem("transfer %s: its posting on %s has no history row", t.ID, p.AccountID)
		case amounts[i] != p.Amount:
			v.problem("transfer %s: its posting on %s is %d, the history row says %d", t.ID, p.AccountID, p.Amount, amounts[i])
		}
	}
}

// strayHistory reports history rows that belong to no transfer's arrays or to no account.
func (v *verifier) strayHistory(ctx context.Context) error {
	rows, err := v.q.QueryContext(ctx, onCoordinator(v.citus, verifyStrayHistorySQL), maxProblems+1)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var account, transfer, missing string
		var sequence int64
		if err := rows.Scan(&account, &sequence, &transfer, &missing); err != nil {
			return err
		}
		if missing == "account" {
			v.problem("history row of account %s at sequence %d: the account does not exist", account, sequence)
		} else {
			v.problem("history row of account %s at sequence %d: transfer %s does not list it", account, sequence, transfer)
		}
	}
	return rows.Err()
}

// transfer checks one transfer's recorded deltas and balances-after, then advances the state.
func (v *verifier) transfer(stored ledger.StoredTransfer, cols [6][]int64) {
	t := stored.Transfer
	var pending *ledger.Transfer
	if t.Type == ledger.TypePostPending {
		if h, ok := v.holds[t.PendingID]; ok {
			pending = &h
		}
	}
	deltas, err := ledger.Effects(t, pending)
	if err != nil {
		v.problem("transfer %s: %v", t.ID, err)
		return
	}
	for i, d := range deltas {
		if i >= len(cols[0]) {
			break
		}
		if d.Posted != cols[0][i] || d.PendingDebits != cols[1][i] || d.PendingCredits != cols[2][i] {
			v.problem("transfer %s: posting on %s records change %d/%d/%d, the transfer makes %d/%d/%d", t.ID, d.AccountID,
				cols[0][i], cols[1][i], cols[2][i], d.Posted, d.PendingDebits, d.PendingCredits)
		}
		next, err := addDelta(v.running[d.AccountID], d)
		if err != nil {
			v.problem("transfer %s: account %s: %v", t.ID, d.AccountID, err)
			continue
		}
		v.running[d.AccountID] = next
		if recorded := (ledger.Balance{Posted: cols[3][i], PendingDebits: cols[4][i], PendingCredits: cols[5][i]}); recorded != next {
			v.problem("transfer %s: posting on %s records balance after %+v, the history gives %+v", t.ID, d.AccountID, recorded, next)
		}
	}
	v.advance(stored)
}

// advance tracks open holds and the states resolutions imply.
func (v *verifier) advance(stored ledger.StoredTransfer) {
	t := stored.Transfer
	switch t.Type {
	case ledger.TypePending:
		v.holds[t.ID] = t
	case ledger.TypePostPending, ledger.TypeVoidPending:
		delete(v.holds, t.PendingID)
	}
	if target := t.TargetID(); target != "" {
		if _, twice := v.claims[target]; twice {
			v.problem("transfer %s resolves %s, which an earlier transfer already resolved", t.ID, target)
		}
		v.claims[target] = ledger.TransferState{Status: resolvedStatus(t.Type), ResolvedByID: t.ID}
	}
	if stored.State != (ledger.TransferState{Status: initialStatus(t.Type)}) {
		v.resolved[t.ID] = stored.State
	}
}

// states compares every stored state with the one its resolutions imply.
func (v *verifier) states() {
	ids := make([]string, 0, len(v.claims))
	for id := range v.claims {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if stored := v.resolved[id]; stored != v.claims[id] {
			v.problem("transfer %s has state %+v, its resolution implies %+v", id, stored, v.claims[id])
		}
		delete(v.resolved, id)
	}
	for id, st := range v.resolved {
		v.problem("transfer %s has state %+v but no transfer resolves it", id, st)
	}
}

// balances compares the balance rows with the history and sums the trial balances.
func (v *verifier) balances(ctx context.Context) error {
	rows, err := v.q.QueryContext(ctx, `SELECT `+accountColumns+`, b.posted, b.pending_debits, b.pending_credits
FROM ledger_accounts a JOIN ledger_balances b ON b.account_id = a.id AND b.home_tenant_id = a.home_tenant_id ORDER BY a.id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var accounts []ledger.Account
	stored := map[string]ledger.Balance{}
	for rows.Next() {
		var b ledger.Balance
		a, err := scanAccount(rows, &b.Posted, &b.PendingDebits, &b.PendingCredits)
		if err != nil {
			return err
		}
		accounts, stored[a.ID] = append(accounts, a), b
		if want := v.running[a.ID]; b != want {
			v.problem("account %s (%s): balance row %+v, the history gives %+v", a.ID, a.Reference, b, want)
		}
		if err := b.Validate(); err != nil {
			v.problem("account %s: %v", a.ID, err)
			stored[a.ID] = ledger.Balance{}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	v.out.Accounts = len(accounts)
	lines, err := ledger.TrialBalance(accounts, stored)
	if err != nil {
		v.problem("trial balance: %v", err)
		return nil
	}
	for _, l := range lines {
		if !l.Balanced() {
			v.problem("trial balance of %s %s does not sum to zero: %+v", l.Environment, l.Asset, l)
		}
	}
	return nil
}

func addDelta(b ledger.Balance, d ledger.Delta) (ledger.Balance, error) {
	var err error
	if b.Posted, err = core.AddInt64(b.Posted, d.Posted); err != nil {
		return b, err
	}
	if b.PendingDebits, err = core.AddInt64(b.PendingDebits, d.PendingDebits); err != nil {
		return b, err
	}
	b.PendingCredits, err = core.AddInt64(b.PendingCredits, d.PendingCredits)
	return b, err
}

// initialStatus and resolvedStatus restate the ledger package's transfer lifecycle (see
// ledger.TransferStatus) for the verifier's state check.
func initialStatus(t ledger.TransferType) ledger.TransferStatus {
	switch t {
	case ledger.TypePending:
		return ledger.StatusPending
	case ledger.TypeVoidPending:
		return ledger.StatusVoided
	}
	return ledger.StatusPosted
}

func resolvedStatus(t ledger.TransferType) ledger.TransferStatus {
	switch t {
	case ledger.TypePostPending:
		return ledger.StatusPosted
	case ledger.TypeVoidPending:
		return ledger.StatusVoided
	}
	return ledger.StatusReversed
}
