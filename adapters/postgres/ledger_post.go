package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
)

// The hash chains of an environment's transfers (migrations 000002, 000042, 000065). One chain
// would make every commit wait for the previous one, so transfers are chained in stripes. The
// first ChainStripesBefore stripes are the environment-wide stripes the ledger used before
// its chains followed tenants; their transfers stay in them. Since then a transfer is appended
// to a stripe of its home tenant's bucket (ledger_chain_bucket: the tenant's hash range among
// ChainBuckets, the split a database distributed by tenant gives its default shard count), so
// every stripe lies in one shard group. Each bucket has ChainLanes stripes: a transaction
// appends a bucket's transfers to a lane no other transaction holds when one is free
// (ledger_chain_lane) and holds at most one head per environment and bucket. A transfer
// written alone is linked at commit by a deferred constraint trigger, so the heads are the
// last locks its transaction takes, held only while it commits; a pipeline batch links its
// transfers itself, set-wise, in the statement that writes them, just before its COMMIT.
// Changing the counts needs a migration (new head rows); links keep their stripe.
const (
	ChainStripesBefore = 16
	ChainBuckets       = 32
	ChainLanes         = 4
	// ChainStripes is how many stripes each environment has.
	ChainStripes = ChainStripesBefore + ChainBuckets*ChainLanes
)

// ChainBucketOfStripe is the bucket a stripe belongs to, or -1 for an environment-wide
// stripe of before.
func ChainBucketOfStripe(stripe int) int {
	if stripe < ChainStripesBefore {
		return -1
	}
	return (stripe - ChainStripesBefore) / ChainLanes
}

// transferByReferenceSQL finds a reference among the homes its transfer can have ($3).
const transferByReferenceSQL = `SELECT ` + transferColumns + `
FROM ledger_transfers t WHERE t.environment = $1 AND t.reference = $2 AND t.home_tenant_id = ANY($3::text[])
ORDER BY t.home_tenant_id LIMIT 1`

// transferByReferenceAnyHomeSQL finds a reference whatever its home (mustReplay).
const transferByReferenceAnyHomeSQL = `SELECT ` + transferColumns + `
FROM ledger_transfers t WHERE t.environment = $1 AND t.reference = $2`

// lockTransferSQL locks the target transfer in its home ($4) and, in the same round trip,
// looks the new transfer's reference up ($2, $3) in that home: step 2 of the protocol rides
// along with step 3. A hold's post or void has the hold's home; a reversal whose home differs
// from its target's (money between two tenants) is looked up again in its own homes.
const lockTransferSQL = `SELECT ` + transferColumns + `,
    coalesce((SELECT x.id FROM ledger_transfers x WHERE x.environment = $2 AND x.reference = $3
        AND x.home_tenant_id = $4), '')
FROM ledger_transfers t WHERE t.id = $1 AND t.home_tenant_id = $4 FOR UPDATE OF t`

// targetHomeSQL finds a target's home by its id alone, for a caller that could not name it
// (ledger.TransferSpec.TargetHome: the chain mirror's reversal of a dropped block's transfer,
// at reorg pace). It reads without locking; the lock that follows names the home.
const targetHomeSQL = `SELECT t.home_tenant_id FROM ledger_transfers t WHERE t.id = $1 AND t.environment = $2`

// targetHome is the home of spec's target: the caller's, else read by id (targetHomeSQL).
// found is false when no transfer has the id.
func (r ledgerRepo) targetHome(ctx context.Context, spec ledger.TransferSpec) (home string, found bool, err error) {
	if spec.TargetHome != "" {
		return spec.TargetHome, true, nil
	}
	err = r.q.QueryRowContext(ctx, targetHomeSQL, spec.TargetID(), string(spec.Environment)).Scan(&home)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return home, err == nil, ledgerError("find target", err)
}

// lockBalancesSQL[n] locks n balance rows in account-id order (ORDER BY runs below the
// locking step, so rows are locked in the order they are returned) and looks the reference
// up in the same round trip. The ids are n separate parameters rather than one array so that
// PostgreSQL can reuse a generic plan instead of planning every execution. It reads the
// balance rows alone: accounts are immutable and come from the account cache, which keeps
// the locked section (a hot account's throughput) short.
var lockBalancesSQL = func() []string {
	out := make([]string, ledger.MaxPostings+1)
	for n := 1; n <= ledger.MaxPostings; n++ {
		params := make([]string, n)
		for i := range params {
			params[i] = "$" + strconv.Itoa(i+4)
		}
		out[n] = `
SELECT b.account_id, b.posted, b.pending_debits, b.pending_credits, b.last_transfer_at,
    coalesce((SELECT x.id FROM ledger_transfers x WHERE x.environment = $1 AND x.reference = $2
        AND x.home_tenant_id = ANY($3::text[]) LIMIT 1), '')
FROM ledger_balances b
WHERE b.account_id IN (` + strings.Join(params, ", ") + `) AND b.home_tenant_id = ANY($3::text[])
ORDER BY b.account_id
FOR UPDATE`
	}
	return out
}()

// writeTransferSQL[n] writes an accepted transfer with n postings in one statement. x holds
// the postings with their balance changes, balances after and account's home ($16 on, nine per
// posting). t
// inserts the transfer and does nothing if a concurrent twin committed the same reference
// first, in which case every other part, all joined to t, does nothing either. p inserts the
// postings, b sets the new balances and r records the target's new state. The chain link is
// appended at commit by the ledger_transfers_link trigger, from canonical. One text per
// posting count (rather than arrays) lets PostgreSQL reuse a generic plan; the balance update
// names the postings' homes as constants too, which Citus routes to their shard. The transfer's home
// tenant (ledger.HomeOf) and the target's are the last two parameters. The transfer's
// posting arrays are built from the same parameters, in the postings' (account-id) order.
var writeTransferSQL = func() []string {
	out := make([]string, ledger.MaxPostings+1)
	for n := 2; n <= ledger.MaxPostings; n++ {
		rows, accounts, amounts, homes := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		for i := range rows {
			p := 16 + 9*i
			rows[i] = fmt.Sprintf("($%d::text, $%d::int8, $%d::int8, $%d::int8, $%d::int8, $%d::int8, $%d::int8, $%d::int8, $%d::text)",
				p, p+1, p+2, p+3, p+4, p+5, p+6, p+7, p+8)
			accounts[i], amounts[i], homes[i] = fmt.Sprintf("$%d::text", p), fmt.Sprintf("$%d::int8", p+1), fmt.Sprintf("$%d::text", p+8)
		}
		out[n] = `
WITH x (account_id, amount, posted_delta, pending_debits_delta, pending_credits_delta, posted_after,
        pending_debits_after, pending_credits_after, home) AS (
    VALUES ` + strings.Join(rows, ",\n        ") + `
), t AS (
    INSERT INTO ledger_transfers (id, environment, reference, type, asset, pending_id, reversed_id, amount,
        expires_at, metadata, created_at, status, canonical, posting_accounts, posting_amounts, home_tenant_id)
    VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::int8, $9::timestamptz,
        $10::jsonb, $11::timestamptz, $12::text, $13::bytea,
        ARRAY[` + strings.Join(accounts, ", ") + `], ARRAY[` + strings.Join(amounts, ", ") + `],
        $` + strconv.Itoa(16+9*n) + `::text)
    ON CONFLICT DO NOTHING
    RETURNING id, sequence
), p AS (
    INSERT INTO ledger_postings (transfer_id, account_id, sequence, created_at, amount, posted_delta,
        pending_debits_delta, pending_credits_delta, posted_after, pending_debits_after, pending_credits_after,
        home_tenant_id, transfer_home_tenant_id)
    SELECT t.id, x.account_id, t.sequence, $11::timestamptz, x.amount, x.posted_delta, x.pending_debits_delta,
        x.pending_credits_delta, x.posted_after, x.pending_debits_after, x.pending_credits_after, x.home,
        $` + strconv.Itoa(16+9*n) + `::text
    FROM t, x
), b AS (
    UPDATE ledger_balances bl SET posted = x.posted_after, pending_debits = x.pending_debits_after,
        pending_credits = x.pending_credits_after, last_transfer_at = $11::timestamptz
    FROM t, x WHERE bl.account_id = x.account_id AND bl.home_tenant_id = x.home
        AND bl.home_tenant_id = ANY(ARRAY[` + strings.Join(homes, ", ") + `])
), r AS (
    UPDATE ledger_transfers tg SET status = $15::text, resolved_by = t.id
    FROM t WHERE tg.id = $14::text AND tg.home_tenant_id = $` + strconv.Itoa(17+9*n) + `::text
)
SELECT t.sequence FROM t`
	}
	return out
}()

// Post records a transfer following the ledger package's store protocol. See ports.LedgerRepo.
// The reference lookup rides along with the first locking read, so a new transfer costs two
// round trips (three with a target): lock and look up, then write.
func (r ledgerRepo) Post(ctx context.Context, now time.Time, spec ledger.TransferSpec) (ledger.Transfer, bool, error) {
	if r.u != nil {
		return r.postBatched(ctx, now, spec)
	}
	if err := spec.Validate(); err != nil {
		return ledger.Transfer{}, false, err
	}
	if err := storableMetadata(spec.Metadata); err != nil {
		return ledger.Transfer{}, false, err
	}
	in, pending, recorded, err := r.lockAndLoad(ctx, now, spec)
	if err != nil {
		return ledger.Transfer{}, false, err
	}
	homes := homesOf(in.Accounts)
	if recorded {
		return r.mustReplay(ctx, spec, homes)
	}
	res, err := ledger.Apply(in)
	if err != nil {
		// A twin may have committed this reference while we waited for its locks (after our
		// lookup's snapshot): then its replay is the answer, not this refusal.
		if t, found, rerr := r.replay(ctx, spec, homes); found || rerr != nil {
			return t, found && rerr == nil, rerr
		}
		return ledger.Transfer{}, false, err
	}
	written, err := r.write(ctx, res, pending, in.Accounts)
	if err != nil {
		return ledger.Transfer{}, false, err
	}
	if !written { // a concurrent twin committed this reference first
		return r.mustReplay(ctx, spec, homes)
	}
	return res.Transfer, false, nil
}

// replay looks the reference up among homes (homesOf the transfer's accounts) and, when it
// is recorded, answers with ledger.ReplayOrConflict: the recorded transfer, or
// LEDGER_REFERENCE_CONFLICT.
func (r ledgerRepo) replay(ctx context.Context, spec ledger.TransferSpec, homes []string) (ledger.Transfer, bool, error) {
	if r.citus && len(homes) > 1 {
		// One home at a time, in the statement's order (homes are sorted): the lookup over
		// several homes is a multi-shard read on Citus (a retried sweep's replay).
		for _, h := range homes {
			if t, found, err := r.replay(ctx, spec, []string{h}); found || err != nil {
				return t, found, err
			}
		}
		return ledger.Transfer{}, false, nil
	}
	stored, _, err := scanTransfer(r.q.QueryRowContext(ctx, transferByReferenceSQL, string(spec.Environment), spec.Reference, homes))
	if errors.Is(err, sql.ErrNoRows) {
		return ledger.Transfer{}, false, nil
	}
	return replayStored(spec, stored, err)
}

// replayStored answers with a stored transfer found under spec's reference.
func replayStored(spec ledger.TransferSpec, stored ledger.StoredTransfer, err error) (ledger.Transfer, bool, error) {
	if err != nil {
		return ledger.Transfer{}, false, ledgerError("find reference", err)
	}
	t, err := ledger.ReplayOrConflict(spec, stored.Transfer)
	return t, true, err
}

// mustReplay answers a reference known to be recorded. A reference taken in none of the transfer's homes was taken for other accounts' money: the
// one lookup by reference alone finds it, to answer LEDGER_REFERENCE_CONFLICT.
func (r ledgerRepo) mustReplay(ctx context.Context, spec ledger.TransferSpec, homes []string) (ledger.Transfer, bool, error) {
	t, found, err := r.replay(ctx, spec, homes)
	if err == nil && !found {
		stored, _, serr := scanTransfer(r.q.QueryRowContext(ctx, transferByReferenceAnyHomeSQL, string(spec.Environment), spec.Reference))
		if !errors.Is(serr, sql.ErrNoRows) {
			t, found, err = replayStored(spec, stored, serr)
		}
	}
	if err == nil && !found {
		err = core.E(core.CodeInternal, "ledger: reference %s was recorded but cannot be read", spec.Reference)
	}
	return t, found && err == nil, err
}

// lockTarget locks spec's target in its home and looks spec's reference up there: the target
// (nil when there is none of that id in that home) and the id of a transfer already recorded
// under the reference ("" when none is).
func (r ledgerRepo) lockTarget(ctx context.Context, spec ledger.TransferSpec) (*ledger.StoredTransfer, string, error) {
	home, found, err := r.targetHome(ctx, spec)
	if err != nil || !found {
		return nil, "", err
	}
	var existing string
	stored, _, err := scanTransfer(extraScanner{r.q.QueryRowContext(ctx, lockTransferSQL, spec.TargetID(), string(spec.Environment),
		spec.Reference, home), []any{&existing}})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", ledgerError("lock target", err)
	}
	return &stored, existing, nil
}

// lockAndLoad takes the locks in the protocol's order (target transfer, then balance rows by
// account id), looking the reference up on the way, and returns Apply's input with the hold a
// POST_PENDING posts. recorded reports a reference that is already recorded. The accounts are
// loaded first (from the cache, as a rule): their homes name the rows every statement after
// reads and writes.
func (r ledgerRepo) lockAndLoad(ctx context.Context, now time.Time, spec ledger.TransferSpec) (in ledger.ApplyInput, pending *ledger.Transfer, recorded bool, err error) {
	in = ledger.ApplyInput{Spec: spec, TransferID: core.NewID(core.PrefixTransfer), Now: now.UTC().Truncate(time.Microsecond),
		Accounts: map[string]ledger.Account{}, Balances: map[string]ledger.Balance{}}
	var target *ledger.Transfer
	if spec.TargetID() != "" {
		stored, existing, err := r.lockTarget(ctx, spec)
		switch {
		case err != nil:
			return in, nil, false, err
		case stored == nil:
		case existing != "":
			return in, nil, true, r.loadAccounts(ctx, ledger.InvolvedAccountIDs(spec, &stored.Transfer), in.Accounts)
		default:
			in.Target, target = stored, &stored.Transfer
			in.Now = latest(in.Now, stored.Transfer.CreatedAt)
		}
	}
	ids := ledger.InvolvedAccountIDs(spec, target)
	existing, err := r.lockBalances(ctx, spec, ids, &in)
	if err != nil || existing {
		return in, nil, existing, err
	}
	if len(in.Balances) == 0 { // nothing was locked, so nothing looked the reference up
		if _, found, err := r.replay(ctx, spec, homesOf(in.Accounts)); found || err != nil {
			return in, nil, found, err
		}
	}
	if spec.Type == ledger.TypePostPending {
		pending = target
	}
	return in, pending, false, nil
}

// lockBalances locks and loads the balance rows of ids into in, and reports whether the
// reference is already recorded.
func (r ledgerRepo) lockBalances(ctx context.Context, spec ledger.TransferSpec, ids []string, in *ledger.ApplyInput) (bool, error) {
	if len(ids) == 0 || len(ids) >= len(lockBalancesSQL) {
		return false, nil
	}
	if err := r.loadAccounts(ctx, ids, in.Accounts); err != nil {
		return false, err
	}
	homes := homesOf(in.Accounts)
	if !r.citus || len(homes) <= 1 {
		return r.lockBalancesIn(ctx, spec, ids, homes, in)
	}
	// On Citus a FOR UPDATE stays on one shard: a transfer across homes (a sweep) locks each
	// home's rows in turn, homes in order and rows in account-id order within each.
	recorded := false
	for _, h := range homes {
		var own []string
		for _, id := range ids {
			if in.Accounts[id].Home() == h {
				own = append(own, id)
			}
		}
		if len(own) == 0 {
			continue
		}
		found, err := r.lockBalancesIn(ctx, spec, own, []string{h}, in)
		if err != nil {
			return false, err
		}
		recorded = recorded || found
	}
	return recorded, nil
}

// lockBalancesIn runs lockBalancesSQL for ids, looking the reference up in homes.
func (r ledgerRepo) lockBalancesIn(ctx context.Context, spec ledger.TransferSpec, ids, homes []string, in *ledger.ApplyInput) (bool, error) {
	args := make([]any, 0, len(ids)+3)
	args = append(args, string(spec.Environment), spec.Reference, homes)
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := r.q.QueryContext(ctx, lockBalancesSQL[len(ids)], args...)
	if err != nil {
		return false, ledgerError("lock balances", err)
	}
	defer rows.Close()
	recorded := false
	for rows.Next() {
		var id, existing string
		var b ledger.Balance
		var lastAt sql.NullTime
		if err := rows.Scan(&id, &b.Posted, &b.PendingDebits, &b.PendingCredits, &lastAt, &existing); err != nil {
			return false, ledgerError("lock balances", err)
		}
		in.Balances[id] = b
		if lastAt.Valid {
			in.Now = latest(in.Now, lastAt.Time.UTC())
		}
		recorded = recorded || existing != ""
	}
	return recorded, ledgerError("lock balances", rows.Err())
}

// latest keeps each account's history ordered in time: a transfer is never created before the
// latest transfer of its accounts (or its target), even when its "now" was read earlier.
func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// write runs writeTransferSQL for an accepted result over accounts (on Citus, writeTransferCitus).
// written is false when a concurrent twin holds the reference.
func (r ledgerRepo) write(ctx context.Context, res ledger.Result, pending *ledger.Transfer, accounts map[string]ledger.Account) (bool, error) {
	deltas, err := ledger.Effects(res.Transfer, pending)
	if err != nil {
		return false, err
	}
	if r.citus {
		return writeTransferCitus(ctx, r.q, res, deltas, accounts)
	}
	args, err := writeArgs(res, deltas, accounts)
	if err != nil {
		return false, err
	}
	var sequence int64
	err = r.q.QueryRowContext(ctx, writeTransferSQL[len(res.Transfer.Postings)], args...).Scan(&sequence)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, ledgerError("write transfer", err)
}

// writeArgs lays out writeTransferSQL's parameters: the transfer (transferRowOf), the target's
// new state, nine per posting in account-id order, the transfer's home and the target's.
func writeArgs(res ledger.Result, deltas []ledger.Delta, accounts map[string]ledger.Account) ([]any, error) {
	t := res.Transfer
	n := len(t.Postings)
	if n < 2 || n > ledger.MaxPostings || len(deltas) != n || len(res.Balances) != n {
		return nil, core.E(core.CodeInternal, "ledger: %s has %d postings, %d deltas, %d balances", t.ID, n, len(deltas), len(res.Balances))
	}
	row, err := transferRowOf(res)
	if err != nil {
		return nil, err
	}
	var targetID, targetStatus, targetHome any
	if res.Target != nil {
		targetID, targetStatus = res.Target.Transfer.ID, string(res.Target.State.Status)
		targetHome = ledger.HomeOf(res.Target.Transfer, accounts)
	}
	args := make([]any, 0, 17+9*n)
	args = append(args, row.id, row.environment, row.reference, row.typ, row.asset, row.pendingID,
		row.reversedID, row.amount, row.expiresAt, row.metadata, row.createdAt, row.status,
		row.canonical, targetID, targetStatus)
	for i, p := range t.Postings {
		d, after := deltas[i], res.Balances[p.AccountID]
		if d.AccountID != p.AccountID {
			return nil, core.E(core.CodeInternal, "ledger: deltas of %s are not in posting order", t.ID)
		}
		args = append(args, p.AccountID, p.Amount, d.Posted, d.PendingDebits, d.PendingCredits,
			after.Posted, after.PendingDebits, after.PendingCredits, accounts[p.AccountID].Home())
	}
	return append(args, row.home, targetHome), nil
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}
