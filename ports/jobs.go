package ports

import (
	"context"
	"time"
)

// JobArgs is a background job's payload; its Kind names the worker. River's job args satisfy it.
type JobArgs interface{ Kind() string }

// JobOptions tune one enqueued job.
type JobOptions struct {
	ScheduledAt time.Time // zero = now
	MaxAttempts int       // 0 = the queue's default
	// UniqueFor deduplicates jobs with equal kind and args for this long; 0 = no deduplication.
	UniqueFor time.Duration
}

// Jobs enqueues durable background work. Enqueue must run inside a unit of work (the context
// carries the transaction): the job is committed, or rolled back, with the state change that
// needs it.
type Jobs interface {
	Enqueue(ctx context.Context, args JobArgs, opts JobOptions) error
}
