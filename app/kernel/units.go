package kernel

import (
	"context"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// Units opens a capability's units of work. The store hands every unit the whole transaction
// (ports.Tx, every repository); Units hands the capability's closure only its view V of it,
// the interface the capability declares as txView. So the compiler, not a review or a test,
// refuses a use case that reaches a repository its view does not list: the closure's
// parameter has no such method.
//
// narrow is the one place the whole transaction becomes the view, written once per
// capability as `func(tx ports.Tx) txView { return tx }`: the conversion from one interface
// to a smaller one is checked when it compiles and costs no reflection. InTx is the store's
// InTx, so a unit opened inside another still joins it as a savepoint, and the outermost one
// is still retried on a serialization failure.
type Units[V any] struct {
	store  ports.Store
	narrow func(ports.Tx) V
}

// NewUnits returns the units of store as seen through narrow.
func NewUnits[V any](store ports.Store, narrow func(ports.Tx) V) Units[V] {
	return Units[V]{store: store, narrow: narrow}
}

// InTx runs fn in one unit of work (a savepoint of the unit ctx already carries), with the
// transaction narrowed to V. The context fn gets carries the unit, so a domain event raised
// in it (Subscribers.Raise) reaches its subscribers in the same transaction.
func (u Units[V]) InTx(ctx context.Context, fn func(ctx context.Context, tx V) error) error {
	return u.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		return fn(context.WithValue(ctx, openUnitKey{}, tx), u.narrow(tx))
	})
}

// React subscribes a capability's reaction to the events of s. The reaction gets the raiser's
// transaction narrowed to the reacting capability's own view, through the same narrow its
// Units use: raiser and reactor each see only what their views list.
func React[V, E any](s *Subscribers[E], units Units[V], react func(ctx context.Context, tx V, e E) error) {
	s.Subscribe(func(ctx context.Context, tx ports.Tx, e E) error { return react(ctx, units.narrow(tx), e) })
}

// ReactPrepared is React for a reaction that must read outside any transaction first (a
// screening verdict): prepare runs when the raiser prepares the event (Subscribers.Prepare),
// before its unit of work opens; react when it raises it, narrowed to the reactor's view.
func ReactPrepared[V, E any](s *Subscribers[E], units Units[V], prepare func(ctx context.Context, e E) error,
	react func(ctx context.Context, tx V, e E) error) {
	s.SubscribePrepared(prepare, func(ctx context.Context, tx ports.Tx, e E) error { return react(ctx, units.narrow(tx), e) })
}

// Raise runs every reaction to e in the unit of work ctx carries (opened through Units.InTx),
// so a raiser that holds only its own view needs no transaction to hand over; raised outside
// any unit it is an INTERNAL error, and no reaction runs. A nil Subscribers has no listeners.
func (s *Subscribers[E]) Raise(ctx context.Context, e E) error {
	if s == nil {
		return nil
	}
	tx, ok := openUnit(ctx)
	if !ok {
		return core.E(core.CodeInternal, "a domain event was raised outside a unit of work")
	}
	return s.Publish(ctx, tx, e)
}

// RaiseHeard is Raise for an event some capability must react to (its reaction is part of the
// raiser's step): with no reaction subscribed it fails, as a missing port fails at start.
func (s *Subscribers[E]) RaiseHeard(ctx context.Context, e E) error {
	if s == nil || s.count() == 0 {
		return core.E(core.CodeInternal, "%T raised with no capability listening: check the wiring", e)
	}
	return s.Raise(ctx, e)
}

type openUnitKey struct{}

// openUnit is the whole transaction of the innermost unit ctx carries (opened through
// Units.InTx), for the kernel to hand to a subscriber, which narrows it to its own view.
func openUnit(ctx context.Context) (ports.Tx, bool) {
	tx, ok := ctx.Value(openUnitKey{}).(ports.Tx)
	return tx, ok
}

// The views the kernel's own helpers take: each is the one repository the helper touches, and
// a capability that calls the helper lists it in its txView by embedding it.
type (
	// EventTx records partner-facing events (RecordEvent, RecordChangeEvent).
	EventTx interface {
		Events() ports.EventRepo
	}
	// BudgetTx counts relayer-paid transactions (RelayerBudget.Charge).
	BudgetTx interface {
		RelayerBudget() ports.RelayerBudgetRepo
	}
	// IndexTx stores an indexer's committed blocks (RecordIndexedBlocks).
	IndexTx interface {
		ChainIndex() ports.ChainIndexRepo
	}
	// SpendTx is what the spend guard reads and reserves: the acting agent and its caps.
	SpendTx interface {
		Agents() ports.AgentRepo
	}
)
