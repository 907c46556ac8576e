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
	// Queue is the queue the job waits in; "" = the default queue, which every other job shares.
	Queue string
}

// QueueTexts is the queue of the texts a person is waiting for (verification codes, claim
// links and challenges), worked by workers of its own: in the default queue a backlog of
// payout polls, submissions and sweeps would hold a code back for as long as it takes to
// drain, and the person holding the phone waits with it.
const QueueTexts = "texts"

// Jobs enqueues durable background work. Enqueue must run inside a unit of work (the context
// carries the transaction): the job is committed, or rolled back, with the state change that
// needs it.
type Jobs interface {
	Enqueue(ctx context.Context, args JobArgs, opts JobOptions) error
}
