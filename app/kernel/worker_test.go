package kernel

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/core"
)

type testArgs struct{ ID string }

func (testArgs) Kind() string { return "test.kind" }

// TestWorker: the worker hands the job's arguments to Run, answers Run's error, and bounds a
// run by Limit; AddWorker registers it for the arguments' kind.
func TestWorker(t *testing.T) {
	boom := errors.New("boom")
	var got string
	w := &Worker[testArgs]{Limit: 3 * time.Second, Run: func(_ context.Context, a testArgs) error {
		got = a.ID
		return boom
	}}
	job := &river.Job[testArgs]{Args: testArgs{ID: "clm_1"}}
	if err := w.Work(context.Background(), job); !errors.Is(err, boom) || got != "clm_1" {
		t.Fatalf("Work = %v with args %q, want boom with clm_1", err, got)
	}
	if w.Timeout(job) != 3*time.Second {
		t.Fatalf("Timeout = %v", w.Timeout(job))
	}
	workers := river.NewWorkers()
	AddWorker(workers, time.Second, func(context.Context, testArgs) error { return nil })
	if err := river.AddWorkerSafely(workers, &Worker[testArgs]{}); err == nil {
		t.Fatal("a second worker for test.kind was accepted: AddWorker did not register the kind")
	}
}

// TestWorker_NextRetry: without a cap River's default policy applies (the zero time), without
// looking at the job; with one the retry comes by RetryAt's schedule (TestRetryAt).
func TestWorker_NextRetry(t *testing.T) {
	if at := (&Worker[testArgs]{}).NextRetry(&river.Job[testArgs]{}); !at.IsZero() {
		t.Fatalf("NextRetry without a cap = %v, want the zero time", at)
	}
}

// TestRetryAt: 2 s after the first attempt, doubling, capped at the limit however many attempts.
func TestRetryAt(t *testing.T) {
	for _, c := range []struct {
		attempt int
		want    time.Duration
	}{{1, 2 * time.Second}, {3, 8 * time.Second}, {20, time.Minute}, {40, time.Minute}} {
		before := time.Now()
		at := RetryAt(c.attempt, time.Minute)
		if at.Before(before.Add(c.want)) || at.After(time.Now().Add(c.want)) {
			t.Errorf("RetryAt(%d, 1m) = %v from now, want %v", c.attempt, at.Sub(before), c.want)
		}
	}
}

// TestStepWorker: a step's snooze looks again without counting an attempt, an error is retried
// until the last attempt, where GiveUp records the object and its answer is the job's; a step
// that is done completes the job.
func TestStepWorker(t *testing.T) {
	boom := errors.New("boom")
	var step func() (time.Duration, error)
	var gaveUp []string
	w := &StepWorker[testArgs]{Limit: time.Minute,
		Step: func(context.Context, testArgs) (time.Duration, error) { return step() },
		GiveUp: func(_ context.Context, a testArgs, cause error) error {
			gaveUp = append(gaveUp, a.ID+": "+cause.Error())
			return nil
		}}
	args := testArgs{ID: "drp_1"}
	ctx := context.Background()
	step = func() (time.Duration, error) { return time.Second, nil }
	var snooze *river.JobSnoozeError
	if err := w.run(ctx, args, 1, 3, time.Minute); !errors.As(err, &snooze) {
		t.Fatalf("a pending step answered %v, want a snooze", err)
	}
	step = func() (time.Duration, error) { return 0, boom }
	if err := w.run(ctx, args, 2, 3, time.Minute); !errors.Is(err, boom) || len(gaveUp) != 0 {
		t.Fatalf("an early failure answered %v (gave up %v), want boom retried", err, gaveUp)
	}
	if err := w.run(ctx, args, 3, 3, time.Minute); err != nil || len(gaveUp) != 1 || gaveUp[0] != "drp_1: boom" {
		t.Fatalf("the last failure answered %v (gave up %v), want GiveUp's nil", err, gaveUp)
	}
	step = func() (time.Duration, error) { return 0, nil }
	if err := w.run(ctx, args, 1, 3, time.Minute); err != nil || w.Timeout(&river.Job[testArgs]{}) != time.Minute {
		t.Fatalf("a finished step answered %v", err)
	}

	// A node that does not answer spends no attempt, even the last one, within the patience;
	// past it the refusal counts again and the last one gives up.
	gaveUp = nil
	unavailable := fmt.Errorf("chain: block number: %w", core.E(core.CodeChainUnavailable, "the chain node did not answer within 10s"))
	step = func() (time.Duration, error) { return 0, unavailable }
	snooze = nil
	if err := w.run(ctx, args, 3, 3, 4*time.Minute); !errors.As(err, &snooze) || len(gaveUp) != 0 {
		t.Fatalf("an unanswered step on the last attempt answered %v (gave up %v), want a snooze", err, gaveUp)
	}
	if snooze.Duration != time.Minute {
		t.Errorf("snoozed %v at 4 minutes, want a minute", snooze.Duration)
	}
	if err := w.run(ctx, args, 3, 3, StepChainPatience+time.Second); err != nil || len(gaveUp) != 1 {
		t.Fatalf("past the patience the last attempt answered %v (gave up %v), want GiveUp", err, gaveUp)
	}
	for _, c := range []struct{ age, want time.Duration }{
		{0, 2 * time.Second}, {20 * time.Second, 5 * time.Second}, {4 * time.Minute, time.Minute}, {time.Hour, 2 * time.Minute},
	} {
		if got := ChainWait(c.age); got != c.want {
			t.Errorf("ChainWait(%v) = %v, want %v", c.age, got, c.want)
		}
	}
}
