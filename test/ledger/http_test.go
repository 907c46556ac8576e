package ledger

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

type balanceLine struct {
	Asset              string  `json:"asset"`
	Decimals           int     `json:"decimals"`
	AccountID          *string `json:"accountId"`
	Available          string  `json:"available"`
	AvailableBaseUnits string  `json:"availableBaseUnits"`
	Held               string  `json:"held"`
	Total              string  `json:"total"`
}

type balancesBody struct {
	Environment string        `json:"environment"`
	AsOf        *time.Time    `json:"asOf"`
	Balances    []balanceLine `json:"balances"`
}

func getBalances(t *testing.T, c *harness.Client, query string) balancesBody {
	t.Helper()
	var b balancesBody
	c.Get("/v1/balances"+query).Expect(t, 200).Decode(t, &b)
	if len(b.Balances) == 0 || b.Balances[0].Asset != "USDC" || b.Balances[0].Decimals != 6 {
		t.Fatalf("balances %+v", b)
	}
	return b
}

func deposit(t *testing.T, c *harness.Client, amount string) map[string]any {
	t.Helper()
	return c.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": amount}).Expect(t, 201).JSON(t)
}

func TestBalances_NewTenantIsZero(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	b := getBalances(t, ten.Root, "")
	line := b.Balances[0]
	if b.Environment != "TEST" || b.AsOf != nil || line.AccountID != nil || line.Available != "0" || line.AvailableBaseUnits != "0" || line.Held != "0" || line.Total != "0" {
		t.Fatalf("new tenant: %+v", b)
	}
	// Any tenant credential with payments:read reads it (default read-only keys included).
	reader := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "reader"}))
	getBalances(t, reader, "")
	cardsOnly := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "cards", "scopes": []string{"cards:read"}}))
	cardsOnly.Get("/v1/balances").ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	env().Client(t).Get("/v1/balances").ExpectError(t, 401, "UNAUTHENTICATED")
	ten.Root.Get("/v1/balances?asOf=yesterday").ExpectError(t, 400, "VALIDATION_FAILED")
}

func TestDeposits(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	d := deposit(t, ten.Root, "100.50")
	if d["amountUsd"] != "100.5" || d["amountBaseUnits"] != "100500000" || d["environment"] != "TEST" || d["asset"] != "USDC" ||
		!strings.HasPrefix(d["id"].(string), "dep_") || !strings.HasPrefix(d["transferId"].(string), "trf_") {
		t.Fatalf("deposit %v", d)
	}
	if bal := d["balance"].(map[string]any); bal["available"] != "100.5" || bal["total"] != "100.5" {
		t.Fatalf("balance after deposit %v", bal)
	}
	deposit(t, ten.Root, "0.000001")
	line := getBalances(t, ten.Root, "").Balances[0]
	if line.Available != "100.500001" || line.AvailableBaseUnits != "100500001" || line.AccountID == nil {
		t.Fatalf("balance %+v", line)
	}

	t.Run("invalid amounts", func(t *testing.T) {
		for _, amount := range []any{"0", "-1", "1.0000001", "abc", "", "1000000.000001", 5} {
			r := ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": amount})
			if m := r.ExpectError(t, 400, "VALIDATION_FAILED"); harness.Field(m, "amountUsd") == "" {
				t.Fatalf("amount %v: %s", amount, r.Body)
			}
		}
		deposit(t, ten.Root, "1000000")
	})
	t.Run("LIVE callers get SANDBOX_ONLY", func(t *testing.T) {
		live := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "live", "environment": "live", "scopes": []string{"*"}}))
		live.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "5"}).ExpectError(t, 403, "SANDBOX_ONLY")
		b := getBalances(t, live, "")
		if b.Environment != "LIVE" || b.Balances[0].Total != "0" {
			t.Fatalf("LIVE balances %+v", b)
		}
	})
	t.Run("scope", func(t *testing.T) {
		reader := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "reader"}))
		reader.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "5"}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	})
}

// TestDeposits_StrictBodies: an amount is a plain decimal string and a body's keys are spelled
// exactly once; anything else is 400 VALIDATION_FAILED naming the field and credits nothing.
func TestDeposits_StrictBodies(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	deposit(t, ten.Root, "10")
	cases := []struct{ name, body, field string }{
		{"exponent", `{"amountUsd":"1e3"}`, "amountUsd"},
		{"upper-case exponent", `{"amountUsd":"1E3"}`, "amountUsd"},
		{"leading plus", `{"amountUsd":"+5"}`, "amountUsd"},
		{"leading space", `{"amountUsd":" 5"}`, "amountUsd"},
		{"trailing space", `{"amountUsd":"5 "}`, "amountUsd"},
		{"inner space", `{"amountUsd":"1 000"}`, "amountUsd"},
		{"seven fraction digits of zeros", `{"amountUsd":"1.0000000"}`, "amountUsd"},
		{"key in another case", `{"AmountUsd":"5"}`, "AmountUsd"},
		{"duplicated key", `{"amountUsd":"5","amountUsd":"6"}`, "amountUsd"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := ten.Root.Post("/v1/sandbox/balance-deposits", tc.body)
			if m := r.ExpectError(t, 400, "VALIDATION_FAILED"); harness.Field(m, tc.field) == "" {
				t.Errorf("details.fields does not name %s: %s", tc.field, r.Body)
			}
		})
	}
	harness.ExpectServiceBalance(t, ten.Root, 10_000_000, 0)
	if n := entryTotal(t, ten.Root, ""); n != 1 {
		t.Fatalf("%d journal entries after refused deposits, want 1", n)
	}
}

// TestDeposits_Idempotent: the same Idempotency-Key replays the first deposit and creates one
// transfer; 20 parallel deposits with distinct keys all land.
func TestDeposits_Idempotent(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	keyed := ten.Root.With("Idempotency-Key", "deposit-once")
	first := keyed.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "42"}).Expect(t, 201)
	again := keyed.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "42"}).Expect(t, 201)
	if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.Body, again.Body) {
		t.Fatalf("replay: %s / %s", first.Body, again.Body)
	}
	keyed.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "43"}).ExpectError(t, 422, "IDEMPOTENCY_KEY_REUSED")
	if n := entryTotal(t, ten.Root, ""); n != 1 {
		t.Fatalf("%d journal entries after a replayed deposit, want 1", n)
	}

	const parallel = 20
	var wg sync.WaitGroup
	for i := 0; i < parallel; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ten.Root.With("Idempotency-Key", fmt.Sprintf("parallel-%d", i)).
				Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "1.25"}).Expect(t, 201)
		}(i)
	}
	wg.Wait()
	if line := getBalances(t, ten.Root, "").Balances[0]; line.Total != "67" { // 42 + 20 × 1.25
		t.Fatalf("balance after parallel deposits %+v", line)
	}
	if n := entryTotal(t, ten.Root, ""); n != 1+parallel {
		t.Fatalf("%d journal entries, want %d", n, 1+parallel)
	}
}

// TestDeposits_SameKeyRacesApplyOnce: concurrent deposits under one Idempotency-Key, whose
// claim also locks the deposit's balance rows (the route names them before its unit runs):
// one applies, the others replay it or are told it is in progress, and the money moves once.
// Deposits under fresh keys in the same moment all apply.
func TestDeposits_SameKeyRacesApplyOnce(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	const parallel = 12
	var wg sync.WaitGroup
	var fresh, replayed, inProgress, other atomic.Int32
	for i := 0; i < parallel; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			r := ten.Root.With("Idempotency-Key", "one-key").Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "5"})
			code, _ := r.JSON(t)["code"].(string)
			switch {
			case r.Status == 201 && r.Header.Get("Idempotent-Replayed") == "true":
				replayed.Add(1)
			case r.Status == 201:
				fresh.Add(1)
			case r.Status == 409 && code == "IDEMPOTENCY_REQUEST_IN_PROGRESS":
				inProgress.Add(1)
			default:
				other.Add(1)
				t.Errorf("same key answered %d %s", r.Status, r.Body)
			}
		}()
		go func(i int) {
			defer wg.Done()
			ten.Root.With("Idempotency-Key", fmt.Sprintf("own-key-%d", i)).
				Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "1"}).Expect(t, 201)
		}(i)
	}
	wg.Wait()
	if fresh.Load() != 1 || other.Load() != 0 {
		t.Fatalf("same key: %d applied, %d replayed, %d in progress, %d other; want exactly one applied",
			fresh.Load(), replayed.Load(), inProgress.Load(), other.Load())
	}
	if line := getBalances(t, ten.Root, "").Balances[0]; line.Total != "17" { // 5 once + 12 × 1
		t.Fatalf("balance after the race %+v, want 17", line)
	}
	if n := entryTotal(t, ten.Root, ""); n != 1+parallel {
		t.Fatalf("%d journal entries, want %d", n, 1+parallel)
	}
}

func entryTotal(t *testing.T, c *harness.Client, query string) int {
	t.Helper()
	var body struct {
		Total int `json:"total"`
	}
	c.Get("/v1/ledger/entries"+query).Expect(t, 200).Decode(t, &body)
	return body.Total
}

type accountBody struct {
	ID        string            `json:"id"`
	Kind      string            `json:"kind"`
	Reference string            `json:"reference"`
	Balance   map[string]string `json:"balance"`
}

func serviceAccount(t *testing.T, c *harness.Client, query string) (accountBody, int) {
	t.Helper()
	var body struct {
		Accounts []accountBody `json:"accounts"`
		Total    int           `json:"total"`
	}
	c.Get("/v1/ledger/accounts"+query).Expect(t, 200).Decode(t, &body)
	if len(body.Accounts) == 0 {
		return accountBody{}, body.Total
	}
	return body.Accounts[0], body.Total
}

// TestFinance_StatementAndAsOf: a statement lists transfers with running balances; balances as
// of an instant between deposits show only the earlier ones.
func TestFinance_StatementAndAsOf(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	var stamps []string
	for _, amount := range []string{"10", "20", "30.5"} {
		d := deposit(t, ten.Root, amount)
		stamps = append(stamps, d["createdAt"].(string))
		time.Sleep(5 * time.Millisecond)
	}
	acct, total := serviceAccount(t, ten.Root, "")
	if total != 1 || acct.Kind != "tenant_available" || acct.Reference != "tenant:"+ten.ID+":available" || acct.Balance["posted"] != "60.5" {
		t.Fatalf("accounts: %+v (total %d)", acct, total)
	}
	var st struct {
		Opening map[string]string `json:"opening"`
		Closing map[string]string `json:"closing"`
		Total   int               `json:"total"`
		Lines   []struct {
			Amount       string            `json:"amount"`
			Type         string            `json:"type"`
			Status       string            `json:"status"`
			BalanceAfter map[string]string `json:"balanceAfter"`
			Change       map[string]string `json:"change"`
		} `json:"lines"`
	}
	ten.Root.Get("/v1/ledger/accounts/"+acct.ID+"/statement").Expect(t, 200).Decode(t, &st)
	if st.Total != 3 || st.Opening["posted"] != "0" || st.Closing["posted"] != "60.5" || len(st.Lines) != 3 {
		t.Fatalf("statement %+v", st)
	}
	for i, want := range []string{"10", "30", "60.5"} {
		l := st.Lines[i]
		if l.BalanceAfter["posted"] != want || l.BalanceAfter["available"] != want || l.Type != "POSTED" || l.Status != "POSTED" || l.Change["posted"] != l.Amount {
			t.Fatalf("line %d: %+v, want running balance %s", i, l, want)
		}
	}
	// A window [second deposit, third deposit) opens at 10 and closes at 30.
	q := "?from=" + url.QueryEscape(stamps[1]) + "&to=" + url.QueryEscape(stamps[2])
	ten.Root.Get("/v1/ledger/accounts/"+acct.ID+"/statement"+q).Expect(t, 200).Decode(t, &st)
	if st.Total != 1 || st.Opening["posted"] != "10" || st.Closing["posted"] != "30" || st.Lines[0].Amount != "20" {
		t.Fatalf("windowed statement %+v", st)
	}
	// Paging keeps the running balance of each line.
	ten.Root.Get("/v1/ledger/accounts/"+acct.ID+"/statement?skip=2&take=1").Expect(t, 200).Decode(t, &st)
	if st.Total != 3 || len(st.Lines) != 1 || st.Lines[0].BalanceAfter["posted"] != "60.5" {
		t.Fatalf("paged statement %+v", st)
	}
	// Balances as of the second deposit's instant include it, not the third.
	asOf := "?asOf=" + url.QueryEscape(stamps[1])
	if line := getBalances(t, ten.Root, asOf).Balances[0]; line.Total != "30" {
		t.Fatalf("balance as of %s: %+v", stamps[1], line)
	}
	if a, _ := serviceAccount(t, ten.Root, asOf); a.Balance["posted"] != "30" {
		t.Fatalf("account as of %s: %+v", stamps[1], a)
	}
	if _, total := serviceAccount(t, ten.Root, "?asOf=2001-01-01T00:00:00Z"); total != 0 {
		t.Fatalf("accounts before any existed: %d", total)
	}
	ten.Root.Get("/v1/ledger/accounts/"+acct.ID+"/statement"+"?from="+url.QueryEscape(stamps[2])+"&to="+url.QueryEscape(stamps[1])).
		ExpectError(t, 400, "VALIDATION_FAILED")
}

// TestFinance_Isolation: another tenant's account is ACCOUNT_NOT_FOUND, its postings are
// redacted, and finance reads need treasury:read.
func TestFinance_Isolation(t *testing.T) {
	t.Parallel()
	alice, bob := env().NewTenant(t), env().NewTenant(t)
	deposit(t, alice.Root, "5")
	deposit(t, bob.Root, "7")
	bobAcct, _ := serviceAccount(t, bob.Root, "")
	alice.Root.Get("/v1/ledger/accounts/"+bobAcct.ID+"/statement").ExpectError(t, 404, "ACCOUNT_NOT_FOUND")
	alice.Root.Get("/v1/ledger/entries?accountId="+bobAcct.ID).ExpectError(t, 404, "ACCOUNT_NOT_FOUND")
	alice.Root.Get("/v1/ledger/accounts/acc_nothing/statement").ExpectError(t, 404, "ACCOUNT_NOT_FOUND")
	if n := entryTotal(t, alice.Root, ""); n != 1 {
		t.Fatalf("alice sees %d entries, want her 1", n)
	}
	live := env().Client(t).WithKey(env().NewKey(t, bob.Session, map[string]any{"name": "live", "environment": "live", "scopes": []string{"*"}}))
	live.Get("/v1/ledger/accounts/"+bobAcct.ID+"/statement").ExpectError(t, 404, "ACCOUNT_NOT_FOUND")
	if _, total := serviceAccount(t, live, ""); total != 0 {
		t.Fatalf("LIVE sees %d TEST accounts", total)
	}
	payments := env().Client(t).WithKey(env().NewKey(t, alice.Session, map[string]any{"name": "p", "scopes": []string{"payments:read"}}))
	for _, path := range []string{"/v1/ledger/accounts", "/v1/ledger/entries", "/v1/ledger/entries?format=csv", "/v1/ledger/trial-balance"} {
		payments.Get(path).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	}
	treasury := env().Client(t).WithKey(env().NewKey(t, alice.Session, map[string]any{"name": "t", "scopes": []string{"treasury:read"}}))
	treasury.Get("/v1/ledger/trial-balance").Expect(t, 200)
}

// TestFinance_EntriesCSV: the CSV export has the documented columns, one row per posting,
// and is byte-identical when exported twice.
func TestFinance_EntriesCSV(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	for _, amount := range []string{"1", "2.5", "3.000001"} {
		deposit(t, ten.Root, amount)
	}
	first := ten.Root.Get("/v1/ledger/entries?format=csv").Expect(t, 200)
	second := ten.Root.Get("/v1/ledger/entries?format=csv").Expect(t, 200)
	if !strings.HasPrefix(first.Header.Get("Content-Type"), "text/csv") || first.Header.Get("X-Total-Count") != "3" {
		t.Fatalf("headers %v", first.Header)
	}
	if !bytes.Equal(first.Body, second.Body) {
		t.Fatalf("two exports differ:\n%s\n---\n%s", first.Body, second.Body)
	}
	rows, err := csv.NewReader(bytes.NewReader(first.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := "sequence,transferId,createdAt,reference,type,targetId,asset,accountId,accountReference,accountKind,amount,amountBaseUnits,metadata"
	if strings.Join(rows[0], ",") != header || len(rows) != 1+3*2 {
		t.Fatalf("csv:\n%s", first.Body)
	}
	sum := map[string]int{}
	for _, r := range rows[1:] {
		if r[4] != "POSTED" || r[6] != "USDC" || !strings.HasPrefix(r[3], "sandbox_deposit:dep_") || len(r[2]) != len("2026-01-02T15:04:05.000000Z") {
			t.Fatalf("row %v", r)
		}
		var units int
		if _, err := fmt.Sscan(r[11], &units); err != nil {
			t.Fatalf("row %v: amount %q: %v", r, r[11], err)
		}
		sum[r[1]] += units
	}
	for transfer, s := range sum {
		if s != 0 {
			t.Fatalf("transfer %s sums to %d in the export", transfer, s)
		}
	}
	if !strings.Contains(string(first.Body), "platform:sandbox_pool") || !strings.Contains(string(first.Body), "tenant:"+ten.ID+":available") {
		t.Fatalf("csv lacks the accounts:\n%s", first.Body)
	}
	// JSON lists the same entries.
	var entries struct {
		Entries []struct {
			Postings []map[string]any `json:"postings"`
		} `json:"entries"`
		Total int `json:"total"`
	}
	ten.Root.Get("/v1/ledger/entries?take=2").Expect(t, 200).Decode(t, &entries)
	if entries.Total != 3 || len(entries.Entries) != 2 || len(entries.Entries[0].Postings) != 2 {
		t.Fatalf("json entries %+v", entries)
	}
	ten.Root.Get("/v1/ledger/entries?format=xml").ExpectError(t, 400, "VALIDATION_FAILED")
	ten.Root.Get("/v1/ledger/entries?take=101").ExpectError(t, 400, "VALIDATION_FAILED")
	ten.Root.Get("/v1/ledger/entries?format=csv&take=5000").Expect(t, 200)
}

func TestFinance_TrialBalance(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	deposit(t, ten.Root, "12.5")
	deposit(t, ten.Root, "7.5")
	var tb struct {
		Environment string `json:"environment"`
		Assets      []struct {
			Asset         string `json:"asset"`
			Balanced      bool   `json:"balanced"`
			PostedDebits  string `json:"postedDebits"`
			PostedCredits string `json:"postedCredits"`
			Lines         []struct {
				Scope     string            `json:"scope"`
				Reference string            `json:"reference"`
				Balance   map[string]string `json:"balance"`
			} `json:"lines"`
		} `json:"assets"`
	}
	ten.Root.Get("/v1/ledger/trial-balance").Expect(t, 200).Decode(t, &tb)
	if tb.Environment != "TEST" || len(tb.Assets) != 1 {
		t.Fatalf("trial balance %+v", tb)
	}
	a := tb.Assets[0]
	if a.Asset != "USDC" || !a.Balanced || a.PostedCredits != "20" || a.PostedDebits != "20" || len(a.Lines) != 2 {
		t.Fatalf("USDC trial balance %+v", a)
	}
	if a.Lines[0].Scope != "OWN" || a.Lines[0].Balance["posted"] != "20" || a.Lines[1].Scope != "PLATFORM" ||
		a.Lines[1].Reference != "platform:sandbox_pool" || a.Lines[1].Balance["posted"] != "-20" {
		t.Fatalf("lines %+v", a.Lines)
	}
	var empty struct {
		Assets []any `json:"assets"`
	}
	env().NewTenant(t).Root.Get("/v1/ledger/trial-balance").Expect(t, 200).Decode(t, &empty)
	if empty.Assets == nil || len(empty.Assets) != 0 {
		t.Fatalf("a tenant without accounts: %+v", empty)
	}
}

// TestSandbox_OtherHelpersUnbuilt: the balances capability serves only its own sandbox path;
// the other sandbox helpers answer FEATURE_NOT_AVAILABLE until their capability is built.
func TestSandbox_OtherHelpersUnbuilt(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	for prefix, feature := range wiring.UnbuiltPrefixes {
		if strings.HasPrefix(prefix, "/v1/sandbox/") && !wiring.Features[feature] {
			ten.Root.Get(prefix+"/x").ExpectError(t, 501, "FEATURE_NOT_AVAILABLE")
		}
	}
	caps := env().Client(t).Get("/v1/capabilities").Expect(t, 200).JSON(t)["features"].(map[string]any)
	if caps["ledger"] != true || caps["balances"] != true {
		t.Fatalf("features %v", caps)
	}
}
