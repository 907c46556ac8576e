package kernel

import (
	"context"
	"sync"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// Subscribers carries one kind of domain event, E, from the capability that raises it to those
// that react, inside the unit of work that raised it: the reaction commits or rolls back with
// the change. The raiser holds the Subscribers and never knows who listens; a listener
// subscribes when it is built. So two capabilities that must act in one unit need no
// back-reference to each other and nothing bound late in the composition root.
type Subscribers[E any] struct {
	mu       sync.RWMutex
	handlers []func(ctx context.Context, tx ports.Tx, e E) error
}

// Subscribe adds a reaction on the whole transaction; reactions run in the order they
// subscribed. A capability subscribes through React, which narrows the transaction to its view;
// Subscribe remains for code that still holds the whole transaction.
func (s *Subscribers[E]) Subscribe(handle func(ctx context.Context, tx ports.Tx, e E) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers = append(s.handlers, handle)
}

// React subscribes a capability's reaction to the events of s. The reaction gets the raiser's
// transaction narrowed to the reacting capability's own view, through the same narrow its
// Units use: raiser and reactor each see only what their views list.
func React[V, E any](s *Subscribers[E], units Units[V], react func(ctx context.Context, tx V, e E) error) {
	s.Subscribe(func(ctx context.Context, tx ports.Tx, e E) error { return react(ctx, units.narrow(tx), e) })
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

// Publish runs every reaction to e in the caller's unit of work, tx; the first error fails it. A
// nil Subscribers has no listeners. A capability raises through Raise, which needs no
// transaction in hand; Publish remains for code that still holds the whole transaction.
func (s *Subscribers[E]) Publish(ctx context.Context, tx ports.Tx, e E) error {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	handlers := s.handlers
	s.mu.RUnlock()
	for _, handle := range handlers {
		if err := handle(ctx, tx, e); err != nil {
			return err
		}
	}
	return nil
}
