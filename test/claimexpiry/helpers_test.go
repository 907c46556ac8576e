package claimexpiry

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

	"corridor/core/claim"
	"corridor/ports"
	"corridor/test/harness"
	"corridor/wiring"
)

// waitFor bounds every poll: jobs, the escrow indexer (every 2 s and after each send) and
// River's retry of a refused escrow transaction. Only a deadline, never a speed assertion.
const waitFor = 60 * time.Second

// lifetime is the claims' lifetime on the test's server.
const lifetime = time.Minute

// clockServer is a server on the package's database whose app clock is clk, with one-minute
// claims. Its workers run like every other server's; the test triggers the expiry pass itself.
func clockServer(t *testing.T, clk *testClock) *harness.Env {
	t.Helper()
	return harness.NewServer(t, func(c *wiring.Config) {
		c.Clock = clk
		c.ClaimLifetime = lifetime
	})
}

// tenantOn is a fresh tenant whose root key talks to srv.
func tenantOn(t *testing.T, srv *harness.Env) *harness.Tenant {
	t.Helper()
	ten := srv.NewTenant(t)
	ten.Root = srv.Client(t).WithKey(ten.RootKey)
	return ten
}

// fundedOn is a tenant on srv with a sandbox deposit of usd.
func fundedOn(t *testing.T, srv *harness.Env, usd string) *harness.Tenant {
	t.Helper()
	ten := tenantOn(t, srv)
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": usd}).Expect(t, 201)
	return ten
}

// onboardedOn is a tenant on srv with an ACTIVE credential and a SERVICE_BALANCE destination.
func onboardedOn(t *testing.T, srv *harness.Env) (*harness.Tenant, string) {
	t.Helper()
	ten := tenantOn(t, srv)
	ten.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	d := ten.Root.Post("/v1/payout-destinations", map[string]any{"type": "SERVICE_BALANCE"}).Expect(t, 201).JSON(t)
	return ten, d["id"].(string)
}

var phoneSeq atomic.Int64

// newPhone is a fresh US number nobody has verified (the exchange starts 2-8).
func newPhone() string {
	return fmt.Sprintf("+1628%07d", 2_000_000+phoneSeq.Add(1)*7727%7_000_000)
}

var (
	tokenInLink = regexp.MustCompile(`/c/([A-Za-z0-9_-]{43})\b`)
	codeInBody  = regexp.MustCompile(`\b(\d{6})\b`)
)

// smsOf returns the newest message of purpose in the sender's sandbox outbox, waiting for it.
func smsOf(t *testing.T, c *harness.Client, purpose string) string {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		m := c.Get("/v1/sandbox/sms-messages?take=20").Expect(t, 200).JSON(t)
		for _, raw := range m["messages"].([]any) {
			msg := raw.(map[string]any)
			if msg["purpose"] == purpose {
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

// getClaim is the sender's view of a claim.
func getClaim(t *testing.T, c *harness.Client, id string) map[string]any {
	t.Helper()
	return c.Get("/v1/offramp/claims/"+id).Expect(t, 200).JSON(t)
}

// waitClaim polls the sender's claim until ok accepts it.
func waitClaim(t *testing.T, c *harness.Client, id, what string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		cl := getClaim(t, c, id)
		if ok(cl) {
			return cl
		}
		if time.Now().After(deadline) {
			t.Fatalf("claim %s never %s: %v", id, what, cl)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func getPayment(t *testing.T, c *harness.Client, id string) map[string]any {
	t.Helper()
	return c.Get("/v1/offramp/payments/"+id).Expect(t, 200).JSON(t)
}

func waitPayment(t *testing.T, c *harness.Client, id, status string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		p := getPayment(t, c, id)
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

// ledgerOf sums a payment's posted deltas per account reference (non-zero ones only), and
// checks that they balance and that the whole TEST ledger's posted sum is zero.
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

// onchainState is the escrow contract's state of a claim (its escrowClaimId).
func onchainState(t *testing.T, escrowClaimID string) ports.EscrowState {
	t.Helper()
	id, err := claim.Bytes32(escrowClaimID)
	if err != nil {
		t.Fatal(err)
	}
	c, err := env().Chain.EscrowClaim(context.Background(), id)
	if err != nil {
		t.Fatalf("on-chain claim %s: %v", escrowClaimID, err)
	}
	return c.State
}

// expireDue runs srv's expiry pass at its app clock.
func expireDue(t *testing.T, srv *harness.Env) {
	t.Helper()
	if err := srv.Service.App.ExpireDueClaims(context.Background()); err != nil {
		t.Fatalf("expiry pass: %v", err)
	}
}

// waitRefundRefused waits until the claim's refund job has failed with the contract's CE:grace
// (River retries it), and returns that error.
func waitRefundRefused(t *testing.T, claimID string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	deadline := time.Now().Add(waitFor)
	for {
		var last string
		err := conn.QueryRow(ctx, `SELECT coalesce(errors[array_upper(errors, 1)]->>'error', '') FROM river_job
			WHERE kind = 'claim.chain' AND args->>'claimId' = $1 AND args->>'action' = 'refund' ORDER BY id DESC LIMIT 1`, claimID).Scan(&last)
		if err != nil && err != pgx.ErrNoRows {
			t.Fatal(err)
		}
		if strings.Contains(last, "CE:grace") {
			return last
		}
		if time.Now().After(deadline) {
			t.Fatalf("the refund job of claim %s was not refused with CE:grace (last error %q, %v)", claimID, last, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
