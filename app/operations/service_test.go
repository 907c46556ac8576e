package operations

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/core/webhook"
	"github.com/corridorhq/corridor/ports"
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

func (f *fakeReports) FindDisabledEndpoint(_ context.Context, id string) (ports.DisabledEndpoint, error) {
	if id != "whe_1" {
		return ports.DisabledEndpoint{}, core.E(webhook.CodeEndpointNotFound, "no disabled webhook endpoint %s", id)
	}
	return ports.DisabledEndpoint{ID: id, TenantID: "ten_1", Environment: core.EnvTest}, nil
}

func (f *fakeReports) InvoicesAwaitingArbiter(_ context.Context, arbiter string, limit int) ([]ports.ArbiterInvoice, error) {
	f.limits = append(f.limits, limit)
	return []ports.ArbiterInvoice{{ID: "inv_1"}}, nil
}

func (f *fakeReports) FindTenants(_ context.Context, q string, limit int) ([]ports.TenantMatch, error) {
	f.limits = append(f.limits, limit)
	return []ports.TenantMatch{{ID: "ten_1", MatchedBy: q}}, nil
}

func (f *fakeReports) RecentOperatorActions(_ context.Context, limit int) ([]ports.OperatorAction, error) {
	return []ports.OperatorAction{{ID: 1}}, nil
}

// fakeAudit keeps the entries written.
type fakeAudit struct{ entries []ports.OperatorAction }

func (f *fakeAudit) RecordOperatorAction(_ context.Context, a ports.OperatorAction) error {
	f.entries = append(f.entries, a)
	return nil
}

// fakeRetrier records the jobs retried; job 13 is unknown.
type fakeRetrier struct{ retried []int64 }

func (f *fakeRetrier) RetryJob(_ context.Context, id int64) error {
	if id == 13 {
		return core.E(core.CodeJobNotFound, "no job 13")
	}
	f.retried = append(f.retried, id)
	return nil
}

// fakeEndpoints records the principal it recovered an endpoint as.
type fakeEndpoints struct{ as []auth.Principal }

func (f *fakeEndpoints) RecoverEndpoint(_ context.Context, p auth.Principal, id string) (int, error) {
	f.as = append(f.as, p)
	return 2, nil
}

// fakeArbiter signs as the platform's address.
type fakeArbiter struct{}

func (fakeArbiter) ArbiterAddress() string { return "0xA" }
func (fakeArbiter) ArbiterSign(_ context.Context, _, id string) (invoice.Invoice, error) {
	return invoice.Invoice{ID: id, TenantID: "ten_2", Environment: core.EnvLive}, nil
}

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

func newService(t *testing.T, d Deps) *Service {
	t.Helper()
	if d.Reports == nil {
		d.Reports = &fakeReports{}
	}
	if d.Audit == nil {
		d.Audit = &fakeAudit{}
	}
	if d.Jobs == nil {
		d.Jobs = &fakeRetrier{}
	}
	d.Logger = discard
	s, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var console = Actor{Operator: "operator-token:abc", Via: "console"}

// TestActionsAudited: every action writes one entry naming the operator, the object, its tenant
// and the outcome; a refused action is recorded refused with its code, and still refused.
func TestActionsAudited(t *testing.T) {
	audit, jobs, endpoints := &fakeAudit{}, &fakeRetrier{}, &fakeEndpoints{}
	s := newService(t, Deps{Audit: audit, Jobs: jobs, Endpoints: endpoints, Arbiter: fakeArbiter{}})
	ctx := context.Background()
	if err := s.RetryJob(ctx, console, 42); err != nil || len(jobs.retried) != 1 {
		t.Fatalf("retry: %v %v", jobs.retried, err)
	}
	if err := s.RetryJob(ctx, console, 13); !hasCode(err, core.CodeJobNotFound) {
		t.Fatalf("unknown job: %v", err)
	}
	if n, err := s.Redeliver(ctx, console, "whe_1"); err != nil || n != 2 {
		t.Fatalf("redeliver: %d %v", n, err)
	}
	if len(endpoints.as) != 1 || endpoints.as[0].TenantID != "ten_1" || endpoints.as[0].Environment != core.EnvTest {
		t.Fatalf("the endpoint was recovered as %+v, not its tenant", endpoints.as)
	}
	if _, err := s.Redeliver(ctx, console, "whe_other"); !hasCode(err, webhook.CodeEndpointNotFound) {
		t.Fatalf("redeliver of an endpoint that is not disabled: %v", err)
	}
	if _, err := s.ArbiterSign(ctx, console, "inv_9"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApproveReview(ctx, console, "ofp_1"); !hasCode(err, core.CodeServiceUnavailable) {
		t.Fatalf("approve without the off-ramp capability: %v", err)
	}
	want := []struct{ action, object, tenant, outcome string }{
		{ActionRetryJob, "42", "", "done"},
		{ActionRetryJob, "13", "", "refused"},
		{ActionRedeliver, "whe_1", "ten_1", "done"},
		{ActionRedeliver, "whe_other", "", "refused"},
		{ActionArbiterSign, "inv_9", "ten_2", "done"},
	}
	if len(audit.entries) != len(want) {
		t.Fatalf("%d entries: %+v", len(audit.entries), audit.entries)
	}
	for i, w := range want {
		e := audit.entries[i]
		if e.Action != w.action || e.ObjectID != w.object || e.TenantID != w.tenant || e.Outcome != w.outcome ||
			e.Operator != console.Operator || e.Via != "console" || e.At.IsZero() {
			t.Fatalf("entry %d: %+v, want %+v", i, e, w)
		}
	}
	if !strings.HasPrefix(audit.entries[1].Detail, "JOB_NOT_FOUND") {
		t.Fatalf("refused entry's detail %q", audit.entries[1].Detail)
	}
}

// TestRetryJob: the job is handed to the port.
func TestRetryJob(t *testing.T) {
	jobs := &fakeRetrier{}
	s := newService(t, Deps{Jobs: jobs})
	if err := s.RetryJob(context.Background(), console, 42); err != nil || len(jobs.retried) != 1 || jobs.retried[0] != 42 {
		t.Fatalf("retried %v, %v", jobs.retried, err)
	}
}

// TestOverview: the three lists, each bounded by ListLimit; a failing read is returned.
func TestOverview(t *testing.T) {
	if _, err := New(Deps{Audit: &fakeAudit{}, Jobs: &fakeRetrier{}, Logger: discard}); err == nil {
		t.Fatal("New without the reports port succeeded")
	}
	reports := &fakeReports{}
	s := newService(t, Deps{Reports: reports, Arbiter: fakeArbiter{}})
	got, err := s.Overview(context.Background())
	if err != nil || len(got.Payments) != 1 || len(got.Jobs) != 1 || len(got.Endpoints) != 1 || len(got.Relayer) != 1 ||
		len(got.Invoices) != 1 || len(got.Actions) != 1 {
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

func hasCode(err error, code core.Code) bool {
	var de *core.Error
	return errors.As(err, &de) && de.Code == code
}
