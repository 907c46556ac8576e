package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// The finance reads (ports.LedgerReports). A balance as of an instant and a statement's running
// balance are read from the postings, which keep each account's balance after every transfer;
// per account, transfer times never decrease with the sequence (see Post), so "the last posting
// at or before t" is well defined and is an index lookup on (account_id, created_at, sequence).

// openEnd is what a zero "to" means: no upper bound.
func openEnd(t time.Time) any { return nullTime(t) }

// openStart turns a zero "from" into the earliest instant Postgres stores, so one SQL text
// serves bounded and unbounded windows.
func openStart(t time.Time) time.Time {
	if t.IsZero() {
		return time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return t
}

const listAccountsSQL = `
SELECT ` + accountColumns + `, b.posted, b.pending_debits, b.pending_credits
FROM ledger_accounts a JOIN ledger_balances b ON b.account_id = a.id AND b.home_tenant_id = a.home_tenant_id
WHERE a.tenant_id = $1 AND a.home_tenant_id = $1 AND a.environment = $2 AND ($3 = '' OR a.kind = $3)
  AND ($4::timestamptz IS NULL OR a.created_at <= $4)
ORDER BY a.id LIMIT $5 OFFSET $6`

const countAccountsSQL = `
SELECT count(*) FROM ledger_accounts a
WHERE a.tenant_id = $1 AND a.home_tenant_id = $1 AND a.environment = $2 AND ($3 = '' OR a.kind = $3)
  AND ($4::timestamptz IS NULL OR a.created_at <= $4)`

// ListAccounts lists a tenant's accounts with their current balances, by id.
func (r ledgerRepo) ListAccounts(ctx context.Context, q ports.AccountQuery, page ports.Page) ([]ports.AccountBalance, int, error) {
	args := []any{q.TenantID, string(q.Environment), q.Kind, nullTime(q.CreatedAtOrBefore)}
	rows, err := r.q.QueryContext(ctx, listAccountsSQL, append(args, page.Take, page.Skip)...)
	if err != nil {
		return nil, 0, ledgerError("list accounts", err)
	}
	defer rows.Close()
	var out []ports.AccountBalance
	for rows.Next() {
		var b ledger.Balance
		a, err := scanAccount(rows, &b.Posted, &b.PendingDebits, &b.PendingCredits)
		if err != nil {
			return nil, 0, err
		}
		if err := b.Validate(); err != nil {
			return nil, 0, err
		}
		out = append(out, ports.AccountBalance{Account: a, Balance: b})
	}
	if err := rows.Err(); err != nil {
		return nil, 0, ledgerError("list accounts", err)
	}
	var total int
	err = r.q.QueryRowContext(ctx, countAccountsSQL, args...).Scan(&total)
	return out, total, ledgerError("count accounts", err)
}

const findAccountSQL = `
SELECT ` + accountColumns + `, b.posted, b.pending_debits, b.pending_credits
FROM ledger_accounts a JOIN ledger_balances b ON b.account_id = a.id AND b.home_tenant_id = a.home_tenant_id
WHERE a.id = $1 AND a.environment = $2 AND a.tenant_id = $3 AND a.home_tenant_id = $3`

// FindAccount returns a tenant's account; anyone else's answers ACCOUNT_NOT_FOUND.
func (r ledgerRepo) FindAccount(ctx context.Context, env core.Environment, tenantID, id string) (ports.AccountBalance, error) {
	var b ledger.Balance
	a, err := scanAccount(r.q.QueryRowContext(ctx, findAccountSQL, id, string(env), tenantID), &b.Posted, &b.PendingDebits, &b.PendingCredits)
	if errors.Is(err, sql.ErrNoRows) || tenantID == "" {
		return ports.AccountBalance{}, core.NotFound(core.CodeAccountNotFound, "account "+id)
	}
	if err != nil {
		return ports.AccountBalance{}, ledgerError("find account", err)
	}
	if err := b.Validate(); err != nil {
		return ports.AccountBalance{}, err
	}
	return ports.AccountBalance{Account: a, Balance: b}, nil
}

// balancesAsOfSQL reads, per account, the balance after its last transfer created at or
// before $2 ($3 = true) or strictly before it ($3 = false).
const balancesAsOfSQL = `
SELECT k.id, coalesce(p.posted_after, 0), coalesce(p.pending_debits_after, 0), coalesce(p.pending_credits_after, 0)
FROM unnest($1::text[]) AS k(id)
LEFT JOIN LATERAL (
    SELECT posted_after, pending_debits_after, pending_credits_after FROM ledger_postings
    WHERE account_id = k.id AND home_tenant_id = ANY($4::text[]) AND (created_at < $2 OR ($3 AND created_at = $2))
    ORDER BY created_at DESC, sequence DESC LIMIT 1
) p ON true`

// BalancesAsOf returns each account's balance as of instant (inclusive).
func (r ledgerRepo) BalancesAsOf(ctx context.Context, accountIDs []string, instant time.Time) (map[string]ledger.Balance, error) {
	return r.balancesAt(ctx, accountIDs, instant, true)
}

func (r ledgerRepo) balancesAt(ctx context.Context, accountIDs []string, instant time.Time, inclusive bool) (map[string]ledger.Balance, error) {
	if len(accountIDs) == 0 {
		// Nothing to read. The statement would name no home, and on Citus a read of the
		// postings that names no home is a multi-shard one, refused on the service's
		// connections (an empty account list as of an instant answered 500 there).
		return map[string]ledger.Balance{}, nil
	}
	homes, err := r.homesOfAccounts(ctx, accountIDs)
	if err != nil {
		return nil, err
	}
	rows, err := r.q.QueryContext(ctx, balancesAsOfSQL, accountIDs, instant.UTC(), inclusive, homes)
	if err != nil {
		return nil, ledgerError("balances as of", err)
	}
	return scanBalances(rows, len(accountIDs), "balances as of")
}

const statementLinesSQL = `
SELECT ` + transferColumns + `, p.amount, p.posted_delta, p.pending_debits_delta, p.pending_credits_delta,
    p.posted_after, p.pending_debits_after, p.pending_credits_after
FROM ledger_postings p JOIN ledger_transfers t ON t.id = p.transfer_id AND t.home_tenant_id = p.transfer_home_tenant_id
WHERE p.account_id = $1 AND p.home_tenant_id = $6 AND p.created_at >= $2 AND ($3::timestamptz IS NULL OR p.created_at < $3)
ORDER BY p.created_at, p.sequence LIMIT $4 OFFSET $5`

const statementCountSQL = `
SELECT count(*) FROM ledger_postings p
WHERE p.account_id = $1 AND p.home_tenant_id = $4 AND p.created_at >= $2 AND ($3::timestamptz IS NULL OR p.created_at < $3)`

// Statement returns a page of the account's history in [From, To) in time order, each line
// with the balance right after it, plus the balances just before From and just before To.
func (r ledgerRepo) Statement(ctx context.Context, q ports.StatementQuery, page ports.Page) (ports.Statement, error) {
	from, to := openStart(q.From), openEnd(q.To)
	var st ports.Statement
	homes, err := r.homesOfAccounts(ctx, []string{q.AccountID})
	if err != nil || len(homes) == 0 { // no such account: no history
		return st, err
	}
	lines := statementLinesSQL
	if r.citus {
		lines = statementLinesCitusSQL
	}
	rows, err := r.q.QueryContext(ctx, lines, q.AccountID, from, to, page.Take, page.Skip, homes[0])
	if err != nil {
		return st, ledgerError("statement", err)
	}
	defer rows.Close()
	for rows.Next() {
		line, err := scanStatementLine(rows, q.AccountID)
		if err != nil {
			return st, err
		}
		st.Lines = append(st.Lines, line)
	}
	if err := rows.Err(); err != nil {
		return st, ledgerError("statement", err)
	}
	if err := r.q.QueryRowContext(ctx, statementCountSQL, q.AccountID, from, to, homes[0]).Scan(&st.Total); err != nil {
		return st, ledgerError("statement", err)
	}
	ids := []string{q.AccountID}
	opening, err := r.balancesAt(ctx, ids, from, false)
	if err != nil {
		return st, err
	}
	closeAt, inclusive := q.To, false
	if closeAt.IsZero() {
		closeAt, inclusive = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), true
	}
	closing, err := r.balancesAt(ctx, ids, closeAt, inclusive)
	st.Opening, st.Closing = opening[q.AccountID], closing[q.AccountID]
	return st, err
}

// statementScanner reads transferColumns followed by the posting's amount, delta and after.
type statementScanner struct {
	rows rowScanner
	line ports.StatementLine
}

func (s *statementScanner) Scan(dest ...any) error {
	l := &s.line
	dest = append(dest, &l.Amount, &l.Delta.Posted, &l.Delta.PendingDebits, &l.Delta.PendingCredits,
		&l.After.Posted, &l.After.PendingDebits, &l.After.PendingCredits)
	return s.rows.Scan(dest...)
}

func scanStatementLine(rows rowScanner, accountID string) (ports.StatementLine, error) {
	s := &statementScanner{rows: rows}
	stored, sequence, err := scanTransfer(s)
	if err != nil {
		return ports.StatementLine{}, ledgerError("statement", err)
	}
	line := s.line
	line.Sequence, line.Transfer, line.State = sequence, stored.Transfer, stored.State
	line.Delta.AccountID = accountID
	return line, line.After.Validate()
}

const entryIDsSQL = `
WITH m AS (
    SELECT DISTINCT p.sequence, p.transfer_id, p.transfer_home_tenant_id
    FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id AND a.home_tenant_id = p.home_tenant_id
    WHERE a.tenant_id = $1 AND a.home_tenant_id = $1 AND p.home_tenant_id = $1 AND a.environment = $2 AND ($3 = '' OR p.account_id = $3)
      AND p.created_at >= $4 AND ($5::timestamptz IS NULL OR p.created_at < $5)
)
SELECT transfer_id, transfer_home_tenant_id, count(*) OVER () FROM m ORDER BY sequence LIMIT $6 OFFSET $7`

const entryCountSQL = `
SELECT count(DISTINCT p.transfer_id)
FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id AND a.home_tenant_id = p.home_tenant_id
WHERE a.tenant_id = $1 AND a.home_tenant_id = $1 AND p.home_tenant_id = $1 AND a.environment = $2 AND ($3 = '' OR p.account_id = $3)
  AND p.created_at >= $4 AND ($5::timestamptz IS NULL OR p.created_at < $5)`

// entryTransfersSQL reads transfers by id in the homes their postings named ($2, each home
// once): ids are unique by themselves, and the homes name the rows' distribution column.
const entryTransfersSQL = `SELECT ` + transferColumns + ` FROM ledger_transfers t
WHERE t.id = ANY($1::text[]) AND t.home_tenant_id = ANY($2::text[]) ORDER BY t.sequence`

// Entries returns the journal entries of a tenant (transfers touching its accounts) in sequence
// order, with every posting's account.
func (r ledgerRepo) Entries(ctx context.Context, q ports.EntryQuery, page ports.Page) ([]ports.JournalEntry, int, error) {
	args := []any{q.TenantID, string(q.Environment), q.AccountID, openStart(q.From), openEnd(q.To)}
	refs, total, err := r.entryIDs(ctx, args, page)
	if err != nil || len(refs) == 0 {
		return nil, total, err
	}
	ids, homes := refs.split()
	rows, err := r.q.QueryContext(ctx, entryTransfersSQL, ids, homes)
	if err != nil {
		return nil, 0, ledgerError("entries", err)
	}
	defer rows.Close()
	out := make([]ports.JournalEntry, 0, len(ids))
	for rows.Next() {
		stored, sequence, err := scanTransfer(rows)
		if err != nil {
			return nil, 0, ledgerError("entries", err)
		}
		out = append(out, ports.JournalEntry{Sequence: sequence, Transfer: stored.Transfer, State: stored.State, Accounts: map[string]ledger.Account{}})
	}
	if err := rows.Err(); err != nil {
		return nil, 0, ledgerError("entries", err)
	}
	transfers := make([]ledger.Transfer, len(out))
	for i := range out {
		transfers[i] = out[i].Transfer
	}
	accounts, err := r.accountsOfTransfers(ctx, transfers)
	for _, e := range out {
		for _, p := range e.Transfer.Postings {
			e.Accounts[p.AccountID] = accounts[p.AccountID]
		}
	}
	return out, total, err
}

// transferRef names a transfer's row: its id and its home (from the posting that named it).
type transferRef struct{ id, home string }

type transferRefs []transferRef

// split gives the ids, and each home once: what entryTransfersSQL reads by.
func (refs transferRefs) split() (ids, homes []string) {
	seen := map[string]bool{}
	for _, t := range refs {
		ids = append(ids, t.id)
		if !seen[t.home] {
			seen[t.home] = true
			homes = append(homes, t.home)
		}
	}
	return ids, homes
}

func (r ledgerRepo) entryIDs(ctx context.Context, args []any, page ports.Page) (transferRefs, int, error) {
	return pageWithTotal(ctx, r, "entries", entryIDsSQL, entryCountSQL, args, page, func(rows *sql.Rows, total *int) (transferRef, error) {
		var t transferRef
		err := rows.Scan(&t.id, &t.home, total)
		return t, err
	})
}

// accountsOfTransfers reads the accounts of transfers' postings, by id in their homes
// (readAccountsByID: their lookup rows, then the accounts).
func (r ledgerRepo) accountsOfTransfers(ctx context.Context, transfers []ledger.Transfer) (map[string]ledger.Account, error) {
	seen := map[string]bool{}
	var ids []string
	for _, t := range transfers {
		for _, p := range t.Postings {
			if !seen[p.AccountID] {
				seen[p.AccountID] = true
				ids = append(ids, p.AccountID)
			}
		}
	}
	out := map[string]ledger.Account{}
	err := readAccountsByID(ctx, r.q, ids, func(a ledger.Account) { out[a.ID] = a })
	return out, err
}

// trialBalanceSQL computes, in one snapshot, the tenant's own balances (from the balance rows)
// and every other account's share of the tenant's transfers (from the postings' deltas). Per
// asset they sum to zero exactly when the balance rows agree with the postings. The tenant's
// transfers are found through its accounts' history, each in the home its posting names; the
// other legs through each transfer's arrays, their homes through their accounts' lookup rows,
// then the history's primary key (account_id, created_at, sequence, home): LIMIT 1 (the key
// finds at most one row) keeps that lookup a per-leg index probe, which the planner would
// otherwise turn into a join of whole tables on its underestimate of the three equalities.
const trialBalanceSQL = `
WITH own AS (
    SELECT a.id FROM ledger_accounts a WHERE a.tenant_id = $1 AND a.home_tenant_id = $1 AND a.environment = $2
), tt AS (
    SELECT DISTINCT p.transfer_id, p.transfer_home_tenant_id FROM ledger_postings p WHERE p.account_id IN (SELECT id FROM own) AND p.home_tenant_id = $1
), legs AS (
    SELECT l.account_id, h.home_tenant_id AS home, t.created_at, t.sequence
    FROM tt JOIN ledger_transfers t ON t.id = tt.transfer_id AND t.home_tenant_id = tt.transfer_home_tenant_id CROSS JOIN LATERAL unnest(t.posting_accounts) AS l (account_id)
    JOIN ledger_account_homes h ON h.account_id = l.account_id
    WHERE l.account_id NOT IN (SELECT id FROM own)
), rows AS (
    SELECT ` + accountColumns + `, true AS own, b.posted, b.pending_debits, b.pending_credits
    FROM ledger_accounts a JOIN ledger_balances b ON b.account_id = a.id AND b.home_tenant_id = a.home_tenant_id
    WHERE a.id IN (SELECT id FROM own) AND a.home_tenant_id = $1
    UNION ALL
    SELECT ` + accountColumns + `, false, sum(p.posted_delta)::int8, sum(p.pending_debits_delta)::int8,
        sum(p.pending_credits_delta)::int8
    FROM legs l
    CROSS JOIN LATERAL (
        SELECT p.posted_delta, p.pending_debits_delta, p.pending_credits_delta FROM ledger_postings p
        WHERE p.account_id = l.account_id AND p.created_at = l.created_at AND p.sequence = l.sequence
            AND p.home_tenant_id = l.home
        LIMIT 1
    ) p
    JOIN ledger_accounts a ON a.id = l.account_id AND a.home_tenant_id = l.home
    GROUP BY a.id, a.home_tenant_id
)
SELECT * FROM rows ORDER BY 3, 9 DESC, 1`

// trialBalanceAsOfSQL is trialBalanceSQL as of $3 (inclusive): the tenant's accounts opened by
// then with their balance after their last transfer at or before $3 (the same history lookup
// as balancesAsOfSQL), and the other legs of the tenant's transfers created by then. No
// snapshot is needed: each posting keeps the balance after it, and postings never change.
const trialBalanceAsOfSQL = `
WITH own AS (
    SELECT a.id FROM ledger_accounts a WHERE a.tenant_id = $1 AND a.home_tenant_id = $1 AND a.environment = $2 AND a.created_at <= $3
), tt AS (
    SELECT DISTINCT p.transfer_id, p.transfer_home_tenant_id FROM ledger_postings p WHERE p.account_id IN (SELECT id FROM own) AND p.home_tenant_id = $1 AND p.created_at <= $3
), legs AS (
    SELECT l.account_id, h.home_tenant_id AS home, t.created_at, t.sequence
    FROM tt JOIN ledger_transfers t ON t.id = tt.transfer_id AND t.home_tenant_id = tt.transfer_home_tenant_id CROSS JOIN LATERAL unnest(t.posting_accounts) AS l (account_id)
    JOIN ledger_account_homes h ON h.account_id = l.account_id
    WHERE l.account_id NOT IN (SELECT id FROM own)
), rows AS (
    SELECT ` + accountColumns + `, true AS own, coalesce(h.posted_after, 0)::int8, coalesce(h.pending_debits_after, 0)::int8,
        coalesce(h.pending_credits_after, 0)::int8
    FROM ledger_accounts a
    LEFT JOIN LATERAL (
        SELECT posted_after, pending_debits_after, pending_credits_after FROM ledger_postings
        WHERE account_id = a.id AND home_tenant_id = a.home_tenant_id AND created_at <= $3
        ORDER BY created_at DESC, sequence DESC LIMIT 1
    ) h ON true
    WHERE a.id IN (SELECT id FROM own) AND a.home_tenant_id = $1
    UNION ALL
    SELECT ` + accountColumns + `, false, sum(p.posted_delta)::int8, sum(p.pending_debits_delta)::int8,
        sum(p.pending_credits_delta)::int8
    FROM legs l
    CROSS JOIN LATERAL (
        SELECT p.posted_delta, p.pending_debits_delta, p.pending_credits_delta FROM ledger_postings p
        WHERE p.account_id = l.account_id AND p.created_at = l.created_at AND p.sequence = l.sequence
            AND p.home_tenant_id = l.home
        LIMIT 1
    ) p
    JOIN ledger_accounts a ON a.id = l.account_id AND a.home_tenant_id = l.home
    GROUP BY a.id, a.home_tenant_id
)
SELECT * FROM rows ORDER BY 3, 9 DESC, 1`

// TrialBalance returns the rows of a tenant's trial balance (see ports.TrialBalanceRow), now
// or as of an instant.
func (r ledgerRepo) TrialBalance(ctx context.Context, env core.Environment, tenantID string, asOf time.Time) ([]ports.TrialBalanceRow, error) {
	query, args := trialBalanceSQL, []any{tenantID, string(env)}
	if r.citus {
		query = trialBalanceCitusSQL
	}
	if !asOf.IsZero() {
		query, args = trialBalanceAsOfSQL, append(args, asOf.UTC())
		if r.citus {
			query = trialBalanceAsOfCitusSQL
		}
	}
	rows, err := r.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, ledgerError("trial balance", err)
	}
	defer rows.Close()
	var out []ports.TrialBalanceRow
	for rows.Next() {
		var row ports.TrialBalanceRow
		b := &row.Balance
		row.Account, err = scanAccount(rows, &row.Own, &b.Posted, &b.PendingDebits, &b.PendingCredits)
		if err != nil {
			return nil, ledgerError("trial balance", err)
		}
		if err := b.Validate(); err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, ledgerError("trial balance", rows.Err())
}

// DailyVolume implements ports.LedgerReports through the postings' (account_id, created_at)
// index.
func (r ledgerRepo) DailyVolume(ctx context.Context, env core.Environment, tenantID, kind string, since time.Time) ([]ports.DayVolume, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT date_trunc('day', p.created_at AT TIME ZONE 'UTC'), a.asset,
			COALESCE(sum(p.posted_delta) FILTER (WHERE p.posted_delta > 0), 0),
			COALESCE(-sum(p.posted_delta) FILTER (WHERE p.posted_delta < 0), 0), count(DISTINCT p.transfer_id),
			count(DISTINCT p.transfer_id) FILTER (WHERE p.posted_delta > 0), count(DISTINCT p.transfer_id) FILTER (WHERE p.posted_delta < 0)
		FROM ledger_accounts a JOIN ledger_postings p ON p.account_id = a.id AND p.home_tenant_id = a.home_tenant_id
		WHERE a.tenant_id = $1 AND a.home_tenant_id = $1 AND a.environment = $2 AND a.kind = $3 AND p.created_at >= $4 AND p.posted_delta <> 0
		GROUP BY 1, 2 ORDER BY 1, 2`, tenantID, string(env), kind, since)
	if err != nil {
		return nil, ledgerError("daily volume", err)
	}
	defer rows.Close()
	var out []ports.DayVolume
	for rows.Next() {
		var v ports.DayVolume
		if err := rows.Scan(&v.Day, &v.Asset, &v.In, &v.Out, &v.Transfers, &v.InTransfers, &v.OutTransfers); err != nil {
			return nil, ledgerError("daily volume", err)
		}
		v.Day = time.Date(v.Day.Year(), v.Day.Month(), v.Day.Day(), 0, 0, 0, 0, time.UTC)
		out = append(out, v)
	}
	return out, ledgerError("daily volume", rows.Err())
}

// movementsSQL finds the posted movements of a tenant's accounts of some kinds through the
// postings' (account_id, created_at, sequence) key.
const movementsSQL = `
SELECT p.transfer_id, p.transfer_home_tenant_id, p.account_id, p.posted_delta, count(*) OVER ()
FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id AND a.home_tenant_id = p.home_tenant_id
WHERE a.tenant_id = $1 AND a.home_tenant_id = $1 AND p.home_tenant_id = $1 AND a.environment = $2 AND a.kind = ANY($3::text[]) AND p.posted_delta <> 0
  AND p.created_at >= $4 AND ($5::timestamptz IS NULL OR p.created_at < $5)
ORDER BY p.created_at, p.sequence, p.account_id LIMIT $6 OFFSET $7`

const movementCountSQL = `
SELECT count(*)
FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id AND a.home_tenant_id = p.home_tenant_id
WHERE a.tenant_id = $1 AND a.home_tenant_id = $1 AND p.home_tenant_id = $1 AND a.environment = $2 AND a.kind = ANY($3::text[]) AND p.posted_delta <> 0
  AND p.created_at >= $4 AND ($5::timestamptz IS NULL OR p.created_at < $5)`

type movementKey struct {
	transferID, transferHome, accountID string
	amount                              int64
}

// BalanceMovements implements ports.LedgerReports: one page of movement keys, then their
// transfers and accounts in two more statements.
func (r ledgerRepo) BalanceMovements(ctx context.Context, q ports.MovementQuery, page ports.Page) ([]ports.BalanceMovement, int, error) {
	args := []any{q.TenantID, string(q.Environment), q.Kinds, openStart(q.From), openEnd(q.To)}
	keys, total, err := r.movementKeys(ctx, args, page)
	if err != nil || len(keys) == 0 {
		return nil, total, err
	}
	refs := make(transferRefs, len(keys))
	for i, k := range keys {
		refs[i] = transferRef{id: k.transferID, home: k.transferHome}
	}
	transfers, err := r.transfersByID(ctx, refs)
	if err != nil {
		return nil, 0, err
	}
	list := make([]ledger.Transfer, 0, len(transfers))
	for _, e := range transfers {
		list = append(list, e.Transfer)
	}
	accounts, err := r.accountsOfTransfers(ctx, list)
	if err != nil {
		return nil, 0, err
	}
	out := make([]ports.BalanceMovement, len(keys))
	for i, k := range keys {
		e := transfers[k.transferID]
		m := ports.BalanceMovement{Sequence: e.Sequence, Transfer: e.Transfer, Account: accounts[k.accountID], Amount: k.amount, Accounts: map[string]ledger.Account{}}
		for _, p := range e.Transfer.Postings {
			m.Accounts[p.AccountID] = accounts[p.AccountID]
		}
		out[i] = m
	}
	return out, total, nil
}

func (r ledgerRepo) movementKeys(ctx context.Context, args []any, page ports.Page) ([]movementKey, int, error) {
	return pageWithTotal(ctx, r, "balance movements", movementsSQL, movementCountSQL, args, page, func(rows *sql.Rows, total *int) (movementKey, error) {
		var k movementKey
		err := rows.Scan(&k.transferID, &k.transferHome, &k.accountID, &k.amount, total)
		return k, err
	})
}

// pageWithTotal reads one page of pageSQL (args, then take and skip), each row ending with the
// window's total count; an empty page says nothing about the total, so countSQL answers it then.
func pageWithTotal[T any](ctx context.Context, r ledgerRepo, what, pageSQL, countSQL string, args []any, page ports.Page,
	scan func(rows *sql.Rows, total *int) (T, error)) ([]T, int, error) {
	rows, err := r.q.QueryContext(ctx, pageSQL, append(args, page.Take, page.Skip)...)
	if err != nil {
		return nil, 0, ledgerError(what, err)
	}
	defer rows.Close()
	var out []T
	total := -1
	for rows.Next() {
		v, err := scan(rows, &total)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, ledgerError(what, err)
	}
	if total < 0 {
		err = r.q.QueryRowContext(ctx, countSQL, args...).Scan(&total)
	}
	return out, total, ledgerError(what, err)
}

// transfersByID reads transfers with their sequence, keyed by id, in their homes.
func (r ledgerRepo) transfersByID(ctx context.Context, refs transferRefs) (map[string]ports.JournalEntry, error) {
	ids, homes := refs.split()
	rows, err := r.q.QueryContext(ctx, entryTransfersSQL, ids, homes)
	if err != nil {
		return nil, ledgerError("transfers", err)
	}
	defer rows.Close()
	out := make(map[string]ports.JournalEntry, len(ids))
	for rows.Next() {
		stored, sequence, err := scanTransfer(rows)
		if err != nil {
			return nil, ledgerError("transfers", err)
		}
		out[stored.Transfer.ID] = ports.JournalEntry{Sequence: sequence, Transfer: stored.Transfer, State: stored.State}
	}
	return out, ledgerError("transfers", rows.Err())
}

// sweepableSharesSQL reads shares through ledger_accounts_shares_idx (migration 000065): the
// shares are a few rows per tenant among every account.
const sweepableSharesSQL = `
SELECT ` + accountColumns + `, b.posted, b.pending_debits, b.pending_credits,
    (SELECT p.sequence FROM ledger_postings p WHERE p.account_id = a.id AND p.home_tenant_id = a.home_tenant_id
        ORDER BY p.created_at DESC, p.sequence DESC LIMIT 1)
FROM ledger_accounts a JOIN ledger_balances b ON b.account_id = a.id AND b.home_tenant_id = a.home_tenant_id
WHERE a.tenant_id IS NULL AND a.home_tenant_id <> '' AND a.id > $1 AND a.kind = ANY ($2::text[])
    AND b.posted <> 0 AND b.pending_debits = 0 AND b.pending_credits = 0
ORDER BY a.id LIMIT $3`

// SweepableShares lists the shares the sweep moves next. See ports.LedgerReports.
func (r ledgerRepo) SweepableShares(ctx context.Context, kinds []string, afterID string, limit int) ([]ports.ShareBalance, error) {
	rows, err := r.q.QueryContext(ctx, sweepableSharesSQL, afterID, kinds, limit)
	if err != nil {
		return nil, ledgerError("sweepable shares", err)
	}
	defer rows.Close()
	var out []ports.ShareBalance
	for rows.Next() {
		var b ledger.Balance
		var last int64
		a, err := scanAccount(rows, &b.Posted, &b.PendingDebits, &b.PendingCredits, &last)
		if err != nil {
			return nil, err
		}
		out = append(out, ports.ShareBalance{AccountBalance: ports.AccountBalance{Account: a, Balance: b}, LastSequence: last})
	}
	return out, ledgerError("sweepable shares", rows.Err())
}
