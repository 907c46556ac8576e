package finance

import (
	"context"
	"sort"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// The finance reads of docs/architecture.md. Every one is scoped to the caller's tenant and
// environment and guarded by treasury:read (docs/decisions/README.md, "Ledger"): another tenant's
// account answers ACCOUNT_NOT_FOUND, and postings on other tenants' accounts are shown as a
// redacted "counterparty".

// MaxExportTake bounds one page of the CSV journal export; JSON pages stay at ports.MaxTake.
const MaxExportTake = 10_000

// CounterpartyReference stands in for another tenant's account in exports and trial balances.
const CounterpartyReference = "counterparty"

// requireFinance is the guard of every finance read.
func requireFinance(p auth.Principal) error {
	return kernel.RequireTenantScope(p, auth.ScopeTreasuryRead)
}

// LedgerAccounts lists the caller's ledger accounts with balances, now or as of an instant
// (accounts opened after it are left out).
func (s *Service) LedgerAccounts(ctx context.Context, p auth.Principal, page ports.Page, asOf *time.Time) ([]ports.AccountBalance, int, error) {
	if err := requireFinance(p); err != nil {
		return nil, 0, err
	}
	if err := s.checkAsOf(asOf); err != nil {
		return nil, 0, err
	}
	var out []ports.AccountBalance
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		q := ports.AccountQuery{Environment: p.Environment, TenantID: p.TenantID}
		if asOf != nil {
			q.CreatedAtOrBefore = *asOf
		}
		var err error
		if out, total, err = tx.LedgerReports().ListAccounts(ctx, q, kernel.ClampPage(page)); err != nil || asOf == nil {
			return err
		}
		out, err = balancesAsOf(ctx, tx, out, *asOf)
		return err
	})
	return out, total, err
}

// StatementView is an account statement: the account now, and its history in the window.
type StatementView struct {
	Account   ports.AccountBalance
	From, To  *time.Time
	AsOf      *time.Time // set when the statement was asked as of an instant
	Statement ports.Statement
}

// StatementInput selects an account's statement: [From, To), or up to and including AsOf
// (then To must be empty). Export pages up to MaxExportTake lines.
type StatementInput struct {
	AccountID string
	From, To  *time.Time
	AsOf      *time.Time
	Export    bool
}

// LedgerStatement returns a page of an account's statement in [from, to) with running
// balances; nil bounds leave the window open.
func (s *Service) LedgerStatement(ctx context.Context, p auth.Principal, accountID string, from, to *time.Time, page ports.Page) (StatementView, error) {
	return s.LedgerStatementOf(ctx, p, StatementInput{AccountID: accountID, From: from, To: to}, page)
}

// LedgerStatementOf returns a page of an account's statement. A statement as of an instant
// ends just after it: times are kept to the microsecond, so [from, asOf + 1µs) holds every
// transfer up to and including asOf, and its closing balance is the balance as of asOf.
func (s *Service) LedgerStatementOf(ctx context.Context, p auth.Principal, in StatementInput, page ports.Page) (StatementView, error) {
	if err := requireFinance(p); err != nil {
		return StatementView{}, err
	}
	if err := s.checkAsOf(in.AsOf); err != nil {
		return StatementView{}, err
	}
	if in.AsOf != nil {
		if in.To != nil {
			return StatementView{}, core.Invalid("asOf", "give either to or asOf, not both")
		}
		end := in.AsOf.Add(time.Microsecond)
		in.To = &end
	}
	if err := checkWindow(in.From, in.To); err != nil {
		return StatementView{}, err
	}
	page = clampPage(page, in.Export)
	view := StatementView{From: in.From, To: in.To, AsOf: in.AsOf}
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		if view.Account, err = tx.LedgerReports().FindAccount(ctx, p.Environment, p.TenantID, in.AccountID); err != nil {
			return err
		}
		view.Statement, err = tx.LedgerReports().Statement(ctx, ports.StatementQuery{AccountID: in.AccountID, From: deref(in.From), To: deref(in.To)}, page)
		return err
	})
	return view, err
}

// EntriesInput filters the journal.
type EntriesInput struct {
	AccountID string // "" for all the caller's accounts
	From, To  *time.Time
	Export    bool // a CSV export: pages up to MaxExportTake
}

// JournalLine is one posting of a journal entry as the caller may see it: AccountID is ""
// and Reference is CounterpartyReference for another tenant's account.
type JournalLine struct {
	AccountID string
	Reference string
	Kind      string
	Amount    int64
	// Own is set for the caller's own accounts (a statement of theirs opens), not for a
	// platform, world or counterparty account.
	Own bool
}

// JournalEntryView is one transfer of the caller's journal.
type JournalEntryView struct {
	Sequence int64
	Transfer ledger.Transfer
	State    ledger.TransferState
	Lines    []JournalLine
}

// LedgerEntries returns the caller's journal: the transfers touching its accounts, in
// sequence order, with every posting (other tenants' accounts redacted).
func (s *Service) LedgerEntries(ctx context.Context, p auth.Principal, in EntriesInput, page ports.Page) ([]JournalEntryView, int, error) {
	if err := requireFinance(p); err != nil {
		return nil, 0, err
	}
	if err := checkWindow(in.From, in.To); err != nil {
		return nil, 0, err
	}
	page = clampPage(page, in.Export)
	var entries []ports.JournalEntry
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		if in.AccountID != "" {
			if _, err := tx.LedgerReports().FindAccount(ctx, p.Environment, p.TenantID, in.AccountID); err != nil {
				return err
			}
		}
		q := ports.EntryQuery{Environment: p.Environment, TenantID: p.TenantID, AccountID: in.AccountID, From: deref(in.From), To: deref(in.To)}
		var err error
		entries, total, err = tx.LedgerReports().Entries(ctx, q, page)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	out := make([]JournalEntryView, len(entries))
	for i, e := range entries {
		out[i] = journalEntryView(p.TenantID, e)
	}
	return out, total, nil
}

func journalEntryView(tenantID string, e ports.JournalEntry) JournalEntryView {
	v := JournalEntryView{Sequence: e.Sequence, Transfer: e.Transfer, State: e.State, Lines: make([]JournalLine, len(e.Transfer.Postings))}
	for i, posting := range e.Transfer.Postings {
		acct := e.Accounts[posting.AccountID]
		line := JournalLine{AccountID: acct.ID, Reference: acct.BaseReference(), Kind: acct.Kind, Amount: posting.Amount,
			Own: acct.TenantID != "" && acct.TenantID == tenantID}
		if acct.TenantID != "" && acct.TenantID != tenantID {
			line.AccountID, line.Reference = "", CounterpartyReference
		}
		v.Lines[i] = line
	}
	return v
}

// TrialBalanceView is the caller's trial balance: per asset, its own accounts and the
// counterparties of its transfers, summing to zero.
type TrialBalanceView struct {
	Environment core.Environment
	GeneratedAt time.Time
	AsOf        *time.Time // nil: the current balances
	Assets      []TrialBalanceAsset
}

// TrialBalanceAsset is the trial balance of one asset. Totals.Balanced() is the check.
type TrialBalanceAsset struct {
	Asset  string
	Lines  []TrialBalanceLine
	Totals ledger.TrialLine
}

// Scopes of a trial balance line.
const (
	TrialScopeOwn          = "OWN"
	TrialScopePlatform     = "PLATFORM"
	TrialScopeCounterparty = "COUNTERPARTY"
)

// TrialBalanceLine is one account (or, for other tenants, all of them) of a trial balance.
type TrialBalanceLine struct {
	AccountID string // "" for the counterparty line
	Reference string
	Kind      string
	Scope     string
	Balance   ledger.Balance
}

// LedgerTrialBalance returns the caller's trial balance now. Its own lines are the balance
// rows; every other line is what that account received from the caller's transfers. Because
// every transfer balances, each asset sums to zero unless a balance row disagrees with the
// postings.
func (s *Service) LedgerTrialBalance(ctx context.Context, p auth.Principal) (TrialBalanceView, error) {
	return s.LedgerTrialBalanceAsOf(ctx, p, nil)
}

// LedgerTrialBalanceAsOf returns the caller's trial balance as of an instant (nil: now),
// recomputed from the accounts' history: a closed period's report needs no snapshot taken at
// its close, and asking twice gives the same answer.
func (s *Service) LedgerTrialBalanceAsOf(ctx context.Context, p auth.Principal, asOf *time.Time) (TrialBalanceView, error) {
	if err := requireFinance(p); err != nil {
		return TrialBalanceView{}, err
	}
	if err := s.checkAsOf(asOf); err != nil {
		return TrialBalanceView{}, err
	}
	view := TrialBalanceView{Environment: p.Environment, GeneratedAt: s.clock.Now(), AsOf: asOf}
	var rows []ports.TrialBalanceRow
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		rows, err = tx.LedgerReports().TrialBalance(ctx, p.Environment, p.TenantID, deref(asOf))
		return err
	})
	if err != nil {
		return view, err
	}
	view.Assets, err = trialAssets(p.Environment, rows)
	return view, err
}

// trialAssets groups rows by asset, folds other tenants' accounts into one counterparty line
// per asset, sums a platform account's per-tenant shares into one line under the platform
// account's reference (ledger.Share: the shares are how the platform account is stored, not
// accounts of their own) and totals each asset with ledger.TrialBalance.
func trialAssets(env core.Environment, rows []ports.TrialBalanceRow) ([]TrialBalanceAsset, error) {
	byAsset := map[string]*TrialBalanceAsset{}
	counterparty := map[string]*TrialBalanceLine{}
	platform := map[[2]string]int{} // (asset, reference) → index of its line
	var assets []string
	for _, r := range rows {
		asset := r.Account.Asset
		if byAsset[asset] == nil {
			byAsset[asset] = &TrialBalanceAsset{Asset: asset}
			assets = append(assets, asset)
		}
		line := TrialBalanceLine{AccountID: r.Account.ID, Reference: r.Account.BaseReference(), Kind: r.Account.Kind, Scope: TrialScopeOwn, Balance: r.Balance}
		switch {
		case r.Own:
		case r.Account.TenantID == "":
			line.Scope = TrialScopePlatform
			key := [2]string{asset, line.Reference}
			if i, ok := platform[key]; ok {
				sum, err := addBalances(byAsset[asset].Lines[i].Balance, r.Balance)
				if err != nil {
					return nil, err
				}
				byAsset[asset].Lines[i].Balance = sum
				continue
			}
			platform[key] = len(byAsset[asset].Lines)
		default:
			if counterparty[asset] == nil {
				counterparty[asset] = &TrialBalanceLine{Reference: CounterpartyReference, Kind: CounterpartyReference, Scope: TrialScopeCounterparty}
			}
			sum, err := addBalances(counterparty[asset].Balance, r.Balance)
			if err != nil {
				return nil, err
			}
			counterparty[asset].Balance = sum
			continue
		}
		byAsset[asset].Lines = append(byAsset[asset].Lines, line)
	}
	sort.Strings(assets)
	out := make([]TrialBalanceAsset, 0, len(assets))
	for _, asset := range assets {
		ta := byAsset[asset]
		if c := counterparty[asset]; c != nil {
			ta.Lines = append(ta.Lines, *c)
		}
		totals, err := trialTotals(env, asset, ta.Lines)
		if err != nil {
			return nil, err
		}
		ta.Totals = totals
		out = append(out, *ta)
	}
	return out, nil
}

// trialTotals sums lines with the ledger's own trial-balance arithmetic.
func trialTotals(env core.Environment, asset string, lines []TrialBalanceLine) (ledger.TrialLine, error) {
	accounts := make([]ledger.Account, len(lines))
	balances := make(map[string]ledger.Balance, len(lines))
	for i, l := range lines {
		key := l.AccountID
		if key == "" {
			key = l.Reference
		}
		accounts[i] = ledger.Account{ID: key, Environment: env, Asset: asset}
		balances[key] = l.Balance
	}
	totals, err := ledger.TrialBalance(accounts, balances)
	if err != nil || len(totals) == 0 {
		return ledger.TrialLine{Environment: env, Asset: asset}, err
	}
	return totals[0], nil
}

func addBalances(a, b ledger.Balance) (ledger.Balance, error) {
	var err error
	if a.Posted, err = core.AddInt64(a.Posted, b.Posted); err != nil {
		return a, err
	}
	if a.PendingDebits, err = core.AddInt64(a.PendingDebits, b.PendingDebits); err != nil {
		return a, err
	}
	a.PendingCredits, err = core.AddInt64(a.PendingCredits, b.PendingCredits)
	return a, err
}

// clampPage bounds a page: ports.MaxTake rows for JSON, MaxExportTake for a CSV export (the
// export's point is to take a closed period in few requests).
func clampPage(page ports.Page, export bool) ports.Page {
	if !export {
		return kernel.ClampPage(page)
	}
	page.Skip = min(max(page.Skip, 0), ports.MaxSkip)
	if page.Take <= 0 || page.Take > MaxExportTake {
		page.Take = MaxExportTake
	}
	return page
}

// asOfSkew is how far past the service's clock an asOf may name: a client that sends its own
// "now" is not refused for a clock a little ahead of ours.
const asOfSkew = time.Minute

// checkAsOf refuses an asOf in the future: a balance there is not known yet, and a report as of
// it would change as transfers are posted until the instant passes. Within asOfSkew it is read
// as given (docs/decisions/ledger.md).
func (s *Service) checkAsOf(asOf *time.Time) error {
	if asOf == nil {
		return nil
	}
	if now := s.clock.Now(); asOf.After(now.Add(asOfSkew)) {
		return core.Invalid("asOf", "is in the future (the service's clock reads "+now.UTC().Format(time.RFC3339)+"): balances there are not known yet; leave asOf out for the current ones")
	}
	return nil
}

func checkWindow(from, to *time.Time) error {
	if from != nil && to != nil && !from.Before(*to) {
		return core.Invalid("to", "must be after from")
	}
	return nil
}

func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
