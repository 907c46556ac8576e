package claimexpiry

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
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

// getClaim is the sender's view of a claim.
func getClaim(t *testing.T, c *harness.Client, id string) map[string]any {
	t.Helper()
	return c.Get("/v1/offramp/claims/"+id).Expect(t, 200).JSON(t)
}

func getPayment(t *testing.T, c *harness.Client, id string) map[string]any {
	t.Helper()
	return c.Get("/v1/offramp/payments/"+id).Expect(t, 200).JSON(t)
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
	if err := srv.Service.Claims.ExpireDueClaims(context.Background()); err != nil {
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
