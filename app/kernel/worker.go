package kernel

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/core"
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
// last attempt GiveUp records the object FAILED, so it never stays pending forever. A step
// refused because the chain's node does not answer (CHAIN_UNAVAILABLE) spends no attempt: it
// looks again later (ChainWait) for up to StepChainPatience from the job's creation, so an
// outage of the node delays the object instead of failing it.
type StepWorker[A river.JobArgs] struct {
	river.WorkerDefaults[A]
	Step   func(ctx context.Context, args A) (time.Duration, error)
	GiveUp func(ctx context.Context, args A, cause error) error
	Limit  time.Duration
}

// StepChainPatience is how long a StepWorker's job keeps waiting for a chain node that does
// not answer, from the job's creation, before such refusals count as attempts again. Without
// it a wallet created (201, PENDING_DEPLOYMENT) or a drip asked for during an outage of a few
// minutes was recorded FAILED for good once its 8 attempts were spent, about 3 to 4.5 minutes
// in: before CorridorChainDown even pages (5 minutes).
const StepChainPatience = 24 * time.Hour

// ChainWait is how soon a step refused by a node that does not answer looks again: a quarter
// of the job's age, from 2 s up to 2 minutes, so a short outage is caught up with at once and
// a long one does not keep the workers busy timing out calls to the node.
func ChainWait(age time.Duration) time.Duration {
	return min(max(age/4, 2*time.Second), 2*time.Minute)
}

// Work runs one step.
func (w *StepWorker[A]) Work(ctx context.Context, job *river.Job[A]) error {
	return w.run(ctx, job.Args, job.Attempt, job.MaxAttempts, time.Since(job.CreatedAt))
}

// run is one step of args on the job's attempt of maxAttempts, the job being age old,
// answered as River expects.
func (w *StepWorker[A]) run(ctx context.Context, args A, attempt, maxAttempts int, age time.Duration) error {
	snooze, err := w.Step(ctx, args)
	if err != nil && core.HasCode(err, core.CodeChainUnavailable) && age < StepChainPatience {
		return river.JobSnooze(ChainWait(age))
	}
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
