package claimexpiry

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/claims"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// TestClaimExpiry_FailingClaimDoesNotStallThePass: one due claim whose expiry fails (an injected
// repository error) no longer stops the pass: the claim after it expires in the same pass, the
// failure is counted in background_failures, and after five failed passes the claim is DEAD and
// left out of the due list until an operator clears it.
func TestClaimExpiry_FailingClaimDoesNotStallThePass(t *testing.T) {
	clk := newClock(chainAtMost())
	var poisoned atomic.Value
	poisoned.Store("")
	srv := harness.NewServer(t, func(c *wiring.Config) {
		c.Clock = clk
		c.ClaimLifetime = lifetime
		c.WrapStore = func(s ports.Store) ports.Store { return poisonStore{Store: s, bad: &poisoned} }
	})
	sender := fundedOn(t, srv, "50")
	advanceChainTo(t, clk.Now().Add(lifetime+10*time.Minute)) // no funding can land: both stay unfunded
	first := sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": harness.Phone("628"), "amountUsd": "10"}).Expect(t, 201).JSON(t)
	clk.Advance(time.Second)
	second := sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": harness.Phone("628"), "amountUsd": "10"}).Expect(t, 201).JSON(t)
	bad, good := first["claimId"].(string), second["claimId"].(string)
	poisoned.Store(bad)

	clk.Advance(2 * time.Minute)
	expireDue(t, srv)
	if c := getClaim(t, sender.Root, good); c["status"] != "EXPIRED" && c["status"] != "CANCELED" {
		t.Fatalf("the claim after the failing one was not expired: %v", c)
	}
	if c := getClaim(t, sender.Root, bad); c["status"] != "OPEN" {
		t.Fatalf("the failing claim %v", c)
	}
	if f := expiryFailure(t, bad); f.Status != ports.FailureRetrying || f.Attempts != 1 || f.LastError == "" {
		t.Fatalf("failure after one pass %+v", f)
	}

	for range 4 {
		expireDue(t, srv)
	}
	if f := expiryFailure(t, bad); f.Status != ports.FailureDead || f.Attempts != 5 {
		t.Fatalf("failure after five passes %+v", f)
	}
	var due []string
	inTx(t, func(ctx context.Context, tx ports.Tx) error {
		var err error
		due, err = tx.Claims().DueClaimIDs(ctx, clk.Now(), claim.DefaultGracePeriod, 100)
		return err
	})
	for _, id := range due {
		if id == bad {
			t.Fatalf("a DEAD claim is still listed as due")
		}
	}
}

func expiryFailure(t *testing.T, claimID string) ports.BackgroundFailure {
	t.Helper()
	var out ports.BackgroundFailure
	inTx(t, func(ctx context.Context, tx ports.Tx) error {
		failures, err := tx.ChainIndex().ListFailures(ctx, claims.PassClaimExpiry, 1000)
		for _, f := range failures {
			if f.Item == claimID {
				out = f
			}
		}
		return err
	})
	if out.Item == "" {
		t.Fatalf("no background failure for claim %s", claimID)
	}
	return out
}

func inTx(t *testing.T, fn func(ctx context.Context, tx ports.Tx) error) {
	t.Helper()
	if err := env().Service.Store.InTx(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// poisonStore fails LockClaim for one claim id, in every transaction the use cases open.
type poisonStore struct {
	ports.Store
	bad *atomic.Value
}

func (s poisonStore) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	return s.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return fn(ctx, poisonTx{Tx: tx, bad: s.bad}) })
}

type poisonTx struct {
	ports.Tx
	bad *atomic.Value
}

func (t poisonTx) Claims() ports.ClaimRepo { return poisonClaims{ClaimRepo: t.Tx.Claims(), bad: t.bad} }

type poisonClaims struct {
	ports.ClaimRepo
	bad *atomic.Value
}

func (c poisonClaims) LockClaim(ctx context.Context, id string) (claim.Claim, error) {
	if id == c.bad.Load() {
		return claim.Claim{}, errors.New("injected failure")
	}
	return c.ClaimRepo.LockClaim(ctx, id)
}
