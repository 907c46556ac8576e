package http

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// financeHandlers serve the service balance, the ledger's finance reads, reconciliation and
// the service's status.
type financeHandlers struct {
	svc *finance.Service
	// exports bound the CSV exports in flight (exports.go).
	exports *exportSlots
}

// ledgerEndpoints are the routes of the ledger capability (balances, sandbox deposits, finance).
// Scopes (docs/decisions/README.md, "Ledger"): the service balance is payments:read, a sandbox
// deposit payments:create (TEST only), and every finance read treasury:read.
func (h *financeHandlers) ledgerEndpoints() []Endpoint {
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	window := []Param{
		{Name: "from", In: "query", Description: "RFC 3339; only transfers created at or after it"},
		{Name: "to", In: "query", Description: "RFC 3339; only transfers created before it"},
	}
	asOf := Param{Name: "asOf", In: "query", Description: "RFC 3339; balances as of this instant, recomputed from the ledger's history; not in the future (more than a minute ahead of the service's clock is 400 VALIDATION_FAILED)"}
	finance := []auth.Scope{auth.ScopeTreasuryRead}
	exportPaging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"},
		{Name: "take", In: "query", Integer: true, Description: "at most 100 (JSON) or 10000 (CSV)"}}
	return []Endpoint{
		{Method: "GET", Path: "/v1/balances", Summary: "The caller's service balance per asset: available, held and total", Tag: "balances",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsRead}, Params: []Param{asOf},
			Responses: map[int]any{200: Content{"application/json": balancesResponse{}, "text/csv": ""}}, Handler: h.getBalances},
		{Method: "POST", Path: "/v1/sandbox/balance-deposits", Summary: "TEST only: credit the caller's service balance from the sandbox pool", Tag: "balances",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsCreate}, Request: depositRequest{},
			Responses: map[int]any{201: depositResponse{}, 403: Envelope{}}, Prepare: h.prepareDeposit},
		{Method: "GET", Path: "/v1/ledger/accounts", Summary: "The caller's ledger accounts with balances (now or as of an instant)", Tag: "ledger",
			Auth: authRequired, Scopes: finance, Params: append([]Param{asOf}, paging...),
			Responses: map[int]any{200: Content{"application/json": ledgerAccountListResponse{}, "text/csv": ""}}, Handler: h.listLedgerAccounts},
		{Method: "GET", Path: "/v1/ledger/accounts/{id}/statement", Summary: "An account statement with running balances over [from, to) or up to asOf; Accept: text/csv for CSV", Tag: "ledger",
			Auth: authRequired, Scopes: finance,
			Params:    append(append([]Param{{Name: "id", In: "path"}, {Name: "asOf", In: "query", Description: "RFC 3339; the statement up to and including this instant (instead of to); not in the future (more than a minute ahead is 400 VALIDATION_FAILED)"}}, window...), exportPaging...),
			Responses: map[int]any{200: Content{"application/json": statementResponse{}, "text/csv": ""}, 404: Envelope{}}, Handler: h.accountStatement},
		{Method: "GET", Path: "/v1/ledger/entries", Summary: "Journal entries touching the caller's accounts; ?format=csv exports CSV (text/csv, see docs/ledger.md)", Tag: "ledger",
			Auth: authRequired, Scopes: finance,
			Params: append(append([]Param{
				{Name: "format", In: "query", Description: "json (default) or csv; a CSV page holds up to 10000 transfers"},
				{Name: "accountId", In: "query", Description: "only entries touching this account of the caller"},
			}, window...), Param{Name: "skip", In: "query", Integer: true, Description: "at most 10000"},
				Param{Name: "take", In: "query", Integer: true, Description: "at most 100 (JSON) or 10000 (CSV)"}),
			Responses: map[int]any{200: Content{"application/json": entryListResponse{}, "text/csv": ""}, 404: Envelope{}}, Handler: h.listEntries},
		{Method: "GET", Path: "/v1/ledger/trial-balance", Summary: "The caller's trial balance per asset, now or as of an instant; balanced means it sums to zero", Tag: "ledger",
			Auth: authRequired, Scopes: finance, Params: []Param{{Name: "asOf", In: "query", Description: "RFC 3339; the trial balance as of this instant, recomputed from the accounts' history; not in the future (more than a minute ahead is 400 VALIDATION_FAILED)"}},
			Responses: map[int]any{200: Content{"application/json": trialBalanceResponse{}, "text/csv": ""}}, Handler: h.trialBalance},
		{Method: "GET", Path: "/v1/balance-transactions", Summary: "Every movement of the caller's balances with its object, gross, fee and net; Accept: text/csv for CSV", Tag: "ledger",
			Auth: authRequired, Scopes: finance, Params: append(append([]Param{}, window...), exportPaging...),
			Responses: map[int]any{200: Content{"application/json": balanceTransactionListResponse{}, "text/csv": ""}}, Handler: h.listBalanceTransactions},
		{Method: "GET", Path: "/v1/ledger/reconciliation", Summary: "Per wallet: the ledger mirror's USDC balance, the live on-chain balance and the drift, with the indexer's block (docs/chain.md)", Tag: "ledger",
			Auth: authRequired, Scopes: finance,
			Responses: map[int]any{200: reconciliationResponse{}, 503: Envelope{}}, Handler: h.ledgerReconciliation},
	}
}

// statusEndpoints are the service's status as the caller's environment sees it (docs/architecture.md).
func (h *financeHandlers) statusEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/v1/status", Summary: "Service, database, per-environment chain and outside dependency health; a part that is down is reported, never a 5xx", Tag: "service",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeStatusRead},
			Responses: map[int]any{200: statusResponse{}}, Handler: h.getStatus},
	}
}

type chainHealthResponse struct {
	Environment         string  `json:"environment" oas:"required,enum=TEST|LIVE"`
	Status              string  `json:"status" oas:"required,enum=ok|degraded|unavailable|not_configured"`
	ChainID             *int64  `json:"chainId" oas:"required"`
	LatestBlock         *uint64 `json:"latestBlock" oas:"required" description:"null when the node could not be read"`
	IndexedThroughBlock *uint64 `json:"indexedThroughBlock" oas:"required" description:"the last block the ledger mirror has posted; null before its first run"`
	MirrorLagBlocks     *uint64 `json:"mirrorLagBlocks" oas:"required" description:"latestBlock minus indexedThroughBlock; past 600 the environment is degraded"`
	Problem             *string `json:"problem" oas:"required" description:"What is wrong with the chain in a sentence (the node cannot be read, the mirror trails the head); null when there is nothing to report."`
}

type dependencyHealthResponse struct {
	Name      string     `json:"name" oas:"required" description:"The dependency: payout:<provider>, sms or card_issuer."`
	Kind      string     `json:"kind" oas:"required,enum=payout_provider|sms|card_issuer"`
	Status    string     `json:"status" oas:"required,enum=ok|unavailable" description:"unavailable once several calls in a row got no answer; ok again at the next answer. While unavailable, only the operations that call it answer 503 PROVIDER_UNAVAILABLE (or wait in their jobs); everything else is served."`
	ChangedAt *time.Time `json:"changedAt" oas:"required,nullable" description:"When the current status began; null before the first call."`
	Problem   *string    `json:"problem" oas:"required,nullable" description:"What is wrong in a sentence while unavailable; null otherwise."`
}

type statusResponse struct {
	Status       string                     `json:"status" oas:"required,enum=ok|degraded"`
	Service      string                     `json:"service" oas:"required,enum=ok" description:"Always ok: the service answered."`
	Database     string                     `json:"database" oas:"required,enum=ok|unavailable" description:"ok while the database answers, else unavailable."`
	Chains       []chainHealthResponse      `json:"chains" oas:"required" description:"One chain per environment, with its indexer's lag."`
	Dependencies []dependencyHealthResponse `json:"dependencies" oas:"required" description:"The outside dependencies the service calls (payout providers, the SMS gateway, the card issuer), as their recent calls saw them."`
	CheckedAt    time.Time                  `json:"checkedAt" oas:"required"`
}

func (h *financeHandlers) getStatus(c *fiber.Ctx) error {
	rep, err := h.svc.Status(c.UserContext(), principal(c))
	if err != nil {
		return err
	}
	out := statusResponse{Status: rep.Status, Service: finance.HealthOK, Database: rep.Database, CheckedAt: rep.CheckedAt,
		Chains: make([]chainHealthResponse, len(rep.Chains))}
	for i, health := range rep.Chains {
		out.Chains[i] = chainHealthResponse{Environment: string(health.Environment), Status: health.Status, ChainID: health.ChainID,
			LatestBlock: health.LatestBlock, IndexedThroughBlock: health.IndexedThroughBlock, MirrorLagBlocks: health.MirrorLagBlocks,
			Problem: strPtr(health.Problem)}
	}
	out.Dependencies = make([]dependencyHealthResponse, len(rep.Dependencies))
	for i, d := range rep.Dependencies {
		out.Dependencies[i] = dependencyHealthResponse{Name: d.Name, Kind: d.Kind, Status: d.Status, ChangedAt: d.Since, Problem: strPtr(d.Problem)}
	}
	return c.JSON(out)
}

// getBalances, the ledger's accounts, a statement, the trial balance and the balance
// transactions are all one shape (exportRead): parse the query, run the use case, answer
// CSV or JSON.
func (h *financeHandlers) getBalances(c *fiber.Ctx) error {
	return exportRead(c, h.exports, asOfQuery, h.svc.Balances, balancesCSV, toBalances)
}

// prepareDeposit names the rows the deposit will lock before its unit of work runs, so its
// claim of the Idempotency-Key locks them in the same statement (finance.PrepareSandboxDeposit).
func (h *financeHandlers) prepareDeposit(c *fiber.Ctx) (fiber.Handler, error) {
	h.svc.PrepareSandboxDeposit(c.UserContext(), principal(c))
	return h.createDeposit, nil
}

func (h *financeHandlers) createDeposit(c *fiber.Ctx) error {
	var req depositRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	d, err := h.svc.SandboxDeposit(c.UserContext(), principal(c), finance.DepositInput{AmountUSD: req.AmountUSD})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toDeposit(d))
}

func (h *financeHandlers) listLedgerAccounts(c *fiber.Ctx) error {
	return exportRead(c, h.exports, accountsQuery, h.ledgerAccounts, accountsCSV, toLedgerAccountList)
}

// accountsRequest is GET /v1/ledger/accounts's query; the page is read first, as it always was.
type accountsRequest struct {
	page ports.Page
	asOf *time.Time
}

func accountsQuery(c *fiber.Ctx) (q accountsRequest, err error) {
	if q.page, err = pageOf(c); err != nil {
		return q, err
	}
	q.asOf, err = queryTime(c, "asOf")
	return q, err
}

// accountsPage is one page of the caller's accounts with the instant its balances are as of.
type accountsPage struct {
	accounts []ports.AccountBalance
	total    int
	asOf     *time.Time
}

func (h *financeHandlers) ledgerAccounts(ctx context.Context, p auth.Principal, q accountsRequest) (accountsPage, error) {
	accounts, total, err := h.svc.LedgerAccounts(ctx, p, q.page, q.asOf)
	return accountsPage{accounts: accounts, total: total, asOf: q.asOf}, err
}

func toLedgerAccountList(v accountsPage) ledgerAccountListResponse {
	out := ledgerAccountListResponse{Accounts: make([]ledgerAccountResponse, len(v.accounts)), Total: v.total, AsOf: v.asOf}
	for i, ab := range v.accounts {
		out.Accounts[i] = toLedgerAccount(ab)
	}
	return out
}

func (h *financeHandlers) accountStatement(c *fiber.Ctx) error {
	return exportRead(c, h.exports, statementQuery, h.statement, statementCSV, toStatement)
}

// paged is an exportable list's parsed query: the use case's input and the page asked for.
type paged[In any] struct {
	in   In
	page ports.Page
}

func statementQuery(c *fiber.Ctx) (paged[finance.StatementInput], error) {
	w, err := exportWindowOf(c, wantsCSV(c))
	if err != nil {
		return paged[finance.StatementInput]{}, err
	}
	asOf, err := queryTime(c, "asOf")
	if err != nil {
		return paged[finance.StatementInput]{}, err
	}
	in := finance.StatementInput{AccountID: strings.TrimSpace(c.Params("id")), From: w.from, To: w.to, AsOf: asOf, Export: w.export}
	return paged[finance.StatementInput]{in: in, page: w.page}, nil
}

func (h *financeHandlers) statement(ctx context.Context, p auth.Principal, q paged[finance.StatementInput]) (finance.StatementView, error) {
	return h.svc.LedgerStatementOf(ctx, p, q.in, q.page)
}

func (h *financeHandlers) listEntries(c *fiber.Ctx) error {
	format := c.Query("format", "json")
	if format != "json" && format != "csv" {
		return core.Invalid("format", "must be json or csv")
	}
	if c.Query("format") == "" && wantsCSV(c) {
		format = "csv"
	}
	w, err := exportWindowOf(c, format == "csv")
	if err != nil {
		return err
	}
	in := finance.EntriesInput{AccountID: strings.TrimSpace(c.Query("accountId")), From: w.from, To: w.to, Export: w.export}
	if format == "csv" {
		release, err := h.exports.acquire(c, principal(c).TenantID)
		if err != nil {
			return err
		}
		defer release()
	}
	entries, total, err := h.svc.LedgerEntries(c.UserContext(), principal(c), in, w.page)
	if err != nil {
		return err
	}
	if format == "csv" {
		body, err := entriesCSV(entries)
		if err != nil {
			return err
		}
		c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
		c.Set(fiber.HeaderContentDisposition, `attachment; filename="corridor-ledger-entries.csv"`)
		c.Set("X-Total-Count", strconv.Itoa(total))
		return c.Send(body)
	}
	out := entryListResponse{Entries: make([]entryResponse, len(entries)), Total: total}
	for i, e := range entries {
		out.Entries[i] = toEntry(e)
	}
	return c.JSON(out)
}

func (h *financeHandlers) trialBalance(c *fiber.Ctx) error {
	return exportRead(c, h.exports, asOfQuery, h.svc.LedgerTrialBalanceAsOf, trialBalanceCSV, toTrialBalance)
}

func (h *financeHandlers) listBalanceTransactions(c *fiber.Ctx) error {
	return exportRead(c, h.exports, balanceTransactionsQuery, h.balanceTransactions, balanceTransactionsCSV, toBalanceTransactionList)
}

func balanceTransactionsQuery(c *fiber.Ctx) (paged[finance.BalanceTransactionsInput], error) {
	w, err := exportWindowOf(c, wantsCSV(c))
	in := finance.BalanceTransactionsInput{From: w.from, To: w.to, Export: w.export}
	return paged[finance.BalanceTransactionsInput]{in: in, page: w.page}, err
}

// balanceTransactionsPage is one page of balance transactions with the window's total.
type balanceTransactionsPage struct {
	items []finance.BalanceTransaction
	total int
}

func (h *financeHandlers) balanceTransactions(ctx context.Context, p auth.Principal, q paged[finance.BalanceTransactionsInput]) (balanceTransactionsPage, error) {
	bts, total, err := h.svc.BalanceTransactions(ctx, p, q.in, q.page)
	return balanceTransactionsPage{items: bts, total: total}, err
}

func toBalanceTransactionList(v balanceTransactionsPage) balanceTransactionListResponse {
	out := balanceTransactionListResponse{BalanceTransactions: make([]balanceTransactionResponse, len(v.items)), Total: v.total}
	for i, bt := range v.items {
		out.BalanceTransactions[i] = toBalanceTransaction(bt)
	}
	return out
}

// exportRead is the one shape of the finance reads a caller may take as JSON or CSV: parse
// the query (a bad one is answered before anything is read), run the use case as the caller,
// then answer CSV when the caller prefers text/csv, else JSON. It is generic so each read
// keeps its own typed request, view and DTO; the order of the checks is the handlers' own
// (a parse that pages a CSV export asks wantsCSV first, which only adds Vary once).
func exportRead[Q, V, R any](c *fiber.Ctx, slots *exportSlots, parse func(*fiber.Ctx) (Q, error),
	read func(context.Context, auth.Principal, Q) (V, error), csvOf func(*fiber.Ctx, V) error, jsonOf func(V) R) error {
	q, err := parse(c)
	if err != nil {
		return err
	}
	csvOut := wantsCSV(c)
	if csvOut {
		// A CSV page is read and rendered in memory: the exports in flight are bounded
		// (exports.go), a caller past the limits answered 429 before anything is read.
		release, err := slots.acquire(c, principal(c).TenantID)
		if err != nil {
			return err
		}
		defer release()
	}
	v, err := read(c.UserContext(), principal(c), q)
	if err != nil {
		return err
	}
	if csvOut {
		return csvOf(c, v)
	}
	return c.JSON(jsonOf(v))
}

// asOfQuery reads the optional asOf instant, the whole query of the balances and the trial balance.
func asOfQuery(c *fiber.Ctx) (*time.Time, error) { return queryTime(c, "asOf") }

// entriesPage reads skip and take; a CSV export pages up to finance.MaxExportTake transfers.
func entriesPage(c *fiber.Ctx, export bool) (ports.Page, error) {
	if !export {
		return pageOf(c)
	}
	errs := core.FieldErrors{}
	skip, err := queryInt(c, "skip", 0, ports.MaxSkip)
	if err != nil {
		errs.Add("skip", "must be an integer from 0 to "+strconv.Itoa(ports.MaxSkip))
	}
	take, err := queryInt(c, "take", finance.MaxExportTake, finance.MaxExportTake)
	if err != nil || (take == 0 && c.Query("take") != "") {
		errs.Add("take", "must be an integer from 1 to "+strconv.Itoa(finance.MaxExportTake))
	}
	return ports.Page{Skip: skip, Take: take}, errs.Err()
}

// exportWindow is the query the exportable lists share: a page (a CSV export pages further)
// and a [from, to) window of creation times.
type exportWindow struct {
	export   bool
	page     ports.Page
	from, to *time.Time
}

// exportWindowOf reads the page before the window: a request with both wrong is answered
// about its page, as these lists always have.
func exportWindowOf(c *fiber.Ctx, export bool) (w exportWindow, err error) {
	w.export = export
	if w.page, err = entriesPage(c, export); err != nil {
		return w, err
	}
	w.from, w.to, err = window(c)
	return w, err
}

// window reads the from and to query parameters of a time range [from, to).
func window(c *fiber.Ctx) (from, to *time.Time, err error) {
	if from, err = queryTime(c, "from"); err != nil {
		return nil, nil, err
	}
	to, err = queryTime(c, "to")
	return from, to, err
}

// queryTime reads an optional RFC 3339 timestamp, kept at microsecond precision in UTC.
func queryTime(c *fiber.Ctx, name string) (*time.Time, error) {
	raw := c.Query(name)
	if raw == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, raw)
	if err != nil {
		return nil, core.Invalid(name, "must be an RFC 3339 timestamp such as 2026-01-31T00:00:00Z")
	}
	t = t.UTC().Truncate(time.Microsecond)
	return &t, nil
}

// EntriesCSVColumns are the columns of GET /v1/ledger/entries?format=csv, in order: one row per
// posting, rows ordered by sequence and then account id. They are part of the API: columns
// are only ever appended (docs/ledger.md).
var EntriesCSVColumns = []string{
	"sequence", "transferId", "createdAt", "reference", "type", "targetId", "asset",
	"accountId", "accountReference", "accountKind", "amount", "amountBaseUnits", "metadata",
}

// CSVTime is how every CSV export writes an instant (the API's and the console's): UTC,
// microseconds, always six digits.
const CSVTime = "2006-01-02T15:04:05.000000Z"

// entriesCSV renders journal entries as RFC 4180 CSV (CRLF line ends). The output depends
// only on the recorded (immutable) transfers, so exporting a closed period twice gives the
// same bytes: no transfer status, no generation time.
func entriesCSV(entries []finance.JournalEntryView) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	if err := w.Write(EntriesCSVColumns); err != nil {
		return nil, err
	}
	for _, e := range entries {
		t := e.Transfer
		metadata, err := json.Marshal(metadataOf(t)) // keys sorted: canonical
		if err != nil {
			return nil, err
		}
		for _, l := range e.Lines {
			err := w.Write([]string{
				strconv.FormatInt(e.Sequence, 10), t.ID, t.CreatedAt.UTC().Format(CSVTime), csvText(t.Reference),
				string(t.Type), t.TargetID(), t.Asset, l.AccountID, csvText(l.Reference), l.Kind,
				core.FormatUSD(l.Amount), strconv.FormatInt(l.Amount, 10), csvText(string(metadata)),
			})
			if err != nil {
				return nil, err
			}
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// csvText defuses spreadsheet formula injection in free-text cells: a cell starting with
// = + - @ or a control character gets a leading apostrophe. Amounts are never prefixed.
func csvText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// EntriesCSV renders journal entries exactly as GET /v1/ledger/entries?format=csv does, for
// the console's download.
func EntriesCSV(entries []finance.JournalEntryView) ([]byte, error) { return entriesCSV(entries) }

// GET /v1/ledger/reconciliation: the ledger mirror versus the chain, per wallet (docs/chain.md).
// Amounts follow the ledger DTOs: a decimal string and the same value in base units as a digit
// string. On-chain values (and so drift) are null when the chain could not be read.

type reconciliationAmounts struct {
	LedgerBalance           string  `json:"ledgerBalance" oas:"required"`
	LedgerBalanceBaseUnits  string  `json:"ledgerBalanceBaseUnits" oas:"required"`
	OnchainBalance          *string `json:"onchainBalance" oas:"required"`
	OnchainBalanceBaseUnits *string `json:"onchainBalanceBaseUnits" oas:"required"`
	// Drift is ledger − on-chain: positive when the ledger shows more than the chain holds.
	Drift          *string `json:"drift" oas:"required"`
	DriftBaseUnits *string `json:"driftBaseUnits" oas:"required"`
}

type walletReconciliationResponse struct {
	WalletID string `json:"walletId" oas:"required"`
	Address  string `json:"address" oas:"required"`
	reconciliationAmounts
}

type reconciliationIndexerResponse struct {
	// IndexedThroughBlock is the last block whose Transfer logs are in the ledger.
	IndexedThroughBlock *uint64 `json:"indexedThroughBlock" oas:"required"`
	// LatestBlock is the chain's head when the on-chain balances were read.
	LatestBlock *uint64 `json:"latestBlock" oas:"required"`
	// LagBlocks is LatestBlock − IndexedThroughBlock (null when either is unknown).
	LagBlocks *uint64 `json:"lagBlocks" oas:"required"`
}

type reconciliationResponse struct {
	Environment string                         `json:"environment" oas:"required,enum=TEST|LIVE"`
	ChainID     int64                          `json:"chainId" oas:"required"`
	Asset       string                         `json:"asset" oas:"required,enum=USDC"`
	Decimals    int                            `json:"decimals" oas:"required"`
	Wallets     []walletReconciliationResponse `json:"wallets" oas:"required" description:"Each wallet's ledger balance against its on-chain balance, at most 1000."`
	Total       int                            `json:"total" oas:"required"`
	// Truncated is true when the tenant has more wallets than one report covers (1000).
	Truncated   bool                          `json:"truncated" oas:"required" description:"Whether more wallets exist than the 1000 listed (total counts them all)."`
	Totals      reconciliationAmounts         `json:"totals" oas:"required"`
	Indexer     reconciliationIndexerResponse `json:"indexer" oas:"required"`
	GeneratedAt time.Time                     `json:"generatedAt" oas:"required"`
}

func (h *financeHandlers) ledgerReconciliation(c *fiber.Ctx) error {
	rep, err := h.svc.LedgerReconciliation(c.UserContext(), principal(c))
	if err != nil {
		return err
	}
	return c.JSON(toReconciliation(rep))
}

func toReconciliation(r finance.Reconciliation) reconciliationResponse {
	out := reconciliationResponse{
		Environment: string(r.Environment), ChainID: r.ChainID, Asset: "USDC", Decimals: core.USDCDecimals,
		Wallets: make([]walletReconciliationResponse, len(r.Wallets)), Total: r.Total, Truncated: r.Truncated,
		Totals:      amountsOf(big.NewInt(r.LedgerTotal), r.OnchainTotal, r.DriftTotal),
		Indexer:     reconciliationIndexerResponse{IndexedThroughBlock: r.IndexedThroughBlock, LatestBlock: r.LatestBlock},
		GeneratedAt: r.GeneratedAt,
	}
	if r.IndexedThroughBlock != nil && r.LatestBlock != nil && *r.LatestBlock >= *r.IndexedThroughBlock {
		lag := *r.LatestBlock - *r.IndexedThroughBlock
		out.Indexer.LagBlocks = &lag
	}
	for i, w := range r.Wallets {
		out.Wallets[i] = walletReconciliationResponse{WalletID: w.WalletID, Address: w.Address,
			reconciliationAmounts: amountsOf(big.NewInt(w.LedgerBalance), w.OnchainBalance, w.Drift)}
	}
	return out
}

func amountsOf(ledgerBalance, onchain, drift *big.Int) reconciliationAmounts {
	out := reconciliationAmounts{LedgerBalance: formatBaseUnits(ledgerBalance), LedgerBalanceBaseUnits: ledgerBalance.String()}
	if onchain != nil && drift != nil {
		out.OnchainBalance, out.OnchainBalanceBaseUnits = strPtr(formatBaseUnits(onchain)), strPtr(onchain.String())
		out.Drift, out.DriftBaseUnits = strPtr(formatBaseUnits(drift)), strPtr(drift.String())
	}
	return out
}

// formatBaseUnits is core.FormatUSD for values beyond int64 (an on-chain uint256).
func formatBaseUnits(v *big.Int) string {
	return decimal.NewFromBigInt(v, -core.USDCDecimals).String()
}

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
