package fake

import (
	"context"
	"errors"
	"time"

	"github.com/corridorhq/corridor/ports"
)

// EnqueuedJob is a job a unit of work enqueued.
type EnqueuedJob struct {
	Args ports.JobArgs
	Opts ports.JobOptions
}

// Jobs is ports.Jobs over a Store: a job is part of the unit of work that enqueues it, so it
// is kept when the unit commits and gone when it rolls back, as River's transactional insert
// is. Enqueuing outside a unit is refused, as the port requires.
type Jobs struct{ Store *Store }

var _ ports.Jobs = Jobs{}

// Enqueue records the job in the unit of work ctx carries.
func (j Jobs) Enqueue(ctx context.Context, args ports.JobArgs, opts ports.JobOptions) error {
	if ctx.Value(unitKey{}) != j.Store {
		return errors.New("fake: Enqueue outside a unit of work of its store")
	}
	j.Store.state.jobs = append(j.Store.state.jobs, EnqueuedJob{Args: args, Opts: opts})
	return nil
}

// Jobs returns the committed jobs, in the order they were enqueued.
func (s *Store) Jobs() []EnqueuedJob {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]EnqueuedJob(nil), s.state.jobs...)
}

// Clock is a pinned ports.Clock that tests move by hand.
type Clock struct{ At time.Time }

// Now returns the pinned time.
func (c *Clock) Now() time.Time { return c.At }

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) { c.At = c.At.Add(d) }
