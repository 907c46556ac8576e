package jobs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// TestObserveWork: every worked job counts once under its kind and outcome (ok, snoozed,
// failed), a panic counts as failed and still reaches River, and the errors pass unchanged.
func TestObserveWork(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := newWorkMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	mw := &observeWork{metrics: m}
	job := &rivertype.JobRow{Kind: "test.kind"}
	ctx := context.Background()
	if err := mw.Work(ctx, job, func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := mw.Work(ctx, job, func(context.Context) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("error %v", err)
	}
	snooze := river.JobSnooze(time.Second)
	if err := mw.Work(ctx, job, func(context.Context) error { return snooze }); !errors.Is(err, snooze) {
		t.Fatalf("snooze %v", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic did not reach River")
			}
		}()
		_ = mw.Work(ctx, job, func(context.Context) error { panic("job panicked") })
	}()
	got := map[string]float64{}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, series := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range series.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if f.GetName() == "corridor_job_runs_total" && labels["kind"] == "test.kind" {
				got[labels["outcome"]] = series.GetCounter().GetValue()
			}
		}
	}
	want := map[string]float64{"ok": 1, "failed": 2, "snoozed": 1}
	if len(got) != len(want) || got["ok"] != want["ok"] || got["failed"] != want["failed"] || got["snoozed"] != want["snoozed"] {
		t.Fatalf("corridor_job_runs_total = %v, want %v", got, want)
	}
}
