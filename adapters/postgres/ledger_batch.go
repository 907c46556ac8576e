package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// The ledger inside a pipeline batch (pipeline.go). A transfer posted inside a batch costs no
// round trip of its own:
//
//   - The batch locks the balance rows its units need together: a unit that needs a row the
//     batch has not locked yet parks, and when no unit can go on, one statement locks every
//     row the parked units need and looks their references up. Rows locked once stay known in
//     memory for the rest of the batch, so a hot account is read once per batch.
//   - The transfer is decided in memory against those balances, in the batch's serial order
//     (its units apply their transfers one after the other, in the order they joined), and
//     buffered: its row, its postings and its balances-after.
//   - Before COMMIT one statement writes every buffered transfer, every posting and one
//     update per touched account, so a hot account is written once per batch. The chain link
//     is appended at commit by the trigger on ledger_transfers, as without the pipeline.
//
// A unit keeps its own layer (balances it changed, transfers it buffered) and merges it into
// the batch when it ends well; a unit that fails drops its layer. Anything that reads the
// ledger tables inside a batch (a replay from the database, Transfer, Balances, the reports)
// or writes them directly (a transfer with a target, a nested unit of work) writes the
// buffered rows first; after a direct write the unit reads its balances again (the rows stay
// locked by the batch, so that costs a query, never a wait). Buffered rows of the batch's
// earlier units written from inside a unit that is then rolled back go back into the batch's
// buffer.

// batchLedger is the ledger state of a batch after its finished units.
type batchLedger struct {
	known    map[string]knownBalance   // balance rows this batch locked, as its finished units left them
	absent   map[string]bool           // account ids that do not exist
	accounts map[string]ledger.Account // the accounts of known and absent-checked ids
	dbRefs   map[refKey]string         // references looked up in the database: the recorded transfer's id, or ""
	refs     map[refKey]ledger.Transfer
	pending  []bufferedTransfer // buffered by finished units, not yet written
	// records are the idempotency records of finished units, written before COMMIT (batch_records.go).
	records []ports.IdempotencyRecord
	// approvals are the card approvals of finished units, not written yet (batch_approvals.go).
	approvals []heldApproval
}

type refKey struct{ environment, reference string }

type knownBalance struct {
	balance ledger.Balance
	at      time.Time // transfers on the account are never created before this
}

// bufferedTransfer is a decided transfer waiting for the batch's write.
type bufferedTransfer struct {
	row      transferRow
	postings []bufferedPosting
}

type transferRow struct {
	id, environment, reference, typ, asset string
	pendingID, reversedID                  *string
	amount                                 int64
	expiresAt                              *time.Time
	metadata                               string
	createdAt                              time.Time
	status                                 string
	canonical                              []byte
	home                                   string // the transfer's home tenant (ledger.HomeOf)
}

type bufferedPosting struct {
	accountID string
	home      string // the account's (ledger.Account.Home)
	amount    int64
	delta     ledger.Delta
	after     ledger.Balance
}

func newBatchLedger() *batchLedger {
	return &batchLedger{known: map[string]knownBalance{}, absent: map[string]bool{}, accounts: map[string]ledger.Account{},
		dbRefs: map[refKey]string{}, refs: map[refKey]ledger.Transfer{}}
}

// unitLedger is one unit's layer over its batch.
type unitLedger struct {
	m             *member
	batch         *batchLedger
	q             txQuerier
	known         map[string]knownBalance
	refs          map[refKey]ledger.Transfer
	forget        bool // the batch's known balances are stale for this unit (a direct write ran)
	pending       []bufferedTransfer
	flushedParent []bufferedTransfer        // the batch's rows this unit wrote; back to the batch on rollback
	err           error                     // a write the unit could not report (LedgerReports' flush)
	lockConflict  bool                      // a statement of the unit would have waited on a lock
	records       []ports.IdempotencyRecord // the unit's idempotency records, for the batch's write (batch_records.go)
	// approvals are the unit's held card approvals; flushedApprovals the batch's ones it wrote,
	// back to the batch on rollback (batch_approvals.go).
	approvals, flushedApprovals []heldApproval
}

func (b *batchLedger) unit(m *member, q *sql.Tx) *unitLedger {
	return &unitLedger{m: m, batch: b, q: txQuerier{q}, known: map[string]knownBalance{}, refs: map[refKey]ledger.Transfer{}}
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

// missing lists the ids whose balance the unit cannot see yet and reports whether the
// reference is still to be looked up.
func (u *unitLedger) missing(ids []string, ref refKey) (out []string, refUnknown bool) {
	for _, id := range ids {
		if _, ok := u.get(id); !ok && !u.batch.absent[id] {
			out = append(out, id)
		}
	}
	_, mine := u.refs[ref]
	_, inBatch := u.batch.refs[ref]
	_, looked := u.batch.dbRefs[ref]
	return out, !mine && !inBatch && !looked
}

// recorded returns the transfer this unit or a finished unit of the batch recorded under ref.
func (u *unitLedger) recorded(ref refKey) (ledger.Transfer, bool) {
	if t, ok := u.refs[ref]; ok {
		return t, true
	}
	t, ok := u.batch.refs[ref]
	return t, ok
}

// merge folds a unit that ended well into its batch.
func (u *unitLedger) merge() {
	if u.forget {
		u.batch.known = make(map[string]knownBalance, len(u.known))
	}
	for id, k := range u.known {
		u.batch.known[id] = k
	}
	for ref, t := range u.refs {
		u.batch.refs[ref] = t
	}
	u.batch.pending = append(u.batch.pending, u.pending...)
	u.batch.records = append(u.batch.records, u.records...)
	u.batch.approvals = append(u.batch.approvals, u.approvals...)
}

// discard drops a failed unit's layer and gives the batch back the rows the unit wrote for it.
func (u *unitLedger) discard() {
	if len(u.flushedParent) > 0 {
		u.batch.pending = append(u.flushedParent, u.batch.pending...)
	}
	u.known, u.refs, u.pending, u.flushedParent = map[string]knownBalance{}, map[refKey]ledger.Transfer{}, nil, nil
	u.records = nil
	if len(u.flushedApprovals) > 0 {
		u.batch.approvals = append(u.flushedApprovals, u.batch.approvals...)
	}
	u.approvals, u.flushedApprovals = nil, nil
}

// ledgerMark is a unit's ledger layer as it stood when a nested unit of work opened its
// savepoint (Store.nested).
type ledgerMark struct {
	known                                map[string]knownBalance
	refs                                 map[refKey]ledger.Transfer
	pending, batchPending, flushedParent []bufferedTransfer
	approvals, batchApprovals, flushed   []heldApproval
	forget                               bool
	err                                  error
}

// mark remembers the layer before a nested unit runs. While the nested unit runs, its unit
// holds the batch's turn (it runs statements), so nothing else changes the batch's buffer. The
// three buffers are only ever appended to or replaced, never written in place, so the mark
// keeps their slices as they stand (clipped, so an append after a restore never writes over
// what a later mark keeps) instead of copying them: copying the batch's buffer cost every
// nested unit the size of its batch.
func (u *unitLedger) mark() ledgerMark {
	return ledgerMark{known: maps.Clone(u.known), refs: maps.Clone(u.refs), pending: slices.Clip(u.pending),
		batchPending: slices.Clip(u.batch.pending), flushedParent: slices.Clip(u.flushedParent), approvals: slices.Clip(u.approvals),
		batchApprovals: slices.Clip(u.batch.approvals), flushed: slices.Clip(u.flushedApprovals), forget: u.forget, err: u.err}
}

// restore puts the layer back as mark found it, after the nested unit was rolled back to its
// savepoint: the balances it locked or decided (the rollback released those row locks), the
// transfers it buffered, and the rows it wrote (the rollback undid them: they wait again).
func (u *unitLedger) restore(m ledgerMark) {
	u.known, u.refs, u.pending, u.forget, u.err = m.known, m.refs, m.pending, m.forget, m.err
	u.batch.pending, u.flushedParent = m.batchPending, m.flushedParent
	u.approvals, u.batch.approvals, u.flushedApprovals = m.approvals, m.batchApprovals, m.flushed
}

// balancesKnown answers Balances from the layer when it knows every asked account: rows the
// batch holds locked, as its units' decided transfers left them, which is what reading them
// after writing the buffered rows would return.
func (u *unitLedger) balancesKnown(ids []string) (map[string]ledger.Balance, bool) {
	out := make(map[string]ledger.Balance, len(ids))
	for _, id := range ids {
		k, ok := u.get(id)
		if !ok {
			return nil, false
		}
		out[id] = k.balance
	}
	return out, true
}

// flush writes the batch's and the unit's buffered rows inside the unit's savepoint.
func (u *unitLedger) flush(ctx context.Context) error {
	rows := append(append([]bufferedTransfer(nil), u.batch.pending...), u.pending...)
	if err := writeBuffered(ctx, u.q, rows, u.m.b.p.citus); err != nil {
		u.noteLock(err)
		if referenceTaken(err) {
			// A twin committed one of the buffered references after the batch looked it up:
			// the batch cannot commit as it is, so every unit of it runs again alone.
			u.m.b.poison(err)
		}
		return err
	}
	u.flushedParent = append(u.flushedParent, u.batch.pending...)
	u.batch.pending, u.pending = nil, nil
	return nil
}

// flushForDirect writes the buffered rows before a direct write and forgets the balances
// the direct write may change.
func (u *unitLedger) flushForDirect(ctx context.Context) error {
	u.m.enterSQL()
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

// errRowsBusy answers a Post whose balance rows another transaction holds; the unit runs
// again first in the next batch whatever it makes of the error.
var errRowsBusy = core.E(core.CodeServiceUnavailable, "the ledger accounts are busy; retry shortly").Transient(core.RetryDatabase)

// loadNow locks and loads what a unit inside its savepoint needs, itself: rows it may wait for
// when it is the batch's first holder of locks, rows another transaction holds skipped (and
// the unit run again in the next batch) otherwise.
func (u *unitLedger) loadNow(ctx context.Context, ids []string, ref refKey, refUnknown bool) error {
	set := lockSet{}
	if u.m.mayWait {
		set.wait = ids
	} else {
		set.skip = ids
	}
	if refUnknown {
		set.refs = []refKey{ref}
	}
	u.m.b.p.stats.unitLoads.Add(1)
	if err := u.batch.lock(ctx, u.q, set, u.known, u.m.b.p.citus); err != nil {
		u.noteLock(err)
		return err
	}
	for _, id := range ids {
		if _, ok := u.known[id]; !ok && !u.batch.absent[id] {
			u.lockConflict = true
			return errRowsBusy
		}
	}
	return nil
}

// lockSet is what one locking read asks for.
type lockSet struct {
	wait, skip []string // balance rows to lock: waiting for them, or skipping those another transaction holds
	refs       []refKey // references to look up
}

func (s lockSet) empty() bool { return len(s.wait) == 0 && len(s.skip) == 0 && len(s.refs) == 0 }

// lockSQL locks balance rows and looks references up in one round trip: $1 the rows it waits
// for, in account-id order; $2 the rows it takes unless another transaction holds them; $3
// and $4 the references (environment, reference). Reference rows carry their environment. $5
// names the homes: of the rows locked, and every home a looked-up transfer can have (homesOf
// the batch's accounts).
const lockSQL = lockRowsSQL + `
SELECT x.id, 0, 0, 0, NULL, x.environment, x.reference
FROM unnest($3::text[], $4::text[]) AS q (environment, reference)
CROSS JOIN LATERAL (
    SELECT t.id, t.environment, t.reference FROM ledger_transfers t
    WHERE t.environment = q.environment AND t.reference = q.reference AND t.home_tenant_id = ANY($5::text[])
    OFFSET 0
) x` // one index lookup per reference, whatever the plan's statistics (refLookupSQL)

// lockSQLCitus is lockSQL for a Citus coordinator, which plans distributed statements itself:
// the references joined as they always were there.
const lockSQLCitus = lockRowsSQL + `
SELECT x.id, 0, 0, 0, NULL, x.environment, x.reference
FROM ledger_transfers x JOIN unnest($3::text[], $4::text[]) AS q (environment, reference)
    ON x.environment = q.environment AND x.reference = q.reference AND x.home_tenant_id = ANY($5::text[])`

const lockRowsSQL = `
WITH w AS MATERIALIZED (
    SELECT b.account_id, b.posted, b.pending_debits, b.pending_credits, b.last_transfer_at
    FROM ledger_balances b WHERE b.account_id = ANY($1::text[]) AND b.home_tenant_id = ANY($5::text[])
    ORDER BY b.account_id FOR UPDATE
), s AS MATERIALIZED (
    SELECT b.account_id, b.posted, b.pending_debits, b.pending_credits, b.last_transfer_at
    FROM ledger_balances b WHERE b.account_id = ANY($2::text[]) AND b.home_tenant_id = ANY($5::text[])
    ORDER BY b.account_id FOR UPDATE SKIP LOCKED
)
SELECT account_id, posted, pending_debits, pending_credits, last_transfer_at, '' AS environment, '' AS reference FROM w
UNION ALL
SELECT account_id, posted, pending_debits, pending_credits, last_transfer_at, '', '' FROM s
UNION ALL`

// lock runs lockSQL for set: balances go into into, references into the batch. Accounts that
// do not exist are noted absent and not asked for.
func (b *batchLedger) lock(ctx context.Context, q txQuerier, set lockSet, into map[string]knownBalance, perHome bool) error {
	var err error
	if set.wait, err = b.existing(ctx, q, set.wait); err != nil {
		return err
	}
	if set.skip, err = b.existing(ctx, q, set.skip); err != nil {
		return err
	}
	if set.empty() {
		return nil
	}
	for _, part := range b.byHome(set, perHome) {
		if err := b.lockIn(ctx, q, part.set, part.homes, into, perHome); err != nil {
			return err
		}
	}
	for _, r := range set.refs {
		if _, ok := b.dbRefs[r]; !ok {
			b.dbRefs[r] = ""
		}
	}
	return nil
}

// homeLocks is one locking read of a batch: its rows and the homes it names.
type homeLocks struct {
	set   lockSet
	homes []string
}

// byHome splits set into one locking read per home when perHome (on Citus, where a FOR UPDATE
// must stay on one shard: a batch whose accounts span homes, a sweep's, locks each home's rows
// in turn, homes in order and rows in account-id order within each, an order every locker
// shares), each looking the references up in its home; else it is one read over every home.
func (b *batchLedger) byHome(set lockSet, perHome bool) []homeLocks {
	homes := homesOf(b.accounts)
	if !perHome || len(homes) <= 1 {
		return []homeLocks{{set, homes}}
	}
	out := make([]homeLocks, 0, len(homes))
	for _, h := range homes {
		part := lockSet{wait: b.ofHome(set.wait, h), skip: b.ofHome(set.skip, h), refs: set.refs}
		if !part.empty() {
			out = append(out, homeLocks{part, []string{h}})
		}
	}
	return out
}

// ofHome keeps the ids of accounts whose home is h, in their order.
func (b *batchLedger) ofHome(ids []string, h string) []string {
	var out []string
	for _, id := range ids {
		if b.accounts[id].Home() == h {
			out = append(out, id)
		}
	}
	return out
}

// lockIn runs lockSQL for set in homes.
func (b *batchLedger) lockIn(ctx context.Context, q txQuerier, set lockSet, homes []string, into map[string]knownBalance, citus bool) error {
	envs, refs := make([]string, len(set.refs)), make([]string, len(set.refs))
	for i, r := range set.refs {
		envs[i], refs[i] = r.environment, r.reference
	}
	// The batch's first locking read carries its BEGIN (driver.go).
	stmt := lockSQL
	if citus {
		stmt = lockSQLCitus
	}
	rows, err := q.QueryContext(ctx, stmt, withPending{}, nonNil(set.wait), nonNil(set.skip), envs, refs, homes)
	if err != nil {
		return ledgerError("lock balances", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, env, ref string
		var bal ledger.Balance
		var lastAt sql.NullTime
		if err := rows.Scan(&id, &bal.Posted, &bal.PendingDebits, &bal.PendingCredits, &lastAt, &env, &ref); err != nil {
			return ledgerError("lock balances", err)
		}
		if env != "" {
			b.dbRefs[refKey{env, ref}] = id
			continue
		}
		k := knownBalance{balance: bal}
		if lastAt.Valid {
			k.at = lastAt.Time.UTC()
		}
		into[id] = k
	}
	return ledgerError("lock balances", rows.Err())
}

func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

// existing keeps the ids of accounts that exist, loading the accounts the batch lacks (from
// the account cache or the database), and notes the others absent.
func (b *batchLedger) existing(ctx context.Context, q txQuerier, ids []string) ([]string, error) {
	var lookup []string
	for _, id := range ids {
		if _, ok := b.accounts[id]; ok || b.absent[id] {
			continue
		}
		if a, ok := cachedAccounts.get(id); ok {
			b.accounts[id] = a
		} else {
			lookup = append(lookup, id)
		}
	}
	if len(lookup) > 0 {
		if err := readAccountsByID(ctx, q, lookup, func(a ledger.Account) { b.accounts[a.ID] = a }); err != nil {
			return nil, err
		}
		for _, id := range lookup {
			if _, ok := b.accounts[id]; !ok {
				b.absent[id] = true
			}
		}
	}
	out := ids[:0:0]
	for _, id := range ids {
		if !b.absent[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

// flush writes the batch's buffered rows before its COMMIT. The write travels with the COMMIT
// (driver.go): its failure fails the COMMIT, which PostgreSQL then refuses as a whole.
func (b *batchLedger) flush(ctx context.Context, q txQuerier, citus bool) error {
	err := writeBuffered(ctx, q, b.pending, citus, deferExec{})
	if err == nil {
		b.pending = nil
	}
	return err
}

// writeBufferedSQL inserts transfers (in their serial order, which gives them their
// sequence) with their posting arrays ($28, $29: one array literal per transfer, cast per row,
// so no aggregate runs), their postings (with the sequence just given), sets each touched account's
// balance to its last posting's balance-after (naming the homes as an array as well, which Citus
// prunes to their shards, where a join to the unnested homes would ask every shard), and links the transfers to their chains
// (ledger_link_batch: the stripes of their homes' buckets, migration 000065), in one statement.
const writeBufferedSQL = `
WITH t AS (
    INSERT INTO ledger_transfers (id, environment, reference, type, asset, pending_id, reversed_id, amount,
        expires_at, metadata, created_at, status, canonical, chain_linked, posting_accounts, posting_amounts,
        home_tenant_id)
    SELECT x.id, x.environment, x.reference, x.type, x.asset, x.pending_id, x.reversed_id, x.amount,
        x.expires_at, x.metadata::jsonb, x.created_at, x.status, x.canonical, true, x.accounts::text[],
        x.amounts::int8[], x.home
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int8[],
        $9::timestamptz[], $10::text[], $11::timestamptz[], $12::text[], $13::bytea[], $28::text[],
        $29::text[], $30::text[]) WITH ORDINALITY
        AS x (id, environment, reference, type, asset, pending_id, reversed_id, amount, expires_at, metadata,
            created_at, status, canonical, accounts, amounts, home, n)
    ORDER BY x.n
    RETURNING id, sequence, created_at, home_tenant_id
), p AS (
    INSERT INTO ledger_postings (transfer_id, account_id, sequence, created_at, amount, posted_delta,
        pending_debits_delta, pending_credits_delta, posted_after, pending_debits_after, pending_credits_after,
        home_tenant_id, transfer_home_tenant_id)
    SELECT t.id, x.account_id, t.sequence, t.created_at, x.amount, x.pd, x.pdd, x.pcd, x.pa, x.pda, x.pca, x.home,
        t.home_tenant_id
    FROM unnest($14::text[], $15::text[], $16::int8[], $17::int8[], $18::int8[], $19::int8[], $20::int8[],
        $21::int8[], $22::int8[], $31::text[]) AS x (transfer_id, account_id, amount, pd, pdd, pcd, pa, pda, pca, home)
    JOIN t ON t.id = x.transfer_id
), b AS (
    UPDATE ledger_balances bl SET posted = u.posted, pending_debits = u.pending_debits,
        pending_credits = u.pending_credits, last_transfer_at = u.at
    FROM unnest($23::text[], $24::int8[], $25::int8[], $26::int8[], $27::timestamptz[], $32::text[])
        AS u (account_id, posted, pending_debits, pending_credits, at, home)
    WHERE bl.account_id = u.account_id AND bl.home_tenant_id = u.home AND bl.home_tenant_id = ANY($32::text[])
)
SELECT ledger_link_batch($2::text[], $30::text[], $1::text[], $13::bytea[])`

// writeBuffered writes ts in one statement (nothing when ts is empty; on Citus one per home,
// ledger_write_citus.go); marker, if any, goes first among the arguments (driver.go).
func writeBuffered(ctx context.Context, q txQuerier, ts []bufferedTransfer, citus bool, marker ...any) error {
	if len(ts) == 0 {
		return nil
	}
	if citus {
		return writeBufferedCitus(ctx, q, ts, marker)
	}
	n := len(ts)
	ids, envs, refs, types, assets := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	pendingIDs, reversedIDs := make([]*string, n), make([]*string, n)
	amounts := make([]int64, n)
	expires := make([]*time.Time, n)
	metadata, statuses := make([]string, n), make([]string, n)
	created := make([]time.Time, n)
	canonical := make([][]byte, n)
	postingAccounts, postingAmounts, homes := make([]string, n), make([]string, n), make([]string, n)
	var pTransfers, pAccounts, pHomes []string
	homeOf := map[string]string{}
	var pAmounts, dp, dd, dc, ap, ad, ac []int64
	last := map[string]int{}
	var order []string
	type after struct {
		b  ledger.Balance
		at time.Time
	}
	var afters []after
	for i, t := range ts {
		r := t.row
		ids[i], envs[i], refs[i], types[i], assets[i] = r.id, r.environment, r.reference, r.typ, r.asset
		pendingIDs[i], reversedIDs[i], amounts[i], expires[i] = r.pendingID, r.reversedID, r.amount, r.expiresAt
		metadata[i], created[i], statuses[i], canonical[i] = r.metadata, r.createdAt, r.status, r.canonical
		postingAccounts[i], postingAmounts[i] = postingArrays(t.postings)
		homes[i] = r.home
		for _, p := range t.postings {
			pTransfers, pAccounts, pAmounts = append(pTransfers, r.id), append(pAccounts, p.accountID), append(pAmounts, p.amount)
			pHomes, homeOf[p.accountID] = append(pHomes, p.home), p.home
			dp, dd, dc = append(dp, p.delta.Posted), append(dd, p.delta.PendingDebits), append(dc, p.delta.PendingCredits)
			ap, ad, ac = append(ap, p.after.Posted), append(ad, p.after.PendingDebits), append(ac, p.after.PendingCredits)
			if _, ok := last[p.accountID]; !ok {
				order = append(order, p.accountID)
			}
			last[p.accountID] = len(afters)
			afters = append(afters, after{p.after, r.createdAt})
		}
	}
	m := len(order)
	bIDs, bp, bd, bc, bat := make([]string, m), make([]int64, m), make([]int64, m), make([]int64, m), make([]time.Time, m)
	bHomes := make([]string, m)
	for j, id := range order {
		a := afters[last[id]]
		bIDs[j], bp[j], bd[j], bc[j], bat[j] = id, a.b.Posted, a.b.PendingDebits, a.b.PendingCredits, a.at
		bHomes[j] = homeOf[id]
	}
	args := append(marker, ids, envs, refs, types, assets, pendingIDs, reversedIDs, amounts,
		expires, metadata, created, statuses, canonical,
		pTransfers, pAccounts, pAmounts, dp, dd, dc, ap, ad, ac,
		bIDs, bp, bd, bc, bat, postingAccounts, postingAmounts, homes, pHomes, bHomes)
	_, err := q.ExecContext(ctx, writeBufferedSQL, args...)
	return ledgerError("write batch", err)
}

// postingArrays writes a transfer's postings (in their account-id order) as the array literals
// of its posting_accounts and posting_amounts columns: every account id double-quoted, with
// backslash and double quote escaped.
func postingArrays(ps []bufferedPosting) (accounts, amounts string) {
	var a, m strings.Builder
	a.WriteByte('{')
	m.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			a.WriteByte(',')
			m.WriteByte(',')
		}
		a.WriteByte('"')
		for _, c := range []byte(p.accountID) {
			if c == '"' || c == '\\' {
				a.WriteByte('\\')
			}
			a.WriteByte(c)
		}
		a.WriteByte('"')
		m.WriteString(strconv.FormatInt(p.amount, 10))
	}
	a.WriteByte('}')
	m.WriteByte('}')
	return a.String(), m.String()
}

// transferReferenceKey is the unique constraint on a transfer's (environment, reference).
const transferReferenceKey = "ledger_transfers_reference_key"

// referenceTaken reports a unique violation of a transfer's reference.
func referenceTaken(err error) bool {
	code, constraint := constraintOf(err)
	return code == "23505" && constraint == transferReferenceKey
}

// transferRowOf lays out an accepted transfer's row.
func transferRowOf(res ledger.Result) (transferRow, error) {
	t := res.Transfer
	metadata := []byte("{}")
	if len(t.Metadata) > 0 {
		var err error
		if metadata, err = json.Marshal(t.Metadata); err != nil {
			return transferRow{}, err
		}
	}
	row := transferRow{id: t.ID, environment: string(t.Environment), reference: t.Reference, typ: string(t.Type),
		asset: t.Asset, amount: t.Amount, metadata: string(metadata), createdAt: t.CreatedAt,
		status: string(res.State.Status), canonical: ledger.CanonicalBytes(t), home: res.Home}
	if t.PendingID != "" {
		row.pendingID = &t.PendingID
	}
	if t.ReversedID != "" {
		row.reversedID = &t.ReversedID
	}
	if !t.ExpiresAt.IsZero() {
		row.expiresAt = &t.ExpiresAt
	}
	return row, nil
}

// in binds the repository to a unit's layer of a batch (nil: no batch).
func (r ledgerRepo) in(u *unitLedger) ledgerRepo {
	r.u = u
	return r
}

// reading binds the reports to a unit of a batch: they read the tables, so the buffered rows
// are written first (an error fails the unit).
func (r ledgerRepo) reading(u *unitLedger) ledgerRepo {
	if u != nil && u.err == nil {
		u.m.enterSQL()
		u.err = u.flush(u.m.b.bc.ctx)
	}
	return r
}

// postBatched is Post inside a batch: a transfer naming a target is written directly; any
// other waits for its accounts' rows and reference, is applied in memory and buffered.
func (r ledgerRepo) postBatched(ctx context.Context, now time.Time, spec ledger.TransferSpec) (ledger.Transfer, bool, error) {
	u := r.u
	if spec.TargetID() != "" {
		return r.postDirect(ctx, now, spec)
	}
	if err := spec.Validate(); err != nil {
		return ledger.Transfer{}, false, err
	}
	if err := storableMetadata(spec.Metadata); err != nil {
		return ledger.Transfer{}, false, err
	}
	ids := ledger.InvolvedAccountIDs(spec, nil)
	ref := refKey{string(spec.Environment), spec.Reference}
	if err := u.awaitRows(ctx, ids, ref); err != nil {
		return ledger.Transfer{}, false, err
	}
	if t, ok := u.recorded(ref); ok {
		t, err := ledger.ReplayOrConflict(spec, t)
		return t, err == nil, err
	}
	if u.batch.dbRefs[ref] != "" {
		return r.replayInBatch(ctx, spec, homesOf(accountsOf(ids, u.batch.accounts)))
	}
	res, err := ledger.Apply(u.applyInput(now, spec, ids))
	if err != nil {
		// A twin may have committed the reference after the batch looked it up (while its
		// locking read waited for the rows the twin held): then the twin's replay is the
		// answer, not this refusal. Reading it runs a statement, so the unit's savepoint opens.
		if t, found, rerr := r.replay(ctx, spec, homesOf(accountsOf(ids, u.batch.accounts))); found || rerr != nil {
			return t, found && rerr == nil, rerr
		}
		return ledger.Transfer{}, false, err
	}
	t, err := u.buffer(res)
	if err != nil {
		return ledger.Transfer{}, false, err
	}
	u.refs[ref] = t
	return t, false, nil
}

// postDirect writes a transfer naming a target (holds posted or voided, reversals) straight
// to the tables: rare on a hot path, so the buffered rows are flushed first.
func (r ledgerRepo) postDirect(ctx context.Context, now time.Time, spec ledger.TransferSpec) (ledger.Transfer, bool, error) {
	if err := r.u.flushForDirect(ctx); err != nil {
		return ledger.Transfer{}, false, err
	}
	t, replayed, err := r.in(nil).Post(ctx, now, spec)
	if err != nil {
		r.u.noteLock(err)
	}
	return t, replayed, err
}

// awaitRows makes the unit know every account row and the reference the transfer needs,
// loading them now when the unit already runs SQL and else parking for the batch to load
// them, then waits for the unit's turn; errRowsBusy sends the unit to run on its own.
func (u *unitLedger) awaitRows(ctx context.Context, ids []string, ref refKey) error {
	for {
		missing, refUnknown := u.missing(ids, ref)
		if len(missing) == 0 && !refUnknown {
			break
		}
		if u.m.sql {
			if err := u.loadNow(ctx, missing, ref, refUnknown); err != nil {
				return err
			}
			continue
		}
		if u.m.park(memberParkedLoad, loadNeed{ids: missing, ref: ref, refUnknown: refUnknown}) {
			return errRowsBusy
		}
	}
	if !u.m.awaitTurn() {
		return errRowsBusy
	}
	return nil
}

// applyInput is the ledger's input for spec over the balances the unit knows; a transfer is
// never dated before the latest change of an account it touches.
func (u *unitLedger) applyInput(now time.Time, spec ledger.TransferSpec, ids []string) ledger.ApplyInput {
	in := ledger.ApplyInput{Spec: spec, TransferID: core.NewID(core.PrefixTransfer), Now: now.UTC().Truncate(time.Microsecond),
		Accounts: make(map[string]ledger.Account, len(ids)), Balances: make(map[string]ledger.Balance, len(ids))}
	for _, id := range ids {
		if u.batch.absent[id] {
			continue
		}
		k, _ := u.get(id)
		in.Balances[id], in.Accounts[id] = k.balance, u.batch.accounts[id]
		in.Now = latest(in.Now, k.at)
	}
	return in
}

// buffer adds an applied transfer to the rows the unit writes at flush and makes its
// balances the ones the unit knows.
func (u *unitLedger) buffer(res ledger.Result) (ledger.Transfer, error) {
	deltas, err := ledger.Effects(res.Transfer, nil)
	if err != nil {
		return ledger.Transfer{}, err
	}
	row, err := transferRowOf(res)
	if err != nil {
		return ledger.Transfer{}, err
	}
	t := res.Transfer
	if len(deltas) != len(t.Postings) {
		return ledger.Transfer{}, core.E(core.CodeInternal, "ledger: %s has %d postings and %d deltas", t.ID, len(t.Postings), len(deltas))
	}
	bt := bufferedTransfer{row: row, postings: make([]bufferedPosting, len(t.Postings))}
	for i, p := range t.Postings {
		after := res.Balances[p.AccountID]
		bt.postings[i] = bufferedPosting{accountID: p.AccountID, home: u.batch.accounts[p.AccountID].Home(), amount: p.Amount,
			delta: deltas[i], after: after}
		u.known[p.AccountID] = knownBalance{balance: after, at: t.CreatedAt}
	}
	u.pending = append(u.pending, bt)
	return t, nil
}

// accountsOf is the accounts of ids that accounts holds.
func accountsOf(ids []string, accounts map[string]ledger.Account) map[string]ledger.Account {
	out := make(map[string]ledger.Account, len(ids))
	for _, id := range ids {
		if a, ok := accounts[id]; ok {
			out[id] = a
		}
	}
	return out
}

// replayInBatch writes the buffered rows and answers with the transfer the database holds
// under the reference.
func (r ledgerRepo) replayInBatch(ctx context.Context, spec ledger.TransferSpec, homes []string) (ledger.Transfer, bool, error) {
	r.u.m.enterSQL()
	if err := r.u.flush(ctx); err != nil {
		return ledger.Transfer{}, false, err
	}
	return r.mustReplay(ctx, spec, homes)
}
