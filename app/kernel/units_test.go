package kernel

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

type (
	raiserView  interface{ Idempotency() ports.IdempotencyRepo }
	reactorView interface{ Events() ports.EventRepo }
)

// TestUnits_EachSideItsOwnView: a unit opened through Units gets the store's transaction as
// the capability's view; an event raised in it reaches a reactor in that same transaction,
// seen through the reactor's own view; a reactor's error fails the unit; raised outside any
// unit, an event is INTERNAL and no reaction runs.
func TestUnits_EachSideItsOwnView(t *testing.T) {
	store := fake.NewStore()
	raiser := NewUnits(store, func(tx ports.Tx) raiserView { return tx })
	reactor := NewUnits(store, func(tx ports.Tx) reactorView { return tx })
	var bus Subscribers[finalized]
	var raisedIn raiserView
	var heard []string
	refusal := errors.New("refused")
	React(&bus, reactor, func(_ context.Context, tx reactorView, e finalized) error {
		if any(tx) != any(raisedIn) {
			return errors.New("the reaction ran in another transaction")
		}
		heard = append(heard, e.id)
		if e.id == "pay_refused" {
			return refusal
		}
		return nil
	})
	raise := func(id string) error {
		return raiser.InTx(context.Background(), func(ctx context.Context, tx raiserView) error {
			raisedIn = tx
			return bus.Raise(ctx, finalized{id: id})
		})
	}
	if err := raise("pay_1"); err != nil {
		t.Fatalf("raise: %v", err)
	}
	if err := raise("pay_refused"); !errors.Is(err, refusal) {
		t.Fatalf("a refused reaction: %v, want the refusal", err)
	}
	if err := bus.Raise(context.Background(), finalized{id: "pay_outside"}); !core.HasCode(err, core.CodeInternal) {
		t.Fatalf("raised outside a unit: %v, want INTERNAL", err)
	}
	if len(heard) != 2 || heard[0] != "pay_1" || heard[1] != "pay_refused" {
		t.Fatalf("heard %v", heard)
	}
	if got := store.Commits(); got != 1 {
		t.Fatalf("%d commits, want 1 (the refused unit rolls back)", got)
	}
}

// TestUnits_PreparedReactionAndHeardRaise: a reaction subscribed through ReactPrepared runs its
// prepare step on Prepare (no transaction) and its reaction on Raise, in the raiser's unit seen
// through the reactor's view; RaiseHeard fails with nobody listening (nil or empty) and, with a
// listener, raises as Raise does.
func TestUnits_PreparedReactionAndHeardRaise(t *testing.T) {
	store := fake.NewStore()
	raiser := NewUnits(store, func(tx ports.Tx) raiserView { return tx })
	reactor := NewUnits(store, func(tx ports.Tx) reactorView { return tx })
	raise := func(bus *Subscribers[finalized], id string) error {
		return raiser.InTx(context.Background(), func(ctx context.Context, _ raiserView) error {
			return bus.RaiseHeard(ctx, finalized{id: id})
		})
	}
	var none *Subscribers[finalized]
	if err := raise(none, "pay_nil"); !core.HasCode(err, core.CodeInternal) {
		t.Fatalf("nil Subscribers: RaiseHeard = %v, want INTERNAL", err)
	}
	var bus Subscribers[finalized]
	if err := raise(&bus, "pay_empty"); !core.HasCode(err, core.CodeInternal) {
		t.Fatalf("empty Subscribers: RaiseHeard = %v, want INTERNAL", err)
	}
	var heard []string
	ReactPrepared(&bus, reactor, func(_ context.Context, e finalized) error {
		heard = append(heard, "prepare:"+e.id)
		return nil
	}, func(_ context.Context, tx reactorView, e finalized) error {
		if tx == nil {
			return errors.New("the reaction got no view")
		}
		heard = append(heard, "react:"+e.id)
		return nil
	})
	if err := bus.Prepare(context.Background(), finalized{id: "pay_1"}); err != nil {
		t.Fatal(err)
	}
	if err := raise(&bus, "pay_1"); err != nil {
		t.Fatalf("RaiseHeard with a listener: %v", err)
	}
	if got := strings.Join(heard, ","); got != "prepare:pay_1,react:pay_1" {
		t.Fatalf("heard %s", got)
	}
	if err := bus.RaiseHeard(context.Background(), finalized{id: "pay_outside"}); !core.HasCode(err, core.CodeInternal) {
		t.Fatalf("raised outside a unit: %v, want INTERNAL", err)
	}
}
