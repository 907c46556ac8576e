// Package operations is the operator's view across tenants (docs/decisions/operations.md): the off-ramp
// payments, invoices, background jobs and webhook endpoints that wait for a person, and the
// actions an operator takes on them, each written to the operator audit trail. Who may call it
// is decided by its callers with the operator token (docs/decisions/operations.md); tenants never reach it.
package operations

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ports"
)

// ListLimit bounds each list of the overview: past it the metrics and SQL in docs/runbooks.md
// are the tools, not a page.
const ListLimit = 100

// StuckAfter is how long a relayer transaction may stay unmined before the operator sees it:
// ten minutes, five fee bumps at the default RELAYER_BUMP_AFTER, as the metric's threshold.
const StuckAfter = 10 * time.Minute

// RecentActions is how many audit entries the overview shows.
const RecentActions = 20

// Reviews approves an off-ramp payment's review holds (the off-ramp capability).
type Reviews interface {
	ApproveReview(ctx context.Context, operator, id string) (offramp.Payment, error)
}

// Arbiter signs an invoice's settlement payment as the platform arbiter (the invoices
// capability, docs/decisions/invoices.md).
type Arbiter interface {
	ArbiterSign(ctx context.Context, operator, id string) (invoice.Invoice, error)
	ArbiterAddress() string
}

// Endpoints recovers a disabled webhook endpoint (the webhooks capability), as its tenant.
type Endpoints interface {
	RecoverEndpoint(ctx context.Context, p auth.Principal, endpointID string) (int, error)
}

// Deps are the operations capability's ports and the capabilities whose operator actions it
// runs. Reviews, Arbiter and Endpoints may be nil: their action then answers
// SERVICE_UNAVAILABLE.
type Deps struct {
	Reports   ports.OperatorReports
	Audit     ports.OperatorAudit
	Jobs      ports.JobRetrier
	Reviews   Reviews
	Arbiter   Arbiter
	Endpoints Endpoints
	Clock     ports.Clock // nil: the wall clock
	Logger    *slog.Logger
}

// Service reads the operator's lists and runs the operator's actions.
type Service struct {
	reports   ports.OperatorReports
	audit     ports.OperatorAudit
	jobs      ports.JobRetrier
	reviews   Reviews
	arbiter   Arbiter
	endpoints Endpoints
	clock     ports.Clock
	log       *slog.Logger
}

// New fails at start-up when a required port is missing.
func New(d Deps) (*Service, error) {
	if d.Reports == nil || d.Audit == nil || d.Jobs == nil || d.Logger == nil {
		return nil, errors.New("operations: OperatorReports, OperatorAudit, JobRetrier and a logger are required")
	}
	clock := d.Clock
	if clock == nil {
		clock = ports.SystemClock{}
	}
	return &Service{reports: d.Reports, audit: d.Audit, jobs: d.Jobs, reviews: d.Reviews, arbiter: d.Arbiter,
		endpoints: d.Endpoints, clock: clock, log: d.Logger}, nil
}

// Overview is everything waiting for an operator, each list at most ListLimit long, and the
// newest entries of the audit trail.
type Overview struct {
	Payments  []ports.OperatorPayment
	Invoices  []ports.ArbiterInvoice
	Jobs      []ports.FailedJob
	Relayer   []ports.StuckRelayerTransaction
	Endpoints []ports.DisabledEndpoint
	Actions   []ports.OperatorAction
}

// Overview reads the lists.
func (s *Service) Overview(ctx context.Context) (Overview, error) {
	var out Overview
	var err error
	if out.Payments, err = s.reports.PaymentsAwaitingOperator(ctx, ListLimit); err != nil {
		return out, err
	}
	if s.HasArbiter() {
		if out.Invoices, err = s.reports.InvoicesAwaitingArbiter(ctx, s.arbiter.ArbiterAddress(), ListLimit); err != nil {
			return out, err
		}
	}
	if out.Jobs, err = s.reports.FailedJobs(ctx, ListLimit); err != nil {
		return out, err
	}
	if out.Relayer, err = s.reports.StuckRelayerTransactions(ctx, StuckAfter, ListLimit); err != nil {
		return out, err
	}
	if out.Endpoints, err = s.reports.DisabledEndpoints(ctx, ListLimit); err != nil {
		return out, err
	}
	out.Actions, err = s.reports.RecentOperatorActions(ctx, RecentActions)
	return out, err
}

// HasArbiter reports whether a platform arbiter is configured (INVOICE_ARBITER_KEY).
func (s *Service) HasArbiter() bool { return s.arbiter != nil && s.arbiter.ArbiterAddress() != "" }
