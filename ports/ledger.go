package ports

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
)

// LedgerRepo is the ledger store bound to one unit of work: what every capability that moves
// money needs. It comes from Tx.Ledger(), so its writes run in the caller's transaction: a use
// case changes its business state and posts the transfers of that change inside one InTx, and
// both commit or neither does.
//
// The store follows the protocol of the ledger package documentation: it looks the reference
// up, locks the target transfer, then the balance rows in account-id order, lets ledger.Apply
// decide, and writes the transfer, its postings, the balances and the chain link, locking the
// chain head last.
type LedgerRepo interface {
	// OpenAccounts returns the accounts of specs, in order, creating those that do not exist
	// yet (get-or-create by environment, asset and reference, safe under concurrency). A
	// reference that exists with another spec is LEDGER_REFERENCE_CONFLICT.
	OpenAccounts(ctx context.Context, now time.Time, specs ...ledger.AccountSpec) ([]ledger.Account, error)
	// FindAccountByReference returns an existing account, or ACCOUNT_NOT_FOUND. home is the
	// account's home (ledger.Account.Home: its tenant, a share's tenant, "" for a platform
	// account proper): the caller names where it lives, and an account of another home is not
	// found.
	FindAccountByReference(ctx context.Context, env core.Environment, asset, home, reference string) (ledger.Account, error)
	// Post records the transfer spec describes, deciding it at now (or at the latest transfer
	// time of its accounts, if later: each account's history is ordered in time). Posting a
	// reference that is already recorded writes nothing and returns the recorded transfer with
	// replayed = true, or LEDGER_REFERENCE_CONFLICT when the content differs. Refusals
	// (INSUFFICIENT_FUNDS, ACCOUNT_NOT_FOUND, TRANSFER_NOT_FOUND, INVALID_STATE,
	// VALIDATION_FAILED, AMOUNT_OVERFLOW) write nothing and leave the transaction usable.
	Post(ctx context.Context, now time.Time, spec ledger.TransferSpec) (t ledger.Transfer, replayed bool, err error)
	// Transfer returns a recorded transfer of env with its current state, or TRANSFER_NOT_FOUND.
	// home is the transfer's home (ledger.HomeOf): the caller names where it lives, and a
	// transfer of another home is not found.
	Transfer(ctx context.Context, env core.Environment, home, id string) (ledger.StoredTransfer, error)
	// TransferByReference returns the transfer recorded under reference in env and home, or
	// TRANSFER_NOT_FOUND: how a step finds the account an earlier step of the same payment left
	// its money in (a clearing account before or after it was split per tenant).
	TransferByReference(ctx context.Context, env core.Environment, home, reference string) (ledger.Transfer, error)
	// Balances returns the current balances of existing accounts, without locking them.
	Balances(ctx context.Context, accountIDs []string) (map[string]ledger.Balance, error)
}

// AccountBalance is an account with a balance (current, or as of an instant).
type AccountBalance struct {
	Account ledger.Account
	Balance ledger.Balance
}

// AccountQuery selects a tenant's accounts in one environment.
type AccountQuery struct {
	Environment core.Environment
	TenantID    string
	Kind        string // "" for every kind
	// CreatedAtOrBefore, when set, leaves out accounts opened after it (balances as of then).
	CreatedAtOrBefore time.Time
}

// StatementQuery selects one account's history in [From, To); zero times leave that end open.
type StatementQuery struct {
	AccountID string
	From, To  time.Time
}

// StatementLine is one transfer's effect on the statement's account.
type StatementLine struct {
	Sequence int64
	Transfer ledger.Transfer
	State    ledger.TransferState
	Amount   int64          // the signed posting amount on this account
	Delta    ledger.Delta   // what the transfer did to the account's balance (ledger.Effects)
	After    ledger.Balance // the account's balance right after the transfer
}

// Statement is a page of an account's history with the balances around the window.
type Statement struct {
	Opening ledger.Balance // as of just before From
	Closing ledger.Balance // as of just before To (or now)
	Lines   []StatementLine
	Total   int // lines in the whole window
}

// EntryQuery selects the journal: transfers with at least one posting on a tenant's accounts
// (or on one of them), created in [From, To).
type EntryQuery struct {
	Environment core.Environment
	TenantID    string
	AccountID   string // "" for every account of the tenant
	From, To    time.Time
}

// JournalEntry is a transfer with every posting and the accounts they touch.
type JournalEntry struct {
	Sequence int64
	Transfer ledger.Transfer
	State    ledger.TransferState
	Accounts map[string]ledger.Account // by id, one per posting
}

// TrialBalanceRow is one account's line of a tenant's trial balance: for the tenant's own
// accounts the current balance; for every other account the sum of the balance changes it got
// from transfers that touch the tenant's accounts. Within one asset the rows sum to zero.
type TrialBalanceRow struct {
	Account ledger.Account
	Own     bool
	Balance ledger.Balance
}

// LedgerReports are the finance reads over the ledger (docs/architecture.md). Every method answers
// from one consistent snapshot where its result must add up (TrialBalance, BalancesAsOf).
type LedgerReports interface {
	ListAccounts(ctx context.Context, q AccountQuery, page Page) ([]AccountBalance, int, error)
	// FindAccount returns a tenant's account in env with its current balance; another tenant's
	// or environment's account is ACCOUNT_NOT_FOUND.
	FindAccount(ctx context.Context, env core.Environment, tenantID, id string) (AccountBalance, error)
	// BalancesAsOf returns each account's balance after the last transfer created at or before
	// instant (zero before its first transfer).
	BalancesAsOf(ctx context.Context, accountIDs []string, instant time.Time) (map[string]ledger.Balance, error)
	Statement(ctx context.Context, q StatementQuery, page Page) (Statement, error)
	// Entries returns journal entries in sequence order, and how many match.
	Entries(ctx context.Context, q EntryQuery, page Page) ([]JournalEntry, int, error)
	// TrialBalance returns the rows of a tenant's trial balance now (asOf zero) or as of an
	// instant: then only transfers created at or before it count, and the tenant's own
	// balances are read from its accounts' history rather than the balance rows.
	TrialBalance(ctx context.Context, env core.Environment, tenantID string, asOf time.Time) ([]TrialBalanceRow, error)
	// BalanceMovements returns, in time order, each change to the posted balance of the
	// tenant's accounts of the query's kinds in [From, To), with the transfer that made it and
	// every account that transfer touches, and how many match.
	BalanceMovements(ctx context.Context, q MovementQuery, page Page) ([]BalanceMovement, int, error)
	// DailyVolume sums, per UTC day from since on and per asset, the posted money that came into
	// and went out of the tenant's accounts of kind, oldest day first; days without postings
	// are absent.
	DailyVolume(ctx context.Context, env core.Environment, tenantID, kind string, since time.Time) ([]DayVolume, error)
	// SweepableShares returns up to limit per-tenant shares of platform accounts (ledger.Share)
	// of the kinds given, whose posted balance is not zero and that hold nothing pending, in
	// account-id order after afterID ("" for the first): what the sweep moves next.
	SweepableShares(ctx context.Context, kinds []string, afterID string, limit int) ([]ShareBalance, error)
}

// ShareBalance is a share's balance and the sequence of the last transfer that moved it, read
// together: the pair names the share's state, which a sweep of it moves once.
type ShareBalance struct {
	AccountBalance
	LastSequence int64
}

// DayVolume is one UTC day's posted movements on a tenant's accounts of one kind and asset.
type DayVolume struct {
	Day       time.Time // midnight UTC
	Asset     string
	In, Out   int64 // base units credited and debited
	Transfers int   // distinct transfers that moved them
	// InTransfers and OutTransfers are the distinct transfers that credited (In) and debited
	// (Out) the accounts: a day's money in and money out are each told with their own count.
	InTransfers, OutTransfers int
}

// MovementQuery selects the posted movements of a tenant's accounts of some kinds, created in
// [From, To); zero times leave that end open.
type MovementQuery struct {
	Environment core.Environment
	TenantID    string
	Kinds       []string
	From, To    time.Time
}

// BalanceMovement is one transfer's change to the posted balance of one of the tenant's
// accounts.
type BalanceMovement struct {
	Sequence int64
	Transfer ledger.Transfer
	Account  ledger.Account
	Amount   int64                     // the signed change to the account's posted balance
	Accounts map[string]ledger.Account // every account the transfer touches, by id
}

// LedgerIntent names, before a unit of work runs, the ledger rows its use case will lock: the
// accounts it will post to and the references of the transfers it will record. A store may
// lock and read them together with the unit's first statement (the pipeline's claim of the
// Idempotency-Key does: docs/ledger.md, "Commit pipeline") instead of in a round trip of their
// own. It is a hint and nothing more: a store may ignore it, rows it names and the unit never
// uses are only locked early, and the unit's posts run their own protocol whatever it says.
type LedgerIntent struct {
	Environment core.Environment
	Accounts    []ledger.AccountSpec
	References  []string
	// Card names the card a card authorization's decision will lock, with the windows it
	// will read (CardRepo.LockCardForDecision). A store may lock and read it with the claim,
	// after the ledger rows above (the card paths' lock order: docs/ledger.md); the decision
	// then finds it read. Zero: no card.
	Card CardIntent
}

type ledgerIntentKey struct{}

// WithLedgerIntent marks ctx with the ledger rows the unit of work run under it will lock.
func WithLedgerIntent(ctx context.Context, in LedgerIntent) context.Context {
	return context.WithValue(ctx, ledgerIntentKey{}, in)
}

// LedgerIntentOf is the intent ctx was marked with (ok false when none).
func LedgerIntentOf(ctx context.Context) (LedgerIntent, bool) {
	in, ok := ctx.Value(ledgerIntentKey{}).(LedgerIntent)
	return in, ok
}
