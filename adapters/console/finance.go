package console

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	httpapi "github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/ports"
)

// financePages are the finance pages: balances, the journal and its CSV, the trial balance,
// reconciliation and accounts, each a finance use case called as the member.
type financePages struct{ *Console }

func (k financePages) financeRoutes(r fiber.Router) {
	r.Get("/balances", k.balances)
	r.Get("/entries", k.entries)
	r.Get("/entries.csv", k.entriesCSV)
	r.Get("/trial-balance", k.trialBalance)
	r.Get("/reconciliation", k.reconciliation)
	r.Get("/accounts", k.accounts)
	r.Get("/accounts/:id", k.account)
}

// home is the service balances: the first thing a finance person asks.
func (k financePages) home(c *fiber.Ctx) error { return k.overview(c) }

func (k financePages) balances(c *fiber.Ctx) error {
	v, err := k.svc.Finance.Balances(c.UserContext(), principal(c), nil)
	if err != nil {
		return k.fail(c, err)
	}
	return k.render(c, fiber.StatusOK, "balances", "Service balances", "", v)
}

// entriesFilter is the journal's filter form: an account and a [from, to) window. Dates
// (YYYY-MM-DD, as a date input sends) and RFC 3339 instants are both accepted, in UTC.
type entriesFilter struct {
	AccountID, From, To string
}

func (f entriesFilter) input() (finance.EntriesInput, string) {
	in := finance.EntriesInput{AccountID: f.AccountID}
	var msg string
	parse := func(name, s string) *time.Time {
		if s == "" {
			return nil
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02"} {
			if t, err := time.Parse(layout, s); err == nil {
				t = t.UTC().Truncate(time.Microsecond)
				return &t
			}
		}
		msg = name + " must be a date (YYYY-MM-DD) or an RFC 3339 timestamp"
		return nil
	}
	in.From, in.To = parse("from", f.From), parse("to", f.To)
	return in, msg
}

func filterOf(c *fiber.Ctx) entriesFilter {
	return entriesFilter{AccountID: strings.TrimSpace(c.Query("accountId")), From: strings.TrimSpace(c.Query("from")), To: strings.TrimSpace(c.Query("to"))}
}

type entriesData struct {
	Entries []finance.JournalEntryView
	Page    *pager
	Filter  entriesFilter
	CSV     string
	// Parts are the downloads of a window holding more transfers than one CSV does
	// (finance.MaxExportTake): one per page of the export, as far as the API's skip reaches;
	// Beyond is set when even those leave transfers out (the window must be narrowed).
	Parts  []csvPart
	Beyond bool
	// Own are the caller's account ids among the page's lines: only those link to a
	// statement; platform and world accounts do not.
	Own map[string]bool
}

func (k financePages) entries(c *fiber.Ctx) error {
	f := filterOf(c)
	in, msg := f.input()
	if msg != "" {
		return k.renderError(c, fiber.StatusUnprocessableEntity, msg)
	}
	page, pg := pageOf(c)
	es, total, err := k.svc.Finance.LedgerEntries(c.UserContext(), principal(c), in, page)
	if err != nil {
		return k.fail(c, err)
	}
	pg.Total = total
	own := map[string]bool{}
	for _, e := range es {
		for _, l := range e.Lines {
			if l.Own {
				own[l.AccountID] = true
			}
		}
	}
	data := entriesData{Entries: es, Page: pg, Filter: f, CSV: f.csvLink(0), Own: own}
	if total > finance.MaxExportTake {
		for skip := 0; skip < total && skip <= ports.MaxSkip; skip += finance.MaxExportTake {
			data.Parts = append(data.Parts, csvPart{Href: f.csvLink(skip), First: skip + 1, Last: min(skip+finance.MaxExportTake, total)})
		}
		data.Beyond = data.Parts[len(data.Parts)-1].Last < total
	}
	return k.render(c, fiber.StatusOK, "entries", "Journal entries", "", data)
}

// csvPart is one download of a journal larger than one CSV: transfers First to Last.
type csvPart struct {
	Href        string
	First, Last int
}

// csvLink is the journal's CSV download with the filter, from the skip-th transfer on; the
// page's own skip and take are not the export's.
func (f entriesFilter) csvLink(skip int) string {
	q := url.Values{}
	for name, v := range map[string]string{"accountId": f.AccountID, "from": f.From, "to": f.To} {
		if v != "" {
			q.Set(name, v)
		}
	}
	if skip > 0 {
		q.Set("skip", strconv.Itoa(skip))
	}
	if len(q) == 0 {
		return Prefix + "/entries.csv"
	}
	return Prefix + "/entries.csv?" + q.Encode()
}

// entriesCSV is the API's export, byte for byte: the same use case and the same writer as
// GET /v1/ledger/entries?format=csv with the same filters and skip, and the same
// X-Total-Count (the transfers of the window), so a window larger than one CSV is never cut
// short without a word.
func (k financePages) entriesCSV(c *fiber.Ctx) error {
	in, msg := filterOf(c).input()
	if msg != "" {
		return k.renderError(c, fiber.StatusUnprocessableEntity, msg)
	}
	skip := 0
	if s := strings.TrimSpace(c.Query("skip")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > ports.MaxSkip {
			return k.renderError(c, fiber.StatusUnprocessableEntity, "skip must be an integer from 0 to "+strconv.Itoa(ports.MaxSkip))
		}
		skip = n
	}
	in.Export = true
	release, err := k.exportSlot(c)
	if err != nil {
		return k.fail(c, err)
	}
	defer release()
	es, total, err := k.svc.Finance.LedgerEntries(c.UserContext(), principal(c), in, ports.Page{Skip: skip, Take: finance.MaxExportTake})
	if err != nil {
		return k.fail(c, err)
	}
	body, err := httpapi.EntriesCSV(es)
	if err != nil {
		return k.fail(c, err)
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="corridor-ledger-entries.csv"`)
	c.Set("X-Total-Count", strconv.Itoa(total))
	return c.Send(body)
}

func (k financePages) trialBalance(c *fiber.Ctx) error {
	v, err := k.svc.Finance.LedgerTrialBalance(c.UserContext(), principal(c))
	if err != nil {
		return k.fail(c, err)
	}
	return k.render(c, fiber.StatusOK, "trial", "Trial balance", "", v)
}

func (k financePages) reconciliation(c *fiber.Ctx) error {
	v, err := k.svc.Finance.LedgerReconciliation(c.UserContext(), principal(c))
	if err != nil {
		return k.fail(c, err)
	}
	return k.render(c, fiber.StatusOK, "reconciliation", "Reconciliation", "", v)
}

type accountsData struct {
	Accounts []ports.AccountBalance
	Page     *pager
}

func (k financePages) accounts(c *fiber.Ctx) error {
	page, pg := pageOf(c)
	as, total, err := k.svc.Finance.LedgerAccounts(c.UserContext(), principal(c), page, nil)
	if err != nil {
		return k.fail(c, err)
	}
	pg.Total = total
	return k.render(c, fiber.StatusOK, "accounts", "Ledger accounts", "", accountsData{Accounts: as, Page: pg})
}

// chartPoints is how many of an account's latest postings the chart draws.
const chartPoints = 100

type accountData struct {
	Statement finance.StatementView
	Chart     any
	Page      *pager
}

// account is one account's statement, newest page by default, with its balance over time
// drawn server-side as SVG.
func (k financePages) account(c *fiber.Ctx) error {
	id := c.Params("id")
	page, pg := pageOf(c)
	st, err := k.svc.Finance.LedgerStatement(c.UserContext(), principal(c), id, nil, nil, page)
	if err != nil {
		return k.fail(c, err)
	}
	if last := lastPageSkip(st.Statement.Total, page.Take); c.Query("skip") == "" && last > 0 {
		// No page asked for: the newest lines, where a finance team looks first.
		page.Skip, pg.Skip = last, last
		if st, err = k.svc.Finance.LedgerStatement(c.UserContext(), principal(c), id, nil, nil, page); err != nil {
			return k.fail(c, err)
		}
	}
	pg.Total = st.Statement.Total
	chart := st
	if st.Statement.Total > len(st.Statement.Lines) || page.Skip > 0 {
		skip := max(0, st.Statement.Total-chartPoints)
		if chart, err = k.svc.Finance.LedgerStatement(c.UserContext(), principal(c), id, nil, nil, ports.Page{Skip: skip, Take: chartPoints}); err != nil {
			return k.fail(c, err)
		}
	}
	return k.render(c, fiber.StatusOK, "account", "Account "+st.Account.Account.Reference, "", accountData{Statement: st, Chart: balanceChart(chart.Statement), Page: pg})
}

// lastPageSkip is the skip of a list's last page of take lines (0 for one page or none), within
// the skip every list allows.
func lastPageSkip(total, take int) int {
	if total <= take || take <= 0 {
		return 0
	}
	return min((total-1)/take*take, ports.MaxSkip)
}
