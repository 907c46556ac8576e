package offramp

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// A unit of work the store retries (a serialization failure at commit) runs its closure
// again from the start: what the first run did to the payment must not leak into the second.

// createSpyTx reports when the closure creates an off-ramp payment.
type createSpyTx struct {
	ports.Tx
	created *bool
}

func (t createSpyTx) Offramp() ports.OfframpRepo { return createSpyRepo{t.Tx.Offramp(), t.created} }

type createSpyRepo struct {
	ports.OfframpRepo
	created *bool
}

func (r createSpyRepo) CreatePayment(ctx context.Context, p offramp.Payment) error {
	*r.created = true
	return r.OfframpRepo.CreatePayment(ctx, p)
}

func TestOfframpCreate_RetriedUnitOfWork(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	var injected atomic.Int64
	srv := harness.NewServer(t, func(c *wiring.Config) {
		c.WrapStore = func(s ports.Store) ports.Store {
			return harness.RetryOnce{Store: s, Injected: &injected,
				Watch: func(tx ports.Tx, hit *bool) ports.Tx { return createSpyTx{Tx: tx, created: hit} }}
		}
	})
	sender := srv.Client(t).WithKey(p.sender.RootKey)
	m := sender.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "2"}).Expect(t, http.StatusCreated).JSON(t)
	if injected.Load() != 1 {
		t.Fatal("no serialization failure was injected: the test proves nothing")
	}
	if m["status"] != "AWAITING_RECIPIENT_CONFIRMATION" || m["recipientTenantId"] != p.recipient.ID {
		t.Fatalf("payment after a retried create: %v", m)
	}
	quotes, _ := m["quotes"].([]any)
	if len(quotes) == 0 {
		t.Fatalf("no quotes after a retried create: %v", m)
	}
	// One payment, one reservation: the rolled-back first run left nothing.
	if n := len(p.sender.Root.Get("/v1/offramp/payments").Expect(t, 200).JSON(t)["payments"].([]any)); n != 1 {
		t.Fatalf("%d payments after one retried create", n)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, 18*usd, 2*usd)
	if got := get(t, p.sender.Root, m["paymentId"].(string)); got["status"] != m["status"] {
		t.Fatalf("stored payment %v", got)
	}
}
