package cards

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// authSpyTx reports when the unit of work records an authorization.
type authSpyTx struct {
	ports.Tx
	hit *bool
}

func (t authSpyTx) Cards() ports.CardRepo { return authSpyRepo{t.Tx.Cards(), t.hit} }

type authSpyRepo struct {
	ports.CardRepo
	hit *bool
}

func (r authSpyRepo) CreateAuthorization(ctx context.Context, a card.Authorization) error {
	*r.hit = true
	return r.CardRepo.CreateAuthorization(ctx, a)
}

func (r authSpyRepo) CreateSpendingAuthorization(ctx context.Context, a card.Authorization, announce event.Event) error {
	*r.hit = true
	return r.CardRepo.CreateSpendingAuthorization(ctx, a, announce)
}

// TestCards_RetriedAuthorizationDecidesOnce: an authorization whose unit of work fails at commit
// and runs again records one decision, one hold and one window charge.
func TestCards_RetriedAuthorizationDecidesOnce(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 10)
	id := issue(t, ten.Root, w, map[string]any{"dailyUsd": "5"})["cardId"].(string)
	var injected atomic.Int64
	srv := harness.NewServer(t, func(c *wiring.Config) {
		c.WrapStore = func(s ports.Store) ports.Store {
			return harness.RetryOnce{Store: s, Injected: &injected,
				Watch: func(tx ports.Tx, hit *bool) ports.Tx { return authSpyTx{tx, hit} }}
		}
	})
	a := authorize(t, srv.Client(t).WithKey(ten.RootKey), id, "3", "5411")
	if injected.Load() != 1 || a["status"] != "APPROVED" {
		t.Fatalf("injected %d: %v", injected.Load(), a)
	}
	if l := ten.Root.Get("/v1/cards/"+id+"/authorizations").Expect(t, 200).JSON(t); l["total"].(float64) != 1 {
		t.Fatalf("recorded: %v", l)
	}
	if b := mirrorBalance(t, w.ID); b.PendingDebits != 3_000_000 {
		t.Fatalf("holds: %+v", b)
	}
	// The window holds 3 of 5, not 6: 2 fits, 2.01 does not.
	if d := authorize(t, ten.Root, id, "2.01", "5411"); declineReason(d) != "DAILY_CAP" {
		t.Fatalf("window: %v", d)
	}
	if a := authorize(t, ten.Root, id, "2", "5411"); a["status"] != "APPROVED" {
		t.Fatalf("window: %v", a)
	}
}
