package http

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

func (h *financeHandlers) getBalances(c *fiber.Ctx) error {
	asOf, err := queryTime(c, "asOf")
	if err != nil {
		return err
	}
	view, err := h.svc.Balances(c.UserContext(), principal(c), asOf)
	if err != nil {
		return err
	}
	if wantsCSV(c) {
		return balancesCSV(c, view)
	}
	return c.JSON(toBalances(view))
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
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	asOf, err := queryTime(c, "asOf")
	if err != nil {
		return err
	}
	accounts, total, err := h.svc.LedgerAccounts(c.UserContext(), principal(c), page, asOf)
	if err != nil {
		return err
	}
	if wantsCSV(c) {
		return accountsCSV(c, accounts, total, asOf)
	}
	out := ledgerAccountListResponse{Accounts: make([]ledgerAccountResponse, len(accounts)), Total: total, AsOf: asOf}
	for i, ab := range accounts {
		out.Accounts[i] = toLedgerAccount(ab)
	}
	return c.JSON(out)
}

func (h *financeHandlers) accountStatement(c *fiber.Ctx) error {
	export := wantsCSV(c)
	page, err := entriesPage(c, export)
	if err != nil {
		return err
	}
	from, to, err := window(c)
	if err != nil {
		return err
	}
	asOf, err := queryTime(c, "asOf")
	if err != nil {
		return err
	}
	in := finance.StatementInput{AccountID: strings.TrimSpace(c.Params("id")), From: from, To: to, AsOf: asOf, Export: export}
	view, err := h.svc.LedgerStatementOf(c.UserContext(), principal(c), in, page)
	if err != nil {
		return err
	}
	if export {
		return statementCSV(c, view)
	}
	return c.JSON(toStatement(view))
}

func (h *financeHandlers) listEntries(c *fiber.Ctx) error {
	format := c.Query("format", "json")
	if format != "json" && format != "csv" {
		return core.Invalid("format", "must be json or csv")
	}
	if c.Query("format") == "" && wantsCSV(c) {
		format = "csv"
	}
	page, err := entriesPage(c, format == "csv")
	if err != nil {
		return err
	}
	from, to, err := window(c)
	if err != nil {
		return err
	}
	in := finance.EntriesInput{AccountID: strings.TrimSpace(c.Query("accountId")), From: from, To: to, Export: format == "csv"}
	entries, total, err := h.svc.LedgerEntries(c.UserContext(), principal(c), in, page)
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
	asOf, err := queryTime(c, "asOf")
	if err != nil {
		return err
	}
	view, err := h.svc.LedgerTrialBalanceAsOf(c.UserContext(), principal(c), asOf)
	if err != nil {
		return err
	}
	if wantsCSV(c) {
		return trialBalanceCSV(c, view)
	}
	return c.JSON(toTrialBalance(view))
}

func (h *financeHandlers) listBalanceTransactions(c *fiber.Ctx) error {
	export := wantsCSV(c)
	page, err := entriesPage(c, export)
	if err != nil {
		return err
	}
	from, to, err := window(c)
	if err != nil {
		return err
	}
	bts, total, err := h.svc.BalanceTransactions(c.UserContext(), principal(c), finance.BalanceTransactionsInput{From: from, To: to, Export: export}, page)
	if err != nil {
		return err
	}
	if export {
		return balanceTransactionsCSV(c, bts, total)
	}
	out := balanceTransactionListResponse{BalanceTransactions: make([]balanceTransactionResponse, len(bts)), Total: total}
	for i, bt := range bts {
		out.BalanceTransactions[i] = toBalanceTransaction(bt)
	}
	return c.JSON(out)
}

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

// csvTime is the export's fixed-width timestamp: UTC, microseconds, always six digits.
const csvTime = "2006-01-02T15:04:05.000000Z"

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
				strconv.FormatInt(e.Sequence, 10), t.ID, t.CreatedAt.UTC().Format(csvTime), csvText(t.Reference),
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
