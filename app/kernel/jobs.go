package kernel

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// Jobs is what a capability with background work implements: it adds its River workers to the
// registry and lists the jobs River schedules on an interval. Wiring collects every
// capability's jobs into one runner, so a new capability brings its workers with it and no
// central list must learn their names.
type Jobs interface {
	RegisterWorkers(workers *river.Workers)
	PeriodicJobs() []*river.PeriodicJob
}

// RegisterWorkers adds the workers of every capability to one registry.
func RegisterWorkers(workers *river.Workers, capabilities ...Jobs) {
	for _, c := range capabilities {
		c.RegisterWorkers(workers)
	}
}

// PeriodicJobs lists the periodic jobs of every capability.
func PeriodicJobs(capabilities ...Jobs) []*river.PeriodicJob {
	var out []*river.PeriodicJob
	for _, c := range capabilities {
		out = append(out, c.PeriodicJobs()...)
	}
	return out
}

// StepResult turns one run of a job step into River's answer: the error for a retry, a
// snooze to look again later (not counted as an attempt), or nil when the step is done.
func StepResult(snooze time.Duration, err error) error {
	switch {
	case err != nil:
		return err
	case snooze > 0:
		return river.JobSnooze(snooze)
	}
	return nil
}

// RetryAt is when attempt retries: soon, then less often, 2 s, 4 s, 8 s, … capped at limit.
func RetryAt(attempt int, limit time.Duration) time.Time {
	delay := limit
	if attempt < 30 {
		delay = min(time.Duration(1<<attempt)*time.Second, limit)
	}
	return time.Now().Add(delay)
}

// StepOrGiveUp is StepResult for a job that steps an object towards a terminal state: on the
// job's last attempt an error runs giveUp, which records the object FAILED, so it never stays
// pending forever.
func StepOrGiveUp(ctx context.Context, attempt, maxAttempts int, snooze time.Duration, err error, giveUp func(context.Context, error) error) error {
	if err != nil && attempt >= maxAttempts {
		return giveUp(ctx, err)
	}
	return StepResult(snooze, err)
}
