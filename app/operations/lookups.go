package operations

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// The operator's lookups across tenants (GET /v1/admin/...). A lookup reads what tenants own,
// so each is written to the operator audit trail as the actions are: who looked, at what and
// when (the query, never a secret).
const (
	ActionListTenants           = "list-tenants"
	ActionListStuckWork         = "list-stuck-work"
	ActionListFailedJobs        = "list-failed-jobs"
	ActionListDisabledEndpoints = "list-disabled-endpoints"
)

// MaxTenantQuery bounds the tenant lookup's query: an id, a slug or an email.
const MaxTenantQuery = 320

// FindTenants looks tenants up by id, slug or a member's email and audits the lookup.
func (s *Service) FindTenants(ctx context.Context, by Actor, q string) ([]ports.TenantMatch, error) {
	q = strings.TrimSpace(q)
	entry := ports.OperatorAction{Action: ActionListTenants, ObjectID: "tenants", Detail: "q=" + q}
	if q == "" || len(q) > MaxTenantQuery {
		err := core.Invalid("q", "give a tenant id, slug or member email (at most 320 characters)")
		return nil, s.record(ctx, by, entry, err)
	}
	out, err := s.reports.FindTenants(ctx, q, ListLimit)
	if err := s.record(ctx, by, entry, err); err != nil {
		return nil, err
	}
	return out, nil
}

// StuckWork is work that should have finished and has not: payments waiting for an operator
// and relayer transactions unmined past StuckAfter.
type StuckWork struct {
	Payments []ports.OperatorPayment
	Relayer  []ports.StuckRelayerTransaction
}

// ListStuckWork reads the stuck work and audits the lookup.
func (s *Service) ListStuckWork(ctx context.Context, by Actor) (StuckWork, error) {
	var out StuckWork
	var err error
	if out.Payments, err = s.reports.PaymentsAwaitingOperator(ctx, ListLimit); err == nil {
		out.Relayer, err = s.reports.StuckRelayerTransactions(ctx, StuckAfter, ListLimit)
	}
	return out, s.record(ctx, by, ports.OperatorAction{Action: ActionListStuckWork, ObjectID: "stuck-work"}, err)
}

// ListFailedJobs reads the failed background jobs and audits the lookup.
func (s *Service) ListFailedJobs(ctx context.Context, by Actor) ([]ports.FailedJob, error) {
	out, err := s.reports.FailedJobs(ctx, ListLimit)
	return out, s.record(ctx, by, ports.OperatorAction{Action: ActionListFailedJobs, ObjectID: "jobs"}, err)
}

// ListDisabledEndpoints reads the webhook endpoints the service disabled and audits the lookup.
func (s *Service) ListDisabledEndpoints(ctx context.Context, by Actor) ([]ports.DisabledEndpoint, error) {
	out, err := s.reports.DisabledEndpoints(ctx, ListLimit)
	return out, s.record(ctx, by, ports.OperatorAction{Action: ActionListDisabledEndpoints, ObjectID: "webhook-endpoints"}, err)
}
