package kernel

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/riverqueue/river"
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
