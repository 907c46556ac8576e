package http

import (
	"strconv"
	"time"

	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// Ledger DTOs. Amounts are decimal strings (core.FormatUSD: 6 decimals at most, trailing zeros
// trimmed) and, for exact integer arithmetic, the same value in base units as a string of
// digits (a JSON number would lose precision above 2^53 in JavaScript). Signs follow the
// ledger: positive credits an account, negative debits it (docs/ledger.md).

type serviceBalanceResponse struct {
	Asset              string  `json:"asset" oas:"required,enum=USDC"`
	Decimals           int     `json:"decimals" oas:"required"`
	AccountID          *string `json:"accountId" oas:"required"`
	Available          string  `json:"available" oas:"required" description:"What you can spend: posted less the open holds, in the asset's unit."`
	AvailableBaseUnits string  `json:"availableBaseUnits" oas:"required"`
	Held               string  `json:"held" oas:"required"`
	HeldBaseUnits      string  `json:"heldBaseUnits" oas:"required"`
	Total              string  `json:"total" oas:"required"`
	TotalBaseUnits     string  `json:"totalBaseUnits" oas:"required"`
}

type balancesResponse struct {
	Environment string                   `json:"environment" oas:"required,enum=TEST|LIVE"`
	AsOf        *time.Time               `json:"asOf" oas:"required"`
	Balances    []serviceBalanceResponse `json:"balances" oas:"required" description:"One line per asset, USDC first: available, held and total, each also in base units."`
}

func toServiceBalance(b finance.ServiceBalance) serviceBalanceResponse {
	return serviceBalanceResponse{
		Asset: b.Asset, Decimals: core.USDCDecimals, AccountID: strPtr(b.AccountID),
		Available: core.FormatUSD(b.Balance.Available()), AvailableBaseUnits: baseUnits(b.Balance.Available()),
		Held: core.FormatUSD(b.Balance.PendingDebits), HeldBaseUnits: baseUnits(b.Balance.PendingDebits),
		Total: core.FormatUSD(b.Balance.Posted), TotalBaseUnits: baseUnits(b.Balance.Posted),
	}
}

func toBalances(v finance.BalancesView) balancesResponse {
	out := balancesResponse{Environment: string(v.Environment), AsOf: v.AsOf, Balances: make([]serviceBalanceResponse, len(v.Balances))}
	for i, b := range v.Balances {
		out.Balances[i] = toServiceBalance(b)
	}
	return out
}

type depositRequest struct {
	AmountUSD string `json:"amountUsd" oas:"required"` // a decimal string, at most 6 fraction digits
}

type depositResponse struct {
	ID              string                 `json:"id" oas:"required"`
	TransferID      string                 `json:"transferId" oas:"required"`
	Environment     string                 `json:"environment" oas:"required,enum=TEST"`
	Asset           string                 `json:"asset" oas:"required,enum=USDC"`
	AmountUSD       string                 `json:"amountUsd" oas:"required"`
	AmountBaseUnits string                 `json:"amountBaseUnits" oas:"required"`
	Balance         serviceBalanceResponse `json:"balance" oas:"required"`
	CreatedAt       time.Time              `json:"createdAt" oas:"required"`
}

func toDeposit(d finance.Deposit) depositResponse {
	return depositResponse{
		ID: d.ID, TransferID: d.Transfer.ID, Environment: string(d.Transfer.Environment), Asset: d.Transfer.Asset,
		AmountUSD: core.FormatUSD(d.AmountBaseUnits), AmountBaseUnits: baseUnits(d.AmountBaseUnits),
		Balance: toServiceBalance(d.Balance), CreatedAt: d.Transfer.CreatedAt,
	}
}

// ledgerBalanceResponse is an account balance: posted, the open holds against it and on
// their way into it, and what it may spend (posted − pendingDebits).
type ledgerBalanceResponse struct {
	Posted                  string `json:"posted" oas:"required" description:"The balance of posted transfers, in the asset's unit."`
	PostedBaseUnits         string `json:"postedBaseUnits" oas:"required"`
	PendingDebits           string `json:"pendingDebits" oas:"required"`
	PendingDebitsBaseUnits  string `json:"pendingDebitsBaseUnits" oas:"required"`
	PendingCredits          string `json:"pendingCredits" oas:"required"`
	PendingCreditsBaseUnits string `json:"pendingCreditsBaseUnits" oas:"required"`
	Available               string `json:"available" oas:"required" description:"What the account may spend: posted less the pending debits, in the asset's unit."`
	AvailableBaseUnits      string `json:"availableBaseUnits" oas:"required"`
}

func toLedgerBalance(b ledger.Balance) ledgerBalanceResponse {
	available := b.Posted - b.PendingDebits // Validated balances never overflow here.
	return ledgerBalanceResponse{
		Posted: core.FormatUSD(b.Posted), PostedBaseUnits: baseUnits(b.Posted),
		PendingDebits: core.FormatUSD(b.PendingDebits), PendingDebitsBaseUnits: baseUnits(b.PendingDebits),
		PendingCredits: core.FormatUSD(b.PendingCredits), PendingCreditsBaseUnits: baseUnits(b.PendingCredits),
		Available: core.FormatUSD(available), AvailableBaseUnits: baseUnits(available),
	}
}

// ledgerChangeResponse is what one transfer did to an account's balance.
type ledgerChangeResponse struct {
	Posted                  string `json:"posted" oas:"required" description:"The change to the posted balance, signed: positive credits, negative debits."`
	PostedBaseUnits         string `json:"postedBaseUnits" oas:"required"`
	PendingDebits           string `json:"pendingDebits" oas:"required"`
	PendingDebitsBaseUnits  string `json:"pendingDebitsBaseUnits" oas:"required"`
	PendingCredits          string `json:"pendingCredits" oas:"required"`
	PendingCreditsBaseUnits string `json:"pendingCreditsBaseUnits" oas:"required"`
}

func toLedgerChange(d ledger.Delta) ledgerChangeResponse {
	return ledgerChangeResponse{
		Posted: core.FormatUSD(d.Posted), PostedBaseUnits: baseUnits(d.Posted),
		PendingDebits: core.FormatUSD(d.PendingDebits), PendingDebitsBaseUnits: baseUnits(d.PendingDebits),
		PendingCredits: core.FormatUSD(d.PendingCredits), PendingCreditsBaseUnits: baseUnits(d.PendingCredits),
	}
}

type ledgerAccountResponse struct {
	ID          string                `json:"id" oas:"required"`
	Environment string                `json:"environment" oas:"required,enum=TEST|LIVE"`
	Asset       string                `json:"asset" oas:"required"`
	Kind        string                `json:"kind" oas:"required"`
	Reference   string                `json:"reference" oas:"required"`
	NonNegative bool                  `json:"nonNegative" oas:"required" description:"Whether the ledger refuses any transfer that would take the account's balance below zero."`
	CreatedAt   time.Time             `json:"createdAt" oas:"required"`
	Balance     ledgerBalanceResponse `json:"balance" oas:"required"`
}

func toLedgerAccount(ab ports.AccountBalance) ledgerAccountResponse {
	a := ab.Account
	return ledgerAccountResponse{
		ID: a.ID, Environment: string(a.Environment), Asset: a.Asset, Kind: a.Kind, Reference: a.Reference,
		NonNegative: a.NonNegative, CreatedAt: a.CreatedAt, Balance: toLedgerBalance(ab.Balance),
	}
}

type ledgerAccountListResponse struct {
	Accounts []ledgerAccountResponse `json:"accounts" oas:"required"`
	Total    int                     `json:"total" oas:"required"`
	AsOf     *time.Time              `json:"asOf" oas:"required"`
}

type statementLineResponse struct {
	Sequence        int64                 `json:"sequence" oas:"required" description:"The transfer's position in the journal (increasing)."`
	TransferID      string                `json:"transferId" oas:"required"`
	Reference       string                `json:"reference" oas:"required"`
	ObjectType      string                `json:"objectType" oas:"required" example:"sandbox_deposit" description:"The business object the transfer belongs to, read from its reference (as in balance transactions)."`
	ObjectID        string                `json:"objectId" oas:"required" example:"dep_06h0c8y3a9xq2v5m7k1d4f6g8j"`
	Description     string                `json:"description" oas:"required" description:"The transfer in words, such as Sandbox deposit."`
	Type            string                `json:"type" oas:"required,enum=POSTED|PENDING|POST_PENDING|VOID_PENDING|REVERSAL"`
	Status          string                `json:"status" oas:"required,enum=PENDING|POSTED|VOIDED|REVERSED"`
	TargetID        *string               `json:"targetId" oas:"required"`
	CreatedAt       time.Time             `json:"createdAt" oas:"required"`
	Amount          string                `json:"amount" oas:"required"`
	AmountBaseUnits string                `json:"amountBaseUnits" oas:"required"`
	Change          ledgerChangeResponse  `json:"change" oas:"required"`
	BalanceAfter    ledgerBalanceResponse `json:"balanceAfter" oas:"required"`
	Metadata        map[string]string     `json:"metadata" oas:"required"`
}

type statementResponse struct {
	Account ledgerAccountResponse   `json:"account" oas:"required"`
	From    *time.Time              `json:"from" oas:"required" description:"The start of the period, inclusive (RFC 3339, UTC); null: from the account's first transfer."`
	AsOf    *time.Time              `json:"asOf" oas:"required" description:"The instant the statement was asked as of (its closing balance is the balance then); null when the period was given by to."`
	To      *time.Time              `json:"to" oas:"required" description:"The end of the period, exclusive (RFC 3339, UTC); null: until now."`
	Opening ledgerBalanceResponse   `json:"opening" oas:"required"`
	Closing ledgerBalanceResponse   `json:"closing" oas:"required"`
	Lines   []statementLineResponse `json:"lines" oas:"required" description:"The account's lines in [from, to), oldest first, each with its running balance."`
	Total   int                     `json:"total" oas:"required"`
}

func toStatement(v finance.StatementView) statementResponse {
	st := v.Statement
	out := statementResponse{
		Account: toLedgerAccount(v.Account), From: v.From, To: v.To, AsOf: v.AsOf,
		Opening: toLedgerBalance(st.Opening), Closing: toLedgerBalance(st.Closing),
		Lines: make([]statementLineResponse, len(st.Lines)), Total: st.Total,
	}
	for i, l := range st.Lines {
		d := finance.DescribeReference(l.Transfer.Reference, l.Transfer.ID)
		out.Lines[i] = statementLineResponse{
			Sequence: l.Sequence, TransferID: l.Transfer.ID, Reference: l.Transfer.Reference, Type: string(l.Transfer.Type),
			ObjectType: d.ObjectType, ObjectID: d.ObjectID, Description: d.Description,
			Status: string(l.State.Status), TargetID: strPtr(l.Transfer.TargetID()), CreatedAt: l.Transfer.CreatedAt,
			Amount: core.FormatUSD(l.Amount), AmountBaseUnits: baseUnits(l.Amount),
			Change: toLedgerChange(l.Delta), BalanceAfter: toLedgerBalance(l.After), Metadata: metadataOf(l.Transfer),
		}
	}
	return out
}

type entryPostingResponse struct {
	AccountID        *string `json:"accountId" oas:"required"`
	AccountReference string  `json:"accountReference" oas:"required" description:"The account's reference (tenant:ten_…:available, platform:sandbox_pool), or counterparty for another tenant's account."`
	AccountKind      string  `json:"accountKind" oas:"required" description:"The kind of the posting's account (such as tenant_available); kept for another tenant's account."`
	Amount           string  `json:"amount" oas:"required"`
	AmountBaseUnits  string  `json:"amountBaseUnits" oas:"required"`
}

type entryResponse struct {
	Sequence     int64                  `json:"sequence" oas:"required" description:"The transfer's position in the journal (increasing)."`
	TransferID   string                 `json:"transferId" oas:"required"`
	Reference    string                 `json:"reference" oas:"required"`
	ObjectType   string                 `json:"objectType" oas:"required" example:"sandbox_deposit" description:"The business object the transfer belongs to, read from its reference (as in balance transactions)."`
	ObjectID     string                 `json:"objectId" oas:"required" example:"dep_06h0c8y3a9xq2v5m7k1d4f6g8j"`
	Description  string                 `json:"description" oas:"required" description:"The transfer in words, such as Sandbox deposit."`
	Type         string                 `json:"type" oas:"required,enum=POSTED|PENDING|POST_PENDING|VOID_PENDING|REVERSAL"`
	Status       string                 `json:"status" oas:"required,enum=PENDING|POSTED|VOIDED|REVERSED"`
	TargetID     *string                `json:"targetId" oas:"required"`
	ResolvedByID *string                `json:"resolvedById" oas:"required"`
	Asset        string                 `json:"asset" oas:"required"`
	CreatedAt    time.Time              `json:"createdAt" oas:"required"`
	ExpiresAt    *time.Time             `json:"expiresAt" oas:"required"`
	Metadata     map[string]string      `json:"metadata" oas:"required"`
	Postings     []entryPostingResponse `json:"postings" oas:"required" description:"Every posting of the transfer, on your accounts and the others it touches, so the entry balances."`
}

type entryListResponse struct {
	Entries []entryResponse `json:"entries" oas:"required"`
	Total   int             `json:"total" oas:"required"`
}

func toEntry(e finance.JournalEntryView) entryResponse {
	t := e.Transfer
	d := finance.DescribeReference(t.Reference, t.ID)
	out := entryResponse{
		Sequence: e.Sequence, TransferID: t.ID, Reference: t.Reference, Type: string(t.Type), Status: string(e.State.Status),
		ObjectType: d.ObjectType, ObjectID: d.ObjectID, Description: d.Description,
		TargetID: strPtr(t.TargetID()), ResolvedByID: strPtr(e.State.ResolvedByID), Asset: t.Asset, CreatedAt: t.CreatedAt,
		Metadata: metadataOf(t), Postings: make([]entryPostingResponse, len(e.Lines)),
	}
	if !t.ExpiresAt.IsZero() {
		expires := t.ExpiresAt
		out.ExpiresAt = &expires
	}
	for i, l := range e.Lines {
		out.Postings[i] = entryPostingResponse{AccountID: strPtr(l.AccountID), AccountReference: l.Reference, AccountKind: l.Kind,
			Amount: core.FormatUSD(l.Amount), AmountBaseUnits: baseUnits(l.Amount)}
	}
	return out
}

type trialLineResponse struct {
	AccountID *string               `json:"accountId" oas:"required"`
	Reference string                `json:"reference" oas:"required"`
	Kind      string                `json:"kind" oas:"required"`
	Scope     string                `json:"scope" oas:"required,enum=OWN|PLATFORM|COUNTERPARTY" description:"OWN: your account; PLATFORM: a platform account, by reference; COUNTERPARTY: every other tenant's accounts folded into one line."`
	Balance   ledgerBalanceResponse `json:"balance" oas:"required"`
}

type trialAssetResponse struct {
	Asset                   string              `json:"asset" oas:"required"`
	Balanced                bool                `json:"balanced" oas:"required"`
	PostedDebits            string              `json:"postedDebits" oas:"required"`
	PostedDebitsBaseUnits   string              `json:"postedDebitsBaseUnits" oas:"required"`
	PostedCredits           string              `json:"postedCredits" oas:"required"`
	PostedCreditsBaseUnits  string              `json:"postedCreditsBaseUnits" oas:"required"`
	PendingDebits           string              `json:"pendingDebits" oas:"required"`
	PendingDebitsBaseUnits  string              `json:"pendingDebitsBaseUnits" oas:"required"`
	PendingCredits          string              `json:"pendingCredits" oas:"required"`
	PendingCreditsBaseUnits string              `json:"pendingCreditsBaseUnits" oas:"required"`
	Lines                   []trialLineResponse `json:"lines" oas:"required" description:"Your accounts (OWN), platform accounts and one COUNTERPARTY line for every other tenant's."`
}

type trialBalanceResponse struct {
	Environment string               `json:"environment" oas:"required,enum=TEST|LIVE"`
	GeneratedAt time.Time            `json:"generatedAt" oas:"required"`
	AsOf        *time.Time           `json:"asOf" oas:"required" description:"The instant the balances are as of, recomputed from the accounts' history; null: now."`
	Assets      []trialAssetResponse `json:"assets" oas:"required" description:"One trial balance per asset."`
}

func toTrialBalance(v finance.TrialBalanceView) trialBalanceResponse {
	out := trialBalanceResponse{Environment: string(v.Environment), GeneratedAt: v.GeneratedAt, AsOf: v.AsOf, Assets: make([]trialAssetResponse, len(v.Assets))}
	for i, a := range v.Assets {
		t := a.Totals
		ta := trialAssetResponse{
			Asset: a.Asset, Balanced: t.Balanced(),
			PostedDebits: core.FormatUSD(t.PostedDebits), PostedDebitsBaseUnits: baseUnits(t.PostedDebits),
			PostedCredits: core.FormatUSD(t.PostedCredits), PostedCreditsBaseUnits: baseUnits(t.PostedCredits),
			PendingDebits: core.FormatUSD(t.PendingDebits), PendingDebitsBaseUnits: baseUnits(t.PendingDebits),
			PendingCredits: core.FormatUSD(t.PendingCredits), PendingCreditsBaseUnits: baseUnits(t.PendingCredits),
			Lines: make([]trialLineResponse, len(a.Lines)),
		}
		for j, l := range a.Lines {
			ta.Lines[j] = trialLineResponse{AccountID: strPtr(l.AccountID), Reference: l.Reference, Kind: l.Kind, Scope: l.Scope,
				Balance: toLedgerBalance(l.Balance)}
		}
		out.Assets[i] = ta
	}
	return out
}

func baseUnits(v int64) string { return strconv.FormatInt(v, 10) }

// metadataOf is never nil, so metadata is always a JSON object.
func metadataOf(t ledger.Transfer) map[string]string {
	if t.Metadata == nil {
		return map[string]string{}
	}
	return t.Metadata
}

type balanceTransactionResponse struct {
	TransferID     string    `json:"transferId" oas:"required" description:"The ledger transfer that moved the balance."`
	CreatedAt      time.Time `json:"createdAt" oas:"required"`
	ObjectType     string    `json:"objectType" oas:"required,enum=sandbox_deposit|offramp_payment|chain_transfer|card_authorization|checkout|checkout_refund|treasury_bucket|ledger_transfer" description:"What the movement belongs to."`
	ObjectID       string    `json:"objectId" oas:"required" example:"dep_06h0c8y3a9xq2v5m7k1d4f6g8j" description:"The id of that object (for an on-chain transfer: its transaction hash and log index)."`
	Description    string    `json:"description" oas:"required" description:"The movement in words, such as Off-ramp payment: funds locked."`
	Asset          string    `json:"asset" oas:"required"`
	AccountID      string    `json:"accountId" oas:"required"`
	AccountKind    string    `json:"accountKind" oas:"required,enum=tenant_available|wallet_onchain" description:"Which balance moved: the service balance or a wallet's on-chain mirror."`
	Gross          string    `json:"gross" oas:"required" example:"-97" description:"net + fee, signed."`
	GrossBaseUnits string    `json:"grossBaseUnits" oas:"required" example:"-97000000"`
	Fee            string    `json:"fee" oas:"required" example:"3" description:"What the platform took in the same transfer (zero or more)."`
	FeeBaseUnits   string    `json:"feeBaseUnits" oas:"required" example:"3000000"`
	Net            string    `json:"net" oas:"required" example:"-100" description:"The signed change to the balance: positive credits, negative debits."`
	NetBaseUnits   string    `json:"netBaseUnits" oas:"required" example:"-100000000"`
	Type           string    `json:"type" oas:"required,enum=POSTED|PENDING|POST_PENDING|VOID_PENDING|REVERSAL"`
	Reference      string    `json:"reference" oas:"required" description:"The transfer's ledger reference, as in the journal."`
}

type balanceTransactionListResponse struct {
	BalanceTransactions []balanceTransactionResponse `json:"balanceTransactions" oas:"required" description:"Oldest first."`
	Total               int                          `json:"total" oas:"required"`
}

func toBalanceTransaction(bt finance.BalanceTransaction) balanceTransactionResponse {
	return balanceTransactionResponse{
		TransferID: bt.TransferID, CreatedAt: bt.CreatedAt, ObjectType: bt.ObjectType, ObjectID: bt.ObjectID,
		Description: bt.Description, Asset: bt.Asset, AccountID: bt.AccountID, AccountKind: bt.AccountKind,
		Gross: core.FormatUSD(bt.Gross), GrossBaseUnits: baseUnits(bt.Gross), Fee: core.FormatUSD(bt.Fee), FeeBaseUnits: baseUnits(bt.Fee),
		Net: core.FormatUSD(bt.Net), NetBaseUnits: baseUnits(bt.Net), Type: string(bt.Type), Reference: bt.Reference,
	}
}
