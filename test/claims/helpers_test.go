package claims

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"corridor/test/harness"
)

var phoneSeq atomic.Int64

// newPhone is a fresh US number nobody has verified.
func newPhone() string {
	return fmt.Sprintf("+1628%07d", 2_000_000+phoneSeq.Add(1)*7727%7_000_000)
}

var (
	tokenInLink = regexp.MustCompile(`/c/([A-Za-z0-9_-]{43})\b`)
	codeInBody  = regexp.MustCompile(`\b(\d{6})\b`)
)

// smsOf returns the newest outbox message of purpose in the sender's outbox, waiting for the
// notification job.
func smsOf(t *testing.T, c *harness.Client, purpose string, skipBodies map[string]bool) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		m := c.Get("/v1/sandbox/sms-messages?take=20").Expect(t, 200).JSON(t)
		for _, raw := range m["messages"].([]any) {
			msg := raw.(map[string]any)
			if msg["purpose"] == purpose && !skipBodies[msg["body"].(string)] {
				return msg["body"].(string)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s SMS in the outbox: %v", purpose, m)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func linkToken(t *testing.T, body string) string {
	t.Helper()
	m := tokenInLink.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no claim link in %q", body)
	}
	return m[1]
}

func codeOf(t *testing.T, body string) string {
	t.Helper()
	m := codeInBody.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no code in %q", body)
	}
	return m[1]
}

// onboarded is a tenant with an ACTIVE credential and a SERVICE_BALANCE destination.
func onboarded(t *testing.T) (*harness.Tenant, string) {
	t.Helper()
	ten := env().NewTenant(t)
	ten.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	d := ten.Root.Post("/v1/payout-destinations", map[string]any{"type": "SERVICE_BALANCE"}).Expect(t, 201).JSON(t)
	return ten, d["id"].(string)
}

func funded(t *testing.T, usd string) *harness.Tenant {
	t.Helper()
	ten := env().NewTenant(t)
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": usd}).Expect(t, 201)
	return ten
}

// waitClaim polls the sender's claim until ok accepts it.
func waitClaim(t *testing.T, c *harness.Client, id string, what string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		cl := c.Get("/v1/offramp/claims/"+id).Expect(t, 200).JSON(t)
		if ok(cl) {
			return cl
		}
		if time.Now().After(deadline) {
			t.Fatalf("claim %s never %s: %v", id, what, cl)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitPayment(t *testing.T, c *harness.Client, id, status string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		p := c.Get("/v1/offramp/payments/"+id).Expect(t, 200).JSON(t)
		if p["status"] == status {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("payment %s is %v, want %s: %v", id, p["status"], status, p)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func balance(t *testing.T, c *harness.Client) (available, held int64) {
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

func expectBalance(t *testing.T, c *harness.Client, available, held int64) {
	t.Helper()
	a, h := balance(t, c)
	if a != available || h != held {
		t.Fatalf("balance available %d held %d, want %d and %d", a, h, available, held)
	}
}

// ledgerOf sums a payment's posted deltas per account reference and checks they balance.
func ledgerOf(t *testing.T, paymentID string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT a.reference, sum(p.posted_delta)::bigint FROM ledger_postings p
		JOIN ledger_transfers t ON t.id = p.transfer_id JOIN ledger_accounts a ON a.id = p.account_id
		WHERE t.metadata->>'offrampPaymentId' = $1 GROUP BY a.reference`, paymentID)
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
	if sum != 0 {
		t.Fatalf("payment %s ledger does not balance: %v", paymentID, out)
	}
	var total int64
	if err := conn.QueryRow(ctx, `SELECT coalesce(sum(posted_delta), 0)::bigint FROM ledger_postings`).Scan(&total); err != nil || total != 0 {
		t.Fatalf("ledger posted sum %d %v", total, err)
	}
	return out
}

// noPhone fails when any text carries the full number (E.164 or national digits).
func noPhone(t *testing.T, phone string, texts ...string) {
	t.Helper()
	national := strings.TrimPrefix(phone, "+1")
	for _, s := range texts {
		if strings.Contains(s, national) {
			t.Fatalf("the full phone number appears in: %s", s)
		}
	}
}
