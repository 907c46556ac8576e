package kernel

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/ports"
)

type finalized struct{ id string }

// TestSubscribers_InTheRaisersUnit: reactions run in subscription order with the raiser's
// transaction, the first error fails the raise, and nil has no listeners.
func TestSubscribers_InTheRaisersUnit(t *testing.T) {
	var heard []string
	var bus Subscribers[finalized]
	raiserTx := ports.Tx(nil)
	bus.Subscribe(func(_ context.Context, tx ports.Tx, e finalized) error {
		if tx != raiserTx {
			return errors.New("another transaction")
		}
		heard = append(heard, "treasury:"+e.id)
		return nil
	})
	refusal := errors.New("refused")
	bus.Subscribe(func(_ context.Context, _ ports.Tx, e finalized) error {
		heard = append(heard, "second:"+e.id)
		return refusal
	})
	bus.Subscribe(func(context.Context, ports.Tx, finalized) error {
		heard = append(heard, "never")
		return nil
	})
	if err := bus.Publish(context.Background(), raiserTx, finalized{id: "pay_1"}); !errors.Is(err, refusal) {
		t.Fatalf("publish: %v", err)
	}
	if got := strings.Join(heard, ","); got != "treasury:pay_1,second:pay_1" {
		t.Fatalf("heard %s", got)
	}
	var none *Subscribers[finalized]
	if err := none.Publish(context.Background(), nil, finalized{}); err != nil {
		t.Fatal(err)
	}
}

// TestSubscribers_PrepareBeforeTheUnit: a reaction subscribed with a prepare step is prepared
// by Prepare (with no transaction) and runs by Publish; a plain reaction has no prepare step,
// and a nil Subscribers prepares nothing.
func TestSubscribers_PrepareBeforeTheUnit(t *testing.T) {
	var heard []string
	var bus Subscribers[finalized]
	bus.Subscribe(func(_ context.Context, _ ports.Tx, e finalized) error {
		heard = append(heard, "plain:"+e.id)
		return nil
	})
	bus.SubscribePrepared(func(_ context.Context, e finalized) error {
		heard = append(heard, "prepare:"+e.id)
		return nil
	}, func(_ context.Context, _ ports.Tx, e finalized) error {
		heard = append(heard, "react:"+e.id)
		return nil
	})
	if err := bus.Prepare(context.Background(), finalized{id: "t_1"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(heard, ","); got != "prepare:t_1" {
		t.Fatalf("after Prepare heard %s", got)
	}
	if err := bus.Publish(context.Background(), nil, finalized{id: "t_1"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(heard, ","); got != "prepare:t_1,plain:t_1,react:t_1" {
		t.Fatalf("after Publish heard %s", got)
	}
	refusal := errors.New("screening down")
	bus.SubscribePrepared(func(context.Context, finalized) error { return refusal }, func(context.Context, ports.Tx, finalized) error { return nil })
	if err := bus.Prepare(context.Background(), finalized{}); !errors.Is(err, refusal) {
		t.Fatalf("prepare: %v", err)
	}
	var none *Subscribers[finalized]
	if err := none.Prepare(context.Background(), finalized{}); err != nil {
		t.Fatal(err)
	}
}
