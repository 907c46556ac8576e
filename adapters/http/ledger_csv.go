package http

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
)

// The finance reports in CSV (docs/ledger.md): a caller asks with Accept: text/csv. Every
// writer follows the journal export's rules: RFC 4180 with CRLF, a header row of stable column
// names (columns are only ever appended), amounts as signed decimals and base units, fixed-width
// UTC times, and free text through csvText so a spreadsheet never evaluates a cell.

const csvContentType = "text/csv; charset=utf-8"

// wantsCSV says whether the caller prefers CSV to JSON; without an Accept header (or with */*)
// the answer is JSON. The answer then varies by Accept, which caches are told.
func wantsCSV(c *fiber.Ctx) bool {
	c.Vary(fiber.HeaderAccept)
	return c.Accepts(fiber.MIMEApplicationJSON, "text/csv") == "text/csv"
}

// sendCSV writes rows under header as an attachment named filename; total, when not negative,
// goes to X-Total-Count (the rows of the whole window, for paging).
func sendCSV(c *fiber.Ctx, filename string, header []string, rows [][]string, total int) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	if err := w.Write(header); err != nil {
		return err
	}
	if err := w.WriteAll(rows); err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, csvContentType)
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+filename+`"`)
	if total >= 0 {
		c.Set("X-Total-Count", strconv.Itoa(total))
	}
	return c.Send(buf.Bytes())
}

// amountCells renders an amount as its decimal string and its base units.
func amountCells(v int64) []string { return []string{core.FormatUSD(v), baseUnits(v)} }

// balanceCells renders a balance: posted, pending debits, pending credits and available, each
// twice (decimal, base units).
func balanceCells(b ledger.Balance) []string {
	out := append(amountCells(b.Posted), amountCells(b.PendingDebits)...)
	out = append(out, amountCells(b.PendingCredits)...)
	return append(out, amountCells(b.Posted-b.PendingDebits)...) // validated: never overflows
}

var balanceColumns = []string{
	"posted", "postedBaseUnits", "pendingDebits", "pendingDebitsBaseUnits",
	"pendingCredits", "pendingCreditsBaseUnits", "available", "availableBaseUnits",
}

// BalancesCSVColumns are the columns of GET /v1/balances as CSV, one row per asset.
var BalancesCSVColumns = []string{"environment", "asOf", "asset", "accountId", "available", "availableBaseUnits", "held", "heldBaseUnits", "total", "totalBaseUnits"}

func balancesCSV(c *fiber.Ctx, v finance.BalancesView) error {
	rows := make([][]string, len(v.Balances))
	for i, b := range v.Balances {
		row := []string{string(v.Environment), csvTimeOf(v.AsOf), b.Asset, b.AccountID}
		row = append(row, amountCells(b.Balance.Available())...)
		row = append(row, amountCells(b.Balance.PendingDebits)...)
		rows[i] = append(row, amountCells(b.Balance.Posted)...)
	}
	return sendCSV(c, "corridor-balances.csv", BalancesCSVColumns, rows, -1)
}

// AccountsCSVColumns are the columns of GET /v1/ledger/accounts as CSV.
var AccountsCSVColumns = append([]string{"accountId", "asset", "kind", "reference", "createdAt", "asOf"}, balanceColumns...)

func accountsCSV(c *fiber.Ctx, v accountsPage) error {
	rows := make([][]string, len(v.accounts))
	for i, ab := range v.accounts {
		a := ab.Account
		row := []string{a.ID, a.Asset, a.Kind, csvText(a.Reference), a.CreatedAt.UTC().Format(CSVTime), csvTimeOf(v.asOf)}
		rows[i] = append(row, balanceCells(ab.Balance)...)
	}
	return sendCSV(c, "corridor-ledger-accounts.csv", AccountsCSVColumns, rows, v.total)
}

// StatementCSVColumns are the columns of a statement as CSV. The first row is the opening
// balance and the last the closing one (line "OPENING" / "CLOSING", no transfer); every other
// row is a transfer with its change and the balance after it.
var StatementCSVColumns = append([]string{
	"line", "sequence", "transferId", "createdAt", "reference", "type", "status", "amount", "amountBaseUnits",
}, prefixed("after", balanceColumns)...)

func statementCSV(c *fiber.Ctx, v finance.StatementView) error {
	st := v.Statement
	blank := []string{"", "", "", "", "", "", "", ""}
	rows := [][]string{append(append([]string{"OPENING"}, blank...), balanceCells(st.Opening)...)}
	for _, l := range st.Lines {
		t := l.Transfer
		row := []string{"TRANSFER", strconv.FormatInt(l.Sequence, 10), t.ID, t.CreatedAt.UTC().Format(CSVTime), csvText(t.Reference),
			string(t.Type), string(l.State.Status)}
		row = append(row, amountCells(l.Amount)...)
		rows = append(rows, append(row, balanceCells(l.After)...))
	}
	rows = append(rows, append(append([]string{"CLOSING"}, blank...), balanceCells(st.Closing)...))
	return sendCSV(c, "corridor-statement-"+v.Account.Account.ID+".csv", StatementCSVColumns, rows, st.Total)
}

// TrialBalanceCSVColumns are the columns of the trial balance as CSV: one row per line; within
// an asset the posted and pending columns each sum to zero.
var TrialBalanceCSVColumns = append([]string{"environment", "asOf", "asset", "scope", "accountId", "reference", "kind"}, balanceColumns...)

func trialBalanceCSV(c *fiber.Ctx, v finance.TrialBalanceView) error {
	var rows [][]string
	for _, a := range v.Assets {
		for _, l := range a.Lines {
			row := []string{string(v.Environment), csvTimeOf(v.AsOf), a.Asset, l.Scope, l.AccountID, csvText(l.Reference), l.Kind}
			rows = append(rows, append(row, balanceCells(l.Balance)...))
		}
	}
	return sendCSV(c, "corridor-trial-balance.csv", TrialBalanceCSVColumns, rows, -1)
}

// BalanceTransactionsCSVColumns are the columns of GET /v1/balance-transactions as CSV.
var BalanceTransactionsCSVColumns = []string{
	"transferId", "createdAt", "objectType", "objectId", "description", "asset", "accountId", "accountKind",
	"gross", "grossBaseUnits", "fee", "feeBaseUnits", "net", "netBaseUnits", "type", "reference",
}

func balanceTransactionsCSV(c *fiber.Ctx, v balanceTransactionsPage) error {
	rows := make([][]string, len(v.items))
	for i, bt := range v.items {
		row := []string{bt.TransferID, bt.CreatedAt.UTC().Format(CSVTime), bt.ObjectType, csvText(bt.ObjectID), csvText(bt.Description),
			bt.Asset, bt.AccountID, bt.AccountKind}
		row = append(append(append(row, amountCells(bt.Gross)...), amountCells(bt.Fee)...), amountCells(bt.Net)...)
		rows[i] = append(row, string(bt.Type), csvText(bt.Reference))
	}
	return sendCSV(c, "corridor-balance-transactions.csv", BalanceTransactionsCSVColumns, rows, v.total)
}

func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + string(n[0]-'a'+'A') + n[1:]
	}
	return out
}

// csvTimeOf renders an optional instant; empty when there is none (a report as of now).
func csvTimeOf(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(CSVTime)
}
