package kernel

import (
	"context"
	"sync"

	"github.com/corridorhq/corridor/ports"
)

// Subscribers carries one kind of domain event, E, from the capability that raises it to those
// that react, inside the unit of work that raised it: the reaction commits or rolls back with
// the change. The raiser holds the Subscribers and never knows who listens; a listener
// subscribes when it is built. So two capabilities that must act in one unit need no
// back-reference to each other and nothing bound late in the composition root.
//
// A reaction that must read outside any transaction first (a screening verdict) subscribes a
// prepare step too: the raiser calls Prepare with the event it is about to raise, before its
// unit of work opens, the same two steps as every use case (prepare outside, apply inside).
type Subscribers[E any] struct {
	mu       sync.RWMutex
	handlers []func(ctx context.Context, tx ports.Tx, e E) error
	prepares []func(ctx context.Context, e E) error
}

// SubscribePrepared adds a reaction with its prepare step: prepare runs when the raiser
// prepares the event, outside any transaction; handle when it raises it, in its unit of work.
func (s *Subscribers[E]) SubscribePrepared(prepare func(ctx context.Context, e E) error, handle func(ctx context.Context, tx ports.Tx, e E) error) {
	s.mu.Lock()
	s.prepares = append(s.prepares, prepare)
	s.mu.Unlock()
	s.Subscribe(handle)
}

// Prepare runs every prepare step for e, outside any transaction, before the raiser's unit of
// work raises it; the first error fails it. A nil Subscribers has no listeners.
func (s *Subscribers[E]) Prepare(ctx context.Context, e E) error {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	prepares := s.prepares
	s.mu.RUnlock()
	for _, prepare := range prepares {
		if err := prepare(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// Subscribe adds a reaction; reactions run in the order they subscribed.
func (s *Subscribers[E]) Subscribe(handle func(ctx context.Context, tx ports.Tx, e E) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers = append(s.handlers, handle)
}

// Publish runs every reaction to e in the caller's unit of work; the first error fails it. A
// nil Subscribers has no listeners.
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

func (s *Subscribers[E]) count() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.handlers)
}
