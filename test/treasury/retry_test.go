package treasury

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/treasury"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// A unit of work the store retries (a serialization failure at commit) runs its closure again
// from the start: what the rolled-back run made must not survive into the retried one.

type treasurySpyTx struct {
	ports.Tx
	hit *bool
}

func (t treasurySpyTx) Treasury() ports.TreasuryRepo {
	return treasurySpyRepo{TreasuryRepo: t.Tx.Treasury(), hit: t.hit}
}

// treasurySpyRepo reports an account being stored or its clock being moved.
type treasurySpyRepo struct {
	ports.TreasuryRepo
	hit *bool
}

func (r treasurySpyRepo) CreateAccount(ctx context.Context, a treasury.Account) error {
	*r.hit = true
	return r.TreasuryRepo.CreateAccount(ctx, a)
}

func (r treasurySpyRepo) SetClockOffset(ctx context.Context, tenantID, accountID string, days int) error {
	*r.hit = true
	return r.TreasuryRepo.SetClockOffset(ctx, tenantID, accountID, days)
}

func retryingServer(t *testing.T) (*harness.Env, *atomic.Int64) {
	var injected atomic.Int64
	srv := harness.NewServer(t, func(c *wiring.Config) {
		c.WrapStore = func(s ports.Store) ports.Store {
			return harness.RetryOnce{Store: s, Injected: &injected,
				Watch: func(tx ports.Tx, hit *bool) ports.Tx { return treasurySpyTx{Tx: tx, hit: hit} }}
		}
	})
	return srv, &injected
}

// TestTreasury_RetriedCreate: the account's unit of work fails once at commit and runs again;
// the tenant ends with one account and exactly its bucket Safes, the ones the account names.
func TestTreasury_RetriedCreate(t *testing.T) {
	srv, injected := retryingServer(t)
	ten := env().NewTenant(t)
	c := srv.Client(t).WithKey(ten.RootKey)
	created := c.Post("/v1/treasury/accounts", map[string]any{"name": "retried", "owners": ownersBody(harness.NewOwner(t)),
		"buckets": []any{bucket("a", "OPERATING", 5000), bucket("b", "RESERVE", 5000)}}).Expect(t, 202).JSON(t)
	if injected.Load() != 1 {
		t.Fatal("no serialization failure was injected: the test proves nothing")
	}
	got := c.Get("/v1/treasury/accounts/"+created["accountId"].(string)).Expect(t, 200).JSON(t)
	wallets := c.Get("/v1/wallets").Expect(t, 200).JSON(t)
	if wallets["total"] != float64(2) {
		t.Fatalf("%v wallets after a retried create, want 2", wallets["total"])
	}
	ids := map[any]bool{}
	for _, w := range wallets["wallets"].([]any) {
		ids[w.(map[string]any)["id"]] = true
	}
	for i := range 2 {
		if b := bucketAt(got, i); !ids[b["walletId"]] || b["bucketId"] != bucketAt(created, i)["bucketId"] {
			t.Errorf("bucket %d: %v (wallets %v)", i, b, ids)
		}
	}
}

// TestTreasury_RetriedAdvance: the clock helper's unit of work fails once at commit and runs
// again; the clock moves once and each day is booked once.
func TestTreasury_RetriedAdvance(t *testing.T) {
	ten := env().NewTenant(t)
	account := createAccount(t, ten.Root, []owner{harness.NewOwner(t)}, 1, bucket("Yield", "YIELD", 10000, 800))
	id := account["accountId"].(string)
	fund(t, ten.Root, bucketAt(account, 0), "200")
	srv, injected := retryingServer(t)
	srv.Client(t).WithKey(ten.RootKey).Post("/v1/sandbox/treasury/accounts/"+id+"/advance", map[string]any{"days": 3}).Expect(t, 200)
	if injected.Load() != 1 {
		t.Fatal("no serialization failure was injected: the test proves nothing")
	}
	got := ten.Root.Get("/v1/treasury/accounts/"+id).Expect(t, 200).JSON(t)
	want := core.FormatUSD(3 * treasury.DailyYield(200_000000, 800))
	if got["clockOffsetDays"] != float64(3) || bucketAt(got, 0)["accruedYieldUsd"] != want {
		t.Fatalf("after a retried advance: offset %v, yield %v, want 3 and %s", got["clockOffsetDays"], bucketAt(got, 0)["accruedYieldUsd"], want)
	}
}
