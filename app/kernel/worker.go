package kernel

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// Worker is the one shape of a job worker whose work is a single call of its capability's use
// case: Run gets the job's arguments, Limit bounds one run (0: River's default), and RetryCap, when set, retries a
// failed run soon, then less often (RetryAt), instead of River's default policy. River finds a worker by its
// arguments' Kind, so the kind names of durable queued jobs are all a Worker needs to keep. A
// worker that decides more than that (snoozes, gives up, looks at the attempt) keeps its own
// type.
type Worker[A river.JobArgs] struct {
	river.WorkerDefaults[A]
	Run      func(ctx context.Context, args A) error
	Limit    time.Duration
	RetryCap time.Duration
}

// Work runs the use case on the job's arguments.
func (w *Worker[A]) Work(ctx context.Context, job *river.Job[A]) error { return w.Run(ctx, job.Args) }

// Timeout bounds one run.
func (w *Worker[A]) Timeout(*river.Job[A]) time.Duration { return w.Limit }

// NextRetry is RetryAt capped at RetryCap, or River's default policy (the zero time) without
// a cap.
func (w *Worker[A]) NextRetry(job *river.Job[A]) time.Time {
	if w.RetryCap <= 0 {
		return time.Time{}
	}
	return RetryAt(job.Attempt, w.RetryCap)
}

// AddRetryingWorker registers a Worker for the kind of A whose failed runs retry on RetryAt's
// schedule capped at retryCap.
func AddRetryingWorker[A river.JobArgs](workers *river.Workers, limit, retryCap time.Duration, run func(ctx context.Context, args A) error) {
	river.AddWorker(workers, &Worker[A]{Run: run, Limit: limit, RetryCap: retryCap})
}

// AddWorker registers a Worker for the kind of A: run bounded by limit.
func AddWorker[A river.JobArgs](workers *river.Workers, limit time.Duration, run func(ctx context.Context, args A) error) {
	river.AddWorker(workers, &Worker[A]{Run: run, Limit: limit})
}
