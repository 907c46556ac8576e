package operations

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"corridor/ports"
)

// fakeReports answers each list with one row and records the limits asked for.
type fakeReports struct {
	limits []int
	fail   error
}

func (f *fakeReports) PaymentsAwaitingOperator(_ context.Context, limit int) ([]ports.OperatorPayment, error) {
	f.limits = append(f.limits, limit)
	return []ports.OperatorPayment{{ID: "ofp_1"}}, f.fail
}

func (f *fakeReports) FailedJobs(_ context.Context, limit int) ([]ports.FailedJob, error) {
	f.limits = append(f.limits, limit)
	return []ports.FailedJob{{ID: 1}}, nil
}

func (f *fakeReports) StuckRelayerTransactions(_ context.Context, olderThan time.Duration, limit int) ([]ports.StuckRelayerTransaction, error) {
	if olderThan != StuckAfter {
		return nil, errors.New("unexpected threshold")
	}
	f.limits = append(f.limits, limit)
	return []ports.StuckRelayerTransaction{{Nonce: 7}}, nil
}

func (f *fakeReports) DisabledEndpoints(_ context.Context, limit int) ([]ports.DisabledEndpoint, error) {
	f.limits = append(f.limits, limit)
	return []ports.DisabledEndpoint{{ID: "we_1"}}, nil
}

// fakeRetrier records the jobs retried.
type fakeRetrier struct{ retried []int64 }

func (f *fakeRetrier) RetryJob(_ context.Context, id int64) error {
	f.retried = append(f.retried, id)
	return nil
}

// TestRetryJob: the job is handed to the port.
func TestRetryJob(t *testing.T) {
	jobs := &fakeRetrier{}
	s, err := New(&fakeReports{}, jobs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RetryJob(context.Background(), "operator-token:abc", 42); err != nil || len(jobs.retried) != 1 || jobs.retried[0] != 42 {
		t.Fatalf("retried %v, %v", jobs.retried, err)
	}
}

// TestOverview: the three lists, each bounded by ListLimit; a failing read is returned.
func TestOverview(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if _, err := New(nil, &fakeRetrier{}, log); err == nil {
		t.Fatal("New without the reports port succeeded")
	}
	reports := &fakeReports{}
	s, err := New(reports, &fakeRetrier{}, log)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Overview(context.Background())
	if err != nil || len(got.Payments) != 1 || len(got.Jobs) != 1 || len(got.Endpoints) != 1 || len(got.Relayer) != 1 {
		t.Fatalf("overview %+v, %v", got, err)
	}
	for _, l := range reports.limits {
		if l != ListLimit {
			t.Fatalf("limits %v", reports.limits)
		}
	}
	reports.fail = errors.New("database down")
	if _, err := s.Overview(context.Background()); !errors.Is(err, reports.fail) {
		t.Fatalf("failing read: %v", err)
	}
}
