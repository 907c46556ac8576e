// Package operations is the operator's view across tenants (DESIGN.md D25): the off-ramp
// payments, background jobs and webhook endpoints that wait for a person. Who may call it is
// decided by its callers with the operator token (D11); tenants never reach it.
package operations

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"corridor/ports"
)

// ListLimit bounds each list of the overview: past it the metrics and SQL in docs/runbooks.md
// are the tools, not a page.
const ListLimit = 100

// StuckAfter is how long a relayer transaction may stay unmined before the operator sees it:
// ten minutes, five fee bumps at the default RELAYER_BUMP_AFTER, as the metric's threshold.
const StuckAfter = 10 * time.Minute

// Service reads the operator's lists and retries failed jobs.
type Service struct {
	reports ports.OperatorReports
	jobs    ports.JobRetrier
	log     *slog.Logger
}

// New fails at start-up when a port is missing.
func New(reports ports.OperatorReports, jobs ports.JobRetrier, log *slog.Logger) (*Service, error) {
	if reports == nil || jobs == nil || log == nil {
		return nil, errors.New("operations: OperatorReports, JobRetrier and a logger are required")
	}
	return &Service{reports: reports, jobs: jobs, log: log}, nil
}

// RetryJob makes a failed job available again; operator names who asked, for the audit line.
func (s *Service) RetryJob(ctx context.Context, operator string, id int64) error {
	if err := s.jobs.RetryJob(ctx, id); err != nil {
		return err
	}
	s.log.InfoContext(ctx, "operator retried a job", "operator", operator, "jobId", id)
	return nil
}

// Overview is everything waiting for an operator, each list at most ListLimit long.
type Overview struct {
	Payments  []ports.OperatorPayment
	Jobs      []ports.FailedJob
	Relayer   []ports.StuckRelayerTransaction
	Endpoints []ports.DisabledEndpoint
}

// Overview reads the three lists.
func (s *Service) Overview(ctx context.Context) (Overview, error) {
	var out Overview
	var err error
	if out.Payments, err = s.reports.PaymentsAwaitingOperator(ctx, ListLimit); err != nil {
		return out, err
	}
	if out.Jobs, err = s.reports.FailedJobs(ctx, ListLimit); err != nil {
		return out, err
	}
	if out.Relayer, err = s.reports.StuckRelayerTransactions(ctx, StuckAfter, ListLimit); err != nil {
		return out, err
	}
	out.Endpoints, err = s.reports.DisabledEndpoints(ctx, ListLimit)
	return out, err
}
