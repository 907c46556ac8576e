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

// StepWorker is the shape of a job that steps one object (a wallet's deployment, a faucet drip)
// towards a terminal state: Step runs one step and says when to look again (a snooze River does
// not count as an attempt); an error is retried soon (RetryAt capped at a minute), and on the
// last attempt GiveUp records the object FAILED, so it never stays pending forever.
type StepWorker[A river.JobArgs] struct {
	river.WorkerDefaults[A]
	Step   func(ctx context.Context, args A) (time.Duration, error)
	GiveUp func(ctx context.Context, args A, cause error) error
	Limit  time.Duration
}

// Work runs one step.
func (w *StepWorker[A]) Work(ctx context.Context, job *river.Job[A]) error {
	return w.run(ctx, job.Args, job.Attempt, job.MaxAttempts)
}

// run is one step of args on the job's attempt of maxAttempts, answered as River expects.
func (w *StepWorker[A]) run(ctx context.Context, args A, attempt, maxAttempts int) error {
	snooze, err := w.Step(ctx, args)
	return StepOrGiveUp(ctx, attempt, maxAttempts, snooze, err, func(ctx context.Context, cause error) error {
		return w.GiveUp(ctx, args, cause)
	})
}

// NextRetry retries soon: 2 s, 4 s, 8 s, … capped at a minute, so a chain that is briefly
// unreachable is retried soon and the bounded attempts span minutes.
func (w *StepWorker[A]) NextRetry(job *river.Job[A]) time.Time {
	return RetryAt(job.Attempt, time.Minute)
}

// Timeout bounds one run.
func (w *StepWorker[A]) Timeout(*river.Job[A]) time.Duration { return w.Limit }
