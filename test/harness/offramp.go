package harness

import (
	"context"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/app/offramps"
)

// Helpers shared by the off-ramp and claim test packages.

var (
	phoneSeq  atomic.Int64
	phoneSalt = time.Now().UnixNano() / 1000
)

// Phone returns a valid US number in the area code given (its exchange starts 2-8, as
// libphonenumber requires) that no other call in this process returned: 7919 is prime to the
// 7,000,000 lines, so the first 7,000,000 calls differ. The start is salted with the clock, so a
// second run against the same database (go test -count=2) draws other numbers.
func Phone(area string) string {
	return fmt.Sprintf("+1%s%07d", area, 2_000_000+(phoneSalt+phoneSeq.Add(1)*7919)%7_000_000)
}

// waitLimit bounds every poll of a background outcome (jobs, the chain indexer).
const waitLimit = 60 * time.Second

// ServiceBalance returns the tenant's available and held service balance in base units.
func ServiceBalance(t testing.TB, c *Client) (available, held int64) {
	t.Helper()
	var b struct {
		Balances []struct {
			AvailableBaseUnits string `json:"availableBaseUnits"`
			HeldBaseUnits      string `json:"heldBaseUnits"`
		} `json:"balances"`
	}
	c.Get("/v1/balances").Expect(t, 200).Decode(t, &b)
	if len(b.Balances) == 0 {
		return 0, 0
	}
	a, _ := strconv.ParseInt(b.Balances[0].AvailableBaseUnits, 10, 64)
	h, _ := strconv.ParseInt(b.Balances[0].HeldBaseUnits, 10, 64)
	return a, h
}

// ExpectServiceBalance fails unless the tenant's service balance is exactly available and held.
func ExpectServiceBalance(t testing.TB, c *Client, available, held int64) {
	t.Helper()
	a, h := ServiceBalance(t, c)
	if a != available || h != held {
		t.Fatalf("balance available %d held %d, want %d and %d", a, h, available, held)
	}
}

// WaitServiceBalance waits until the tenant's service balance is exactly available and held.
// It is for the recipient of a delivery into another tenant's balance: the recipient's leg is
// a unit of its own, posted right after the sender's unit commits (or by its job), so the
// payment may read DELIVERED a moment before the recipient's balance shows it.
func WaitServiceBalance(t testing.TB, c *Client, available, held int64) {
	t.Helper()
	Eventually(t, fmt.Sprintf("service balance available %d held %d", available, held), func() bool {
		a, h := ServiceBalance(t, c)
		return a == available && h == held
	})
}

// PaymentLedger sums an off-ramp payment's posted deltas per account reference (non-zero ones;
// a platform account's per-tenant share counts under the platform account's reference),
// failing unless they balance and the whole ledger's posted sum is zero.
func PaymentLedger(t testing.TB, databaseURL, paymentID string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The payment's transfers first, then their postings with their accounts (a posting lives
	// with its account, in its home): on Citus the ledger is distributed by home, and a
	// posting's transfer may live in another home, so the transfers are a result of their own.
	rows, err := conn.Query(ctx, `WITH t AS MATERIALIZED (
			SELECT id, home_tenant_id FROM ledger_transfers WHERE metadata->>'offrampPaymentId' = $1)
		SELECT CASE WHEN a.tenant_id IS NULL THEN regexp_replace(a.reference, '@[^@]+$', '')
			ELSE a.reference END AS base, sum(p.posted_delta)::bigint
		FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id AND a.home_tenant_id = p.home_tenant_id
		WHERE (p.transfer_id, p.transfer_home_tenant_id) IN (SELECT id, home_tenant_id FROM t) GROUP BY base`, paymentID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	var sum int64
	for rows.Next() {
		var ref string
		var n int64
		if err := rows.Scan(&ref, &n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			out[ref] = n
		}
		sum += n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if sum != 0 {
		t.Fatalf("payment %s ledger does not balance: %v", paymentID, out)
	}
	var total int64
	if err := conn.QueryRow(ctx, `SELECT coalesce(sum(posted_delta), 0)::bigint FROM ledger_postings`).Scan(&total); err != nil || total != 0 {
		t.Fatalf("ledger posted sum %d %v", total, err)
	}
	return out
}

// Poll calls get until ok accepts its result, failing after a minute with what.
func Poll(t testing.TB, what string, get func() map[string]any, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	return Until(t, what, get, ok)
}

// Eventually calls cond until it holds, failing after a minute (waitLimit) with what: a background
// outcome (a job, the indexer) may take seconds on a loaded machine, and a tighter bound only
// makes the test flaky.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	Until(t, what, cond, func(held bool) bool { return held })
}

// WaitClaim polls the sender's claim until ok accepts it.
func WaitClaim(t testing.TB, c *Client, id, what string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	return Poll(t, "claim "+id+" "+what, func() map[string]any { return c.Get("/v1/offramp/claims/"+id).Expect(t, 200).JSON(t) }, ok)
}

// WaitOfframpPayment polls an off-ramp payment until it reaches status.
func WaitOfframpPayment(t testing.TB, c *Client, id, status string) map[string]any {
	t.Helper()
	return Poll(t, "payment "+id+" "+status, func() map[string]any { return c.Get("/v1/offramp/payments/"+id).Expect(t, 200).JSON(t) },
		func(p map[string]any) bool { return p["status"] == status })
}

// SMSBody returns the newest text of purpose in the tenant's sandbox outbox whose body is not
// in skip, waiting for it (the claim notification is a job).
func SMSBody(t testing.TB, c *Client, purpose string, skip map[string]bool) string {
	t.Helper()
	var body string
	Poll(t, "an SMS of purpose "+purpose, func() map[string]any { return c.Get("/v1/sandbox/sms-messages?take=20").Expect(t, 200).JSON(t) },
		func(m map[string]any) bool {
			for _, raw := range m["messages"].([]any) {
				msg := raw.(map[string]any)
				if msg["purpose"] == purpose && !skip[msg["body"].(string)] {
					body = msg["body"].(string)
					return true
				}
			}
			return false
		})
	return body
}

var (
	claimTokenInLink = regexp.MustCompile(`/c/([A-Za-z0-9_-]{43})\b`)
	sixDigitCode     = regexp.MustCompile(`\b(\d{6})\b`)
)

// ClaimLinkToken extracts the token of the claim link in an SMS body.
func ClaimLinkToken(t testing.TB, body string) string {
	t.Helper()
	m := claimTokenInLink.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no claim link in %q", body)
	}
	return m[1]
}

// SMSCode extracts the 6-digit code of an SMS body.
func SMSCode(t testing.TB, body string) string {
	t.Helper()
	m := sixDigitCode.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no code in %q", body)
	}
	return m[1]
}

// ExpectLedgerBalanced checks that the whole ledger of the database sums to zero and that each
// tenant's trial balance is balanced.
func ExpectLedgerBalanced(t testing.TB, databaseURL string, tenants ...*Tenant) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var sum int64
	if err := conn.QueryRow(ctx, `SELECT coalesce(sum(posted_delta), 0)::bigint FROM ledger_postings`).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if sum != 0 {
		t.Fatalf("ledger posted sum %d", sum)
	}
	for _, ten := range tenants {
		var tb struct {
			Assets []struct {
				Balanced bool `json:"balanced"`
			} `json:"assets"`
		}
		ten.Root.Get("/v1/ledger/trial-balance").Expect(t, 200).Decode(t, &tb)
		for _, a := range tb.Assets {
			if !a.Balanced {
				t.Fatalf("trial balance of %s is not balanced", ten.ID)
			}
		}
	}
}

// ConfirmRoute has the recipient select the payment's quote from provider and confirm it,
// returning the confirmation's answer; a payment with no quote from provider fails the test.
func ConfirmRoute(t testing.TB, recipient *Client, id, provider string) map[string]any {
	t.Helper()
	routes := recipient.Get("/v1/offramp/payments/"+id+"/routes").Expect(t, 200).JSON(t)["routes"].([]any)
	rid := ""
	for _, r := range routes {
		if r.(map[string]any)["provider"] == provider {
			rid = r.(map[string]any)["routeId"].(string)
		}
	}
	if rid == "" {
		t.Fatalf("no %s route in %v", provider, routes)
	}
	recipient.Post("/v1/offramp/payments/"+id+"/select-route", map[string]any{"routeQuoteId": rid}).Expect(t, 200)
	return recipient.Post("/v1/offramp/payments/"+id+"/confirm", nil).Expect(t, 200).JSON(t)
}

// ProviderWebhook posts body to provider's webhook route as the provider would, signed with
// secret at the instant at (a test plays the provider: a wrong secret or a stale instant is how
// it sends a webhook the service must refuse).
func (e *Env) ProviderWebhook(t testing.TB, provider string, body []byte, secret string, at time.Time) *Response {
	t.Helper()
	stamp := strconv.FormatInt(at.Unix(), 10)
	sig := hex.EncodeToString(offramps.SignWebhook([]byte(secret), stamp, body))
	return e.Client(t).With(offramps.WebhookTimestampHeader, stamp).With(offramps.WebhookSignatureHeader, sig).
		Do("POST", "/v1/providers/"+provider+"/webhooks", body)
}
