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
type Subscribers[E any] struct {
	mu       sync.RWMutex
	handlers []func(ctx context.Context, tx ports.Tx, e E) error
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
