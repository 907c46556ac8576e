package ledger

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
	"github.com/corridorhq/corridor/test/harness"
)

// journalSums sums the journal's postings per account reference, from the CSV export of the
// window [start, to): the journal "summed to an instant" the as-of reports must agree with.
func journalSums(t *testing.T, c *harness.Client, to time.Time) map[string]int64 {
	t.Helper()
	body := c.Get("/v1/ledger/entries?format=csv&to="+url.QueryEscape(to.Format(time.RFC3339Nano))).Expect(t, 200).Body
	rows := readCSV(t, body)
	sums := map[string]int64{}
	for _, r := range rows[1:] {
		units, err := strconv.ParseInt(r[11], 10, 64)
		if err != nil {
			t.Fatalf("row %v: %v", r, err)
		}
		sums[r[8]] += units
	}
	return sums
}

func readCSV(t *testing.T, body []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("csv %q: %v", body, err)
	}
	return rows
}

func units(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("base units %q: %v", s, err)
	}
	return v
}

// TestFinance_AsOfAgreesWithJournal: the trial balance, balances, account statement and
// balance transactions as of a past instant equal the journal summed up to that instant, in
// JSON and in CSV, and differ from the current answers once more money has moved.
func TestFinance_AsOfAgreesWithJournal(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	api := env().SDK(t, ten.RootKey)
	var stamps []time.Time
	for _, amount := range []string{"10", "2.25", "0.000001"} {
		at, err := time.Parse(time.RFC3339Nano, deposit(t, ten.Root, amount)["createdAt"].(string))
		if err != nil {
			t.Fatal(err)
		}
		stamps = append(stamps, at)
	}
	asOf := stamps[1]
	deposit(t, ten.Root, "100") // after the instant: the as-of answers must leave it out
	journal := journalSums(t, ten.Root, asOf.Add(time.Microsecond))
	own, pool := "tenant:"+ten.ID+":available", "platform:sandbox_pool"
	if journal[own] != 12_250_000 || journal[pool] != -12_250_000 {
		t.Fatalf("journal up to %s: %v", asOf, journal)
	}
	instant := asOf.Format(time.RFC3339Nano)
	ctx := context.Background()

	tb, err := api.GetTrialBalanceWithResponse(ctx, &corridor.GetTrialBalanceParams{AsOf: &instant})
	if err != nil || tb.JSON200 == nil {
		t.Fatalf("trial balance as of: %v %s", err, tb.Body)
	}
	if tb.JSON200.AsOf == nil || !tb.JSON200.AsOf.Equal(asOf) || len(tb.JSON200.Assets) != 1 || !tb.JSON200.Assets[0].Balanced {
		t.Fatalf("trial balance as of %s: %s", instant, tb.Body)
	}
	for _, l := range tb.JSON200.Assets[0].Lines {
		if got := units(t, l.Balance.PostedBaseUnits); got != journal[l.Reference] {
			t.Fatalf("trial balance line %s: %d, journal %d", l.Reference, got, journal[l.Reference])
		}
	}
	now, err := api.GetTrialBalanceWithResponse(ctx, &corridor.GetTrialBalanceParams{})
	if err != nil || now.JSON200 == nil || now.JSON200.AsOf != nil || now.JSON200.Assets[0].PostedCredits != "112.250001" {
		t.Fatalf("current trial balance: %v %s", err, now.Body)
	}
	// The same as CSV.
	csvTB := ten.Root.With("Accept", "text/csv").Get("/v1/ledger/trial-balance?asOf="+url.QueryEscape(instant)).Expect(t, 200)
	rows := readCSV(t, csvTB.Body)
	if !strings.HasPrefix(csvTB.Header.Get("Content-Type"), "text/csv") || strings.Join(rows[0][:8], ",") != "environment,asOf,asset,scope,accountId,reference,kind,posted" || len(rows) != 3 {
		t.Fatalf("trial balance csv:\n%s", csvTB.Body)
	}
	for _, r := range rows[1:] {
		if units(t, r[8]) != journal[r[5]] || r[1] != asOf.UTC().Format("2006-01-02T15:04:05.000000Z") {
			t.Fatalf("csv row %v, journal %v", r, journal)
		}
	}

	bal, err := api.ListBalancesWithResponse(ctx, &corridor.ListBalancesParams{AsOf: &instant})
	if err != nil || bal.JSON200 == nil || units(t, bal.JSON200.Balances[0].TotalBaseUnits) != journal[own] {
		t.Fatalf("balances as of: %v %s", err, bal.Body)
	}
	balCSV := readCSV(t, ten.Root.With("Accept", "text/csv").Get("/v1/balances?asOf="+url.QueryEscape(instant)).Expect(t, 200).Body)
	if len(balCSV) != 2 || balCSV[1][2] != "USDC" || units(t, balCSV[1][9]) != journal[own] {
		t.Fatalf("balances csv %v", balCSV)
	}

	acct, _ := serviceAccount(t, ten.Root, "")
	accCSV := readCSV(t, ten.Root.With("Accept", "text/csv").Get("/v1/ledger/accounts?asOf="+url.QueryEscape(instant)).Expect(t, 200).Body)
	if len(accCSV) != 2 || accCSV[1][0] != acct.ID || accCSV[1][3] != own || units(t, accCSV[1][7]) != journal[own] {
		t.Fatalf("accounts csv %v", accCSV)
	}
	// The journal honours Accept as well as ?format=csv.
	byAccept := ten.Root.With("Accept", "text/csv").Get("/v1/ledger/entries").Expect(t, 200)
	if !strings.HasPrefix(byAccept.Header.Get("Content-Type"), "text/csv") || byAccept.Header.Get("X-Total-Count") != "4" {
		t.Fatalf("entries with Accept: text/csv: %v", byAccept.Header)
	}
	st, err := api.GetLedgerAccountStatementWithResponse(ctx, acct.ID, &corridor.GetLedgerAccountStatementParams{AsOf: &instant})
	if err != nil || st.JSON200 == nil || st.JSON200.Total != 2 || units(t, st.JSON200.Closing.PostedBaseUnits) != journal[own] {
		t.Fatalf("statement as of: %v %s", err, st.Body)
	}
	if l := st.JSON200.Lines[0]; l.ObjectType != "sandbox_deposit" || !strings.HasPrefix(l.ObjectId, "dep_") || l.Description != "Sandbox deposit" {
		t.Fatalf("statement line reads %q %q %q", l.ObjectType, l.ObjectId, l.Description)
	}
	stCSV := readCSV(t, ten.Root.With("Accept", "text/csv").Get("/v1/ledger/accounts/"+acct.ID+"/statement?asOf="+url.QueryEscape(instant)).Expect(t, 200).Body)
	if len(stCSV) != 1+1+2+1 || stCSV[1][0] != "OPENING" || stCSV[4][0] != "CLOSING" || units(t, stCSV[4][10]) != journal[own] || units(t, stCSV[3][10]) != journal[own] {
		t.Fatalf("statement csv %v", stCSV)
	}
	to := asOf.Add(time.Microsecond).Format(time.RFC3339Nano)
	ten.Root.Get("/v1/ledger/accounts/"+acct.ID+"/statement?asOf="+url.QueryEscape(instant)+"&to="+url.QueryEscape(to)).ExpectError(t, 400, "VALIDATION_FAILED")

	bts, err := api.ListBalanceTransactionsWithResponse(ctx, &corridor.ListBalanceTransactionsParams{To: &to})
	if err != nil || bts.JSON200 == nil || bts.JSON200.Total != 2 {
		t.Fatalf("balance transactions up to the instant: %v %s", err, bts.Body)
	}
	var net int64
	for _, bt := range bts.JSON200.BalanceTransactions {
		net += units(t, bt.NetBaseUnits)
	}
	if net != journal[own] {
		t.Fatalf("balance transactions sum to %d, journal %d", net, journal[own])
	}
	ten.Root.Get("/v1/ledger/trial-balance?asOf=yesterday").ExpectError(t, 400, "VALIDATION_FAILED")

	// An instant in the future is refused on every as-of report: balances there are not known
	// yet, and a report of them would change until the instant passes. Nothing is read.
	future := url.QueryEscape(time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	for _, path := range []string{"/v1/balances", "/v1/ledger/accounts", "/v1/ledger/trial-balance", "/v1/ledger/accounts/" + acct.ID + "/statement"} {
		e := ten.Root.Get(path+"?asOf="+future).ExpectError(t, 400, "VALIDATION_FAILED")
		fields, _ := e["details"].(map[string]any)["fields"].(map[string]any)
		if reason, _ := fields["asOf"].(string); !strings.Contains(reason, "in the future") {
			t.Errorf("%s with a future asOf: %v", path, e)
		}
	}
	// A client clock a little ahead of the service's is not refused.
	ahead := url.QueryEscape(time.Now().Add(10 * time.Second).UTC().Format(time.RFC3339Nano))
	ten.Root.Get("/v1/ledger/trial-balance?asOf="+ahead).Expect(t, 200)
}

// TestFinance_BalanceTransactions: each movement of the service balance names its object in
// words, with gross, fee and net; the time range filters; CSV has the documented columns and
// the formula guard; another tenant sees none of it; the report needs treasury:read.
func TestFinance_BalanceTransactions(t *testing.T) {
	t.Parallel()
	ten, other := env().NewTenant(t), env().NewTenant(t)
	first := deposit(t, ten.Root, "5")
	second := deposit(t, ten.Root, "7.5")
	api := env().SDK(t, ten.RootKey)
	resp, err := api.ListBalanceTransactionsWithResponse(context.Background(), &corridor.ListBalanceTransactionsParams{})
	if err != nil || resp.JSON200 == nil || resp.JSON200.Total != 2 || len(resp.JSON200.BalanceTransactions) != 2 {
		t.Fatalf("balance transactions: %v %s", err, resp.Body)
	}
	bt := resp.JSON200.BalanceTransactions[0]
	if bt.ObjectType != "sandbox_deposit" || bt.ObjectId != first["id"] || bt.Description != "Sandbox deposit" || bt.TransferId != first["transferId"] ||
		bt.Gross != "5" || bt.Fee != "0" || bt.Net != "5" || bt.NetBaseUnits != "5000000" || bt.AccountKind != "tenant_available" || bt.Asset != "USDC" {
		t.Fatalf("first balance transaction %+v", bt)
	}
	from := second["createdAt"].(string)
	resp, err = api.ListBalanceTransactionsWithResponse(context.Background(), &corridor.ListBalanceTransactionsParams{From: &from})
	if err != nil || resp.JSON200 == nil || resp.JSON200.Total != 1 || resp.JSON200.BalanceTransactions[0].ObjectId != second["id"] {
		t.Fatalf("from the second deposit: %v %s", err, resp.Body)
	}
	out := ten.Root.With("Accept", "text/csv").Get("/v1/balance-transactions").Expect(t, 200)
	rows := readCSV(t, out.Body)
	header := "transferId,createdAt,objectType,objectId,description,asset,accountId,accountKind,gross,grossBaseUnits,fee,feeBaseUnits,net,netBaseUnits,type,reference"
	if strings.Join(rows[0], ",") != header || len(rows) != 3 || out.Header.Get("X-Total-Count") != "2" || rows[2][4] != "Sandbox deposit" || rows[2][13] != "7500000" {
		t.Fatalf("csv:\n%s", out.Body)
	}
	if n := other.Root.Get("/v1/balance-transactions").Expect(t, 200).JSON(t)["total"]; n != float64(0) {
		t.Fatalf("another tenant sees %v balance transactions", n)
	}
	ten.Root.Get("/v1/balance-transactions?from="+url.QueryEscape(from)+"&to=2001-01-01T00:00:00Z").ExpectError(t, 400, "VALIDATION_FAILED")
	ten.Root.Get("/v1/balance-transactions?take=101").ExpectError(t, 400, "VALIDATION_FAILED")
	ten.Root.Get("/v1/balance-transactions?since=x").ExpectError(t, 400, "VALIDATION_FAILED")
	payments := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "p", "scopes": []string{"payments:read"}}))
	payments.Get("/v1/balance-transactions").ExpectError(t, 403, "INSUFFICIENT_SCOPE")
}
