package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// The ledger store. It writes with hand-written SQL and server-side parameters through the
// transaction's database/sql handle rather than Bun's query builder: Bun interpolates
// arguments into the SQL text, so every transfer would be a new statement for pgx to prepare,
// while fixed SQL texts are prepared once per connection and cost one round trip each. The
// ledger's hot path is four round trips: BEGIN, one lookup, one locking read, one write, and
// COMMIT (five with a target transfer to lock).

var (
	_ ports.LedgerRepo    = ledgerRepo{}
	_ ports.LedgerReports = ledgerRepo{}
)

// ledgerRepo implements ports.LedgerRepo and ports.LedgerReports over one transaction.
type ledgerRepo struct {
	q     txQuerier
	u     *unitLedger // the unit's layer of a pipeline batch (ledger_batch.go), nil outside one
	citus bool        // the reports read the ledger in the shapes Citus plans (ledger_reports_citus.go)
}

// onCitus marks the repository as reading a Citus coordinator.
func (r ledgerRepo) onCitus(citus bool) ledgerRepo {
	r.citus = citus
	return r
}

// newLedgerRepo binds the ledger store to the unit of work's transaction (or savepoint, which
// shares the transaction's connection).
func newLedgerRepo(db bun.IDB) ledgerRepo {
	btx, ok := db.(bun.Tx)
	if !ok || btx.Tx == nil {
		panic("postgres: the ledger store runs only inside a unit of work (Store.InTx)")
	}
	return ledgerRepo{q: txQuerier{btx.Tx}}
}

// txQuerier runs the ledger's statements on a transaction and, inside a pipeline batch, opens
// the unit's savepoint before its first statement and notes a statement that gave up waiting
// for a lock (pipeline.go) whatever the caller then makes of its error.
type txQuerier struct{ tx *sql.Tx }

func (q txQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	enterSQLFor(ctx)
	rows, err := q.tx.QueryContext(ctx, query, args...)
	noteLockWait(ctx, err)
	return rows, err
}

func (q txQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	enterSQLFor(ctx)
	row := q.tx.QueryRowContext(ctx, query, args...)
	noteLockWait(ctx, row.Err())
	return row
}

func (q txQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	enterSQLFor(ctx)
	res, err := q.tx.ExecContext(ctx, query, args...)
	noteLockWait(ctx, err)
	return res, err
}

// typeMap scans Postgres arrays through database/sql.
var typeMap = pgtype.NewMap()

// Constraint names the store translates (docs/architecture.md: errors by constraint name).
const (
	constraintNonNegative = "ledger_balances_non_negative_check"
	constraintAccountRef  = "ledger_accounts_reference_key"
)

// ledgerError translates a Postgres error into a domain error where one applies. Anything
// else keeps its cause (wrapped), so Store.InTx still sees serialization failures and
// deadlocks and retries them.
func ledgerError(op string, err error) error {
	if err == nil {
		return nil
	}
	var de *core.Error
	if errors.As(err, &de) {
		return err
	}
	code, constraint := constraintOf(err)
	if code == "23514" && constraint == constraintNonNegative {
		return core.E(core.CodeInsufficientFunds, "an account that may not go negative would: the transfer was refused")
	}
	return fmt.Errorf("ledger %s: %w", op, err)
}

const accountColumns = `a.id, a.environment, a.asset, coalesce(a.tenant_id, ''), a.kind, a.reference, a.non_negative, a.created_at`

type rowScanner interface{ Scan(dest ...any) error }

// scanAccount reads accountColumns and checks the row as a new account would be checked.
func scanAccount(row rowScanner, extra ...any) (ledger.Account, error) {
	var a ledger.Account
	var env string
	dest := append([]any{&a.ID, &env, &a.Asset, &a.TenantID, &a.Kind, &a.Reference, &a.NonNegative, &a.CreatedAt}, extra...)
	if err := row.Scan(dest...); err != nil {
		return ledger.Account{}, err
	}
	a.Environment = core.Environment(env)
	a.CreatedAt = a.CreatedAt.UTC()
	if err := a.Validate(); err != nil {
		return ledger.Account{}, core.E(core.CodeInternal, "ledger: stored account %s is invalid: %v", a.ID, err)
	}
	return a, nil
}

// OpenAccounts gets or creates accounts. Existing accounts cost one query; missing ones are
// inserted with ON CONFLICT DO NOTHING (a concurrent opener of the same reference wins and
// this call reads its row) together with their zero balance rows.
func (r ledgerRepo) OpenAccounts(ctx context.Context, now time.Time, specs ...ledger.AccountSpec) ([]ledger.Account, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	found, hit := findsOf(ctx).cached(specs)
	if !hit {
		var err error
		if found, err = r.accountsByReference(ctx, specs); err != nil {
			return nil, err
		}
	}
	if len(found) < len(specs) {
		if err := r.insertAccounts(ctx, now, specs, found); err != nil {
			return nil, err
		}
		var err error
		if found, err = r.accountsByReference(ctx, specs); err != nil {
			return nil, err
		}
		if len(found) < len(specs) { // a reference taken in another home: answered as a conflict below
			if found, err = r.accountsByReferenceAnyHome(ctx, specs); err != nil {
				return nil, err
			}
		}
	}
	out := make([]ledger.Account, len(specs))
	for i, spec := range specs {
		a, ok := found[accountKeyOf(spec)]
		if !ok {
			return nil, core.E(core.CodeInternal, "ledger: account %s was neither found nor created", spec.Reference)
		}
		if a.Spec() != spec {
			return nil, core.E(core.CodeLedgerReferenceConflict, "account %s already exists with another kind, tenant or sign rule", spec.Reference).
				WithDetails(map[string]any{"reference": spec.Reference, "accountId": a.ID})
		}
		out[i] = a
	}
	return out, nil
}

const accountsByReferenceAnyHomeSQL = `
SELECT ` + accountColumns + `
FROM ledger_accounts a
JOIN unnest($1::text[], $2::text[], $3::text[]) AS k(environment, asset, reference)
  ON a.environment = k.environment AND a.asset = k.asset AND a.reference = k.reference`

// specHome is the home (ledger.Account.Home) of the account spec opens: with the reference,
// it names the account's row, so the lookup is routed to the home's shard on Citus.
func specHome(s ledger.AccountSpec) string {
	return ledger.Account{TenantID: s.TenantID, Reference: s.Reference}.Home()
}

type accountKey struct {
	env              core.Environment
	asset, reference string
}

func accountKeyOf(s ledger.AccountSpec) accountKey {
	return accountKey{s.Environment, s.Asset, s.Reference}
}

const accountsByReferenceSQL = `
SELECT ` + accountColumns + `
FROM ledger_accounts a
JOIN unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS k(environment, asset, reference, home)
  ON a.environment = k.environment AND a.asset = k.asset AND a.reference = k.reference
  AND a.home_tenant_id = k.home
WHERE a.home_tenant_id = ANY($4::text[])`

func (r ledgerRepo) accountsByReference(ctx context.Context, specs []ledger.AccountSpec) (map[accountKey]ledger.Account, error) {
	envs, assets, refs := make([]string, len(specs)), make([]string, len(specs)), make([]string, len(specs))
	homes := make([]string, len(specs))
	for i, s := range specs {
		envs[i], assets[i], refs[i], homes[i] = string(s.Environment), s.Asset, s.Reference, specHome(s)
	}
	rows, err := r.q.QueryContext(ctx, accountsByReferenceSQL, envs, assets, refs, homes)
	return r.scanFoundAccounts(ctx, rows, err, len(specs))
}

// accountsByReferenceAnyHome finds accounts by reference whatever their home: only after an
// opener found a reference taken in none of its homes, which is another tenant's account.
func (r ledgerRepo) accountsByReferenceAnyHome(ctx context.Context, specs []ledger.AccountSpec) (map[accountKey]ledger.Account, error) {
	envs, assets, refs := make([]string, len(specs)), make([]string, len(specs)), make([]string, len(specs))
	for i, s := range specs {
		envs[i], assets[i], refs[i] = string(s.Environment), s.Asset, s.Reference
	}
	rows, err := r.q.QueryContext(ctx, accountsByReferenceAnyHomeSQL, envs, assets, refs)
	return r.scanFoundAccounts(ctx, rows, err, len(specs))
}

func (r ledgerRepo) scanFoundAccounts(ctx context.Context, rows *sql.Rows, err error, n int) (map[accountKey]ledger.Account, error) {
	if err != nil {
		return nil, ledgerError("find accounts", err)
	}
	defer rows.Close()
	out := make(map[accountKey]ledger.Account, n)
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return nil, err
		}
		cachedAccounts.put(a)
		findsOf(ctx).note(a)
		out[accountKey{a.Environment, a.Asset, a.Reference}] = a
	}
	return out, ledgerError("find accounts", rows.Err())
}

const insertAccountsSQL = `
WITH ins AS (
    INSERT INTO ledger_accounts (id, environment, asset, tenant_id, kind, reference, non_negative, created_at,
        home_tenant_id)
    SELECT k.id, k.environment, k.asset, nullif(k.tenant_id, ''), k.kind, k.reference, k.non_negative, $8, k.home
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bool[], $9::text[])
         AS k(id, environment, asset, tenant_id, kind, reference, non_negative, home)
    ORDER BY k.environment, k.asset, k.reference
    ON CONFLICT DO NOTHING
    RETURNING id, non_negative, home_tenant_id
)
INSERT INTO ledger_balances (account_id, non_negative, home_tenant_id) SELECT id, non_negative, home_tenant_id FROM ins
RETURNING account_id, home_tenant_id`

// insertAccountHomesSQL writes the lookup rows of accounts just opened ($1 ids, $2 homes): how
// a reader given only an account's id finds its home.
const insertAccountHomesSQL = `INSERT INTO ledger_account_homes (account_id, home_tenant_id)
SELECT k.id, k.home FROM unnest($1::text[], $2::text[]) AS k(id, home)`

// insertAccounts creates the accounts of specs missing from found, validated as NewAccount
// validates them. Rows are inserted in reference order so two openers never wait on each
// other crosswise.
func (r ledgerRepo) insertAccounts(ctx context.Context, now time.Time, specs []ledger.AccountSpec, found map[accountKey]ledger.Account) error {
	var ids, envs, assets, tenants, kinds, refs, homes []string
	var nonNegative []bool
	seen := map[accountKey]bool{}
	for _, spec := range specs {
		k := accountKeyOf(spec)
		if _, ok := found[k]; ok || seen[k] {
			continue
		}
		seen[k] = true
		a, err := ledger.NewAccount(core.NewID(core.PrefixAccount), spec, now)
		if err != nil {
			return err
		}
		ids, envs, assets = append(ids, a.ID), append(envs, string(a.Environment)), append(assets, a.Asset)
		tenants, kinds, refs = append(tenants, a.TenantID), append(kinds, a.Kind), append(refs, a.Reference)
		nonNegative, homes = append(nonNegative, a.NonNegative), append(homes, a.Home())
	}
	rows, err := r.q.QueryContext(ctx, insertAccountsSQL, ids, envs, assets, tenants, kinds, refs, nonNegative,
		now.UTC().Truncate(time.Microsecond), homes)
	if err != nil {
		return ledgerError("open accounts", err)
	}
	inserted, insertedHomes, err := scanIDHomes(rows)
	if err != nil || len(inserted) == 0 {
		return ledgerError("open accounts", err)
	}
	_, err = r.q.ExecContext(ctx, insertAccountHomesSQL, inserted, insertedHomes)
	return ledgerError("open accounts", err)
}

// scanIDHomes reads rows of (id, home), closing them.
func scanIDHomes(rows *sql.Rows) (ids, homes []string, err error) {
	defer rows.Close()
	for rows.Next() {
		var id, home string
		if err := rows.Scan(&id, &home); err != nil {
			return nil, nil, err
		}
		ids, homes = append(ids, id), append(homes, home)
	}
	return ids, homes, rows.Err()
}

// accountCache keeps the accounts this process has read. An account never changes once
// opened and its id is unique (UUIDv7), so an entry cannot go stale; the cache spares every
// transfer's locking read a join. It is bounded: when full, it starts over.
type accountCache struct {
	mu sync.RWMutex
	m  map[string]ledger.Account
}

const maxCachedAccounts = 100_000

var cachedAccounts = &accountCache{m: map[string]ledger.Account{}}

func (c *accountCache) get(id string) (ledger.Account, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	a, ok := c.m[id]
	return a, ok
}

func (c *accountCache) put(a ledger.Account) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCachedAccounts {
		c.m = make(map[string]ledger.Account, 1024)
	}
	c.m[a.ID] = a
}

// accountHomesSQL reads the homes of accounts by id from their lookup rows
// (ledger_account_homes, written with each account): an account id does not tell its home,
// and the home names the account's row.
const accountHomesSQL = `SELECT h.account_id, h.home_tenant_id FROM ledger_account_homes h WHERE h.account_id = ANY($1::text[])`

// accountsByIDSQL reads accounts by id in the homes their lookup rows named.
const accountsByIDSQL = `SELECT ` + accountColumns + ` FROM ledger_accounts a
WHERE a.id = ANY($1::text[]) AND a.home_tenant_id = ANY($2::text[])`

// loadAccounts fills into with the accounts of ids that exist, from the cache or, for the
// accounts it lacks, from the database (checked as new accounts are). Each process reads an
// account once (the cache keeps it).
func (r ledgerRepo) loadAccounts(ctx context.Context, ids []string, into map[string]ledger.Account) error {
	var missing []string
	for _, id := range ids {
		if _, ok := into[id]; ok {
			continue
		}
		if a, ok := cachedAccounts.get(id); ok {
			into[id] = a
		} else {
			missing = append(missing, id)
		}
	}
	return readAccountsByID(ctx, r.q, missing, func(a ledger.Account) { into[a.ID] = a })
}

// readAccountsByID reads the accounts of ids that exist, each put into the account cache and
// handed to found: first their homes from their lookup rows, then the accounts in those homes,
// two statements that each name their rows' distribution column (one each, on Citus, for a
// tenant's accounts). Accounts without a lookup row do not exist.
func readAccountsByID(ctx context.Context, q txQuerier, ids []string, found func(ledger.Account)) error {
	if len(ids) == 0 {
		return nil
	}
	homes, err := accountHomes(ctx, q, ids)
	if err != nil || len(homes) == 0 {
		return err
	}
	rows, err := q.QueryContext(ctx, accountsByIDSQL, ids, homes)
	if err != nil {
		return ledgerError("load accounts", err)
	}
	defer rows.Close()
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return err
		}
		cachedAccounts.put(a)
		found(a)
	}
	return ledgerError("load accounts", rows.Err())
}

// accountHomes is the distinct homes of the accounts of ids that have a lookup row.
func accountHomes(ctx context.Context, q txQuerier, ids []string) ([]string, error) {
	rows, err := q.QueryContext(ctx, accountHomesSQL, ids)
	if err != nil {
		return nil, ledgerError("load account homes", err)
	}
	_, all, err := scanIDHomes(rows)
	slices.Sort(all)
	return slices.Compact(all), ledgerError("load account homes", err)
}

// homesOfAccounts is the distinct homes of the accounts of ids that exist (from the account
// cache, or their lookup rows): what a read of their balance or posting rows names.
func (r ledgerRepo) homesOfAccounts(ctx context.Context, ids []string) ([]string, error) {
	accounts := make(map[string]ledger.Account, len(ids))
	if err := r.loadAccounts(ctx, ids, accounts); err != nil {
		return nil, err
	}
	homes := make([]string, 0, 1)
	for _, a := range accounts {
		homes = append(homes, a.Home())
	}
	slices.Sort(homes)
	return slices.Compact(homes), nil
}

// homesOf is every home a transfer over accounts can have: ledger.HomeOf picks one of its
// accounts' homes ("" only when every account's home is ""), so these are the homes a
// reference lookup names when the transfer's own home is not known yet, and the homes of the
// balance rows it locks, sorted and without repeats. "" is not added for a tenant's transfer:
// on Citus it would add the platform accounts' shard group to the tenant's unit. A reference
// recorded in another home is still found, by the write's key violation (mustReplay).
func homesOf(accounts map[string]ledger.Account) []string {
	var homes []string
	for _, a := range accounts {
		if h := a.Home(); !slices.Contains(homes, h) {
			homes = append(homes, h)
		}
	}
	slices.Sort(homes)
	return homes
}

// FindAccountByReference returns an existing account of home, or ACCOUNT_NOT_FOUND: the
// reference and the home name the account's row.
func (r ledgerRepo) FindAccountByReference(ctx context.Context, env core.Environment, asset, home, reference string) (ledger.Account, error) {
	rows, err := r.q.QueryContext(ctx, accountsByReferenceSQL, []string{string(env)}, []string{asset}, []string{reference}, []string{home})
	found, err := r.scanFoundAccounts(ctx, rows, err, 1)
	if err != nil {
		return ledger.Account{}, err
	}
	a, ok := found[accountKey{env, asset, reference}]
	if !ok {
		return ledger.Account{}, core.NotFound(core.CodeAccountNotFound, "account "+reference)
	}
	return a, nil
}

// transferColumns reads a transfer with its postings (the row's two arrays, in account-id
// order, migration 000050) and its state.
const transferColumns = `t.id, t.sequence, t.environment, t.reference, t.type, t.asset,
    coalesce(t.pending_id, ''), coalesce(t.reversed_id, ''), t.amount, t.expires_at, t.metadata,
    t.created_at, t.status, coalesce(t.resolved_by, ''), t.posting_accounts, t.posting_amounts`

// scanTransfer reads transferColumns.
func scanTransfer(row rowScanner) (ledger.StoredTransfer, int64, error) {
	var (
		t                ledger.Transfer
		sequence         int64
		env, typ, status string
		resolvedBy       string
		expiresAt        sql.NullTime
		metadata         []byte
		accountIDs       []string
		amounts          []int64
	)
	err := row.Scan(&t.ID, &sequence, &env, &t.Reference, &typ, &t.Asset, &t.PendingID, &t.ReversedID, &t.Amount,
		&expiresAt, &metadata, &t.CreatedAt, &status, &resolvedBy,
		typeMap.SQLScanner(&accountIDs), typeMap.SQLScanner(&amounts))
	if err != nil {
		return ledger.StoredTransfer{}, 0, err
	}
	t.Environment, t.Type = core.Environment(env), ledger.TransferType(typ)
	t.CreatedAt = t.CreatedAt.UTC()
	if expiresAt.Valid {
		t.ExpiresAt = expiresAt.Time.UTC()
	}
	if err := json.Unmarshal(metadata, &t.Metadata); err != nil {
		return ledger.StoredTransfer{}, 0, core.E(core.CodeInternal, "ledger: metadata of %s: %v", t.ID, err)
	}
	if len(t.Metadata) == 0 {
		t.Metadata = nil
	}
	if len(accountIDs) != len(amounts) || len(accountIDs) < 2 {
		return ledger.StoredTransfer{}, 0, core.E(core.CodeInternal, "ledger: transfer %s has %d postings", t.ID, len(accountIDs))
	}
	t.Postings = make([]ledger.Posting, len(accountIDs))
	for i := range accountIDs {
		t.Postings[i] = ledger.Posting{AccountID: accountIDs[i], Amount: amounts[i]}
	}
	state := ledger.TransferState{Status: ledger.TransferStatus(status), ResolvedByID: resolvedBy}
	return ledger.StoredTransfer{Transfer: t, State: state}, sequence, nil
}

const transferByIDSQL = `SELECT ` + transferColumns + ` FROM ledger_transfers t
WHERE t.id = $1 AND t.environment = $2 AND t.home_tenant_id = $3`

// Transfer returns a recorded transfer with its state, read in the home the caller names.
func (r ledgerRepo) Transfer(ctx context.Context, env core.Environment, home, id string) (ledger.StoredTransfer, error) {
	if r.u != nil {
		if err := r.u.flush(ctx); err != nil {
			return ledger.StoredTransfer{}, err
		}
	}
	st, _, err := scanTransfer(r.q.QueryRowContext(ctx, transferByIDSQL, id, string(env), home))
	if errors.Is(err, sql.ErrNoRows) {
		return ledger.StoredTransfer{}, core.NotFound(core.CodeTransferNotFound, "transfer "+id)
	}
	return st, ledgerError("load transfer", err)
}

// TransferByReference returns the transfer recorded under reference in home. See
// ports.LedgerRepo.
func (r ledgerRepo) TransferByReference(ctx context.Context, env core.Environment, home, reference string) (ledger.Transfer, error) {
	if r.u != nil {
		if err := r.u.flush(ctx); err != nil {
			return ledger.Transfer{}, err
		}
	}
	st, _, err := scanTransfer(r.q.QueryRowContext(ctx, transferByReferenceSQL, string(env), reference, []string{home}))
	if errors.Is(err, sql.ErrNoRows) {
		return ledger.Transfer{}, core.NotFound(core.CodeTransferNotFound, "transfer "+reference)
	}
	return st.Transfer, ledgerError("load transfer by reference", err)
}

const balancesSQL = `
SELECT b.account_id, b.posted, b.pending_debits, b.pending_credits
FROM ledger_balances b WHERE b.account_id = ANY($1::text[]) AND b.home_tenant_id = ANY($2::text[])`

// Balances returns current balances without locking, read in their accounts' homes (the
// account cache tells them; an account that does not exist has no balance).
func (r ledgerRepo) Balances(ctx context.Context, accountIDs []string) (map[string]ledger.Balance, error) {
	if r.u != nil {
		// In the batch's serial order, as a transfer is decided: the balances the units before
		// this one left.
		if !r.u.m.awaitTurn() {
			return nil, errRowsBusy
		}
		if out, ok := r.u.balancesKnown(accountIDs); ok {
			return out, nil
		}
		if err := r.u.flush(ctx); err != nil {
			return nil, err
		}
	}
	homes, err := r.homesOfAccounts(ctx, accountIDs)
	if err != nil {
		return nil, err
	}
	rows, err := r.q.QueryContext(ctx, balancesSQL, accountIDs, homes)
	if err != nil {
		return nil, ledgerError("read balances", err)
	}
	return scanBalances(rows, len(accountIDs), "read balances")
}

// scanBalances reads rows of (account id, posted, pending debits, pending credits) into
// validated balances by account, closing rows: the current balances and the balances as of an
// instant come back in the same shape, so one scan serves both.
func scanBalances(rows *sql.Rows, n int, op string) (map[string]ledger.Balance, error) {
	defer rows.Close()
	out := make(map[string]ledger.Balance, n)
	for rows.Next() {
		var id string
		var b ledger.Balance
		if err := rows.Scan(&id, &b.Posted, &b.PendingDebits, &b.PendingCredits); err != nil {
			return nil, err
		}
		if err := b.Validate(); err != nil {
			return nil, err
		}
		out[id] = b
	}
	return out, ledgerError(op, rows.Err())
}

// storableMetadata refuses metadata Postgres' jsonb cannot keep byte for byte (invalid UTF-8
// would be replaced and NUL refused), because the chain hash covers the exact bytes.
func storableMetadata(metadata map[string]string) error {
	f := core.FieldErrors{}
	for k, v := range metadata {
		if !utf8.ValidString(k) || !utf8.ValidString(v) || containsNUL(k) || containsNUL(v) {
			f.Add("metadata["+k+"]", "must be valid UTF-8 without NUL characters")
		}
	}
	return f.Err()
}

func containsNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}
