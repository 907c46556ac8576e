package operations

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ports"
)

// Actions an operator takes, as the audit trail names them.
const (
	ActionApproveReview = "approve-review"
	ActionArbiterSign   = "arbiter-sign"
	ActionRedeliver     = "redeliver"
	ActionRetryJob      = "retry-job"
)

// auditWriteTimeout bounds the audit entry's write, which outlives the caller's request.
const auditWriteTimeout = 5 * time.Second

// Actor is who acts and through what: the operator's name (a fingerprint of the token, never
// the token) and "console" or "api".
type Actor struct {
	Operator string
	Via      string
}

// ApproveReview approves a held off-ramp payment's review (POST
// /v1/admin/offramp/payments/{id}/approve-review) and audits it.
func (s *Service) ApproveReview(ctx context.Context, by Actor, id string) (offramp.Payment, error) {
	if s.reviews == nil {
		return offramp.Payment{}, unavailable("approving reviews")
	}
	pay, err := s.reviews.ApproveReview(ctx, by.Operator, id)
	entry := ports.OperatorAction{Action: ActionApproveReview, ObjectID: id, TenantID: pay.SenderTenantID, Environment: pay.Environment}
	return pay, s.record(ctx, by, entry, err)
}

// ArbiterSign signs an invoice's pending settlement payment as the platform arbiter (POST
// /v1/admin/invoices/{id}/arbiter-sign) and audits it.
func (s *Service) ArbiterSign(ctx context.Context, by Actor, id string) (invoice.Invoice, error) {
	if s.arbiter == nil {
		return invoice.Invoice{}, unavailable("arbiter signing")
	}
	inv, err := s.arbiter.ArbiterSign(ctx, by.Operator, id)
	entry := ports.OperatorAction{Action: ActionArbiterSign, ObjectID: id, TenantID: inv.TenantID, Environment: inv.Environment}
	return inv, s.record(ctx, by, entry, err)
}

// Redeliver enables a webhook endpoint the service disabled and redelivers what failed since it
// began failing, as its tenant would with PATCH enabled=true and a redeliver per delivery, and
// audits it. It answers how many deliveries were made again.
func (s *Service) Redeliver(ctx context.Context, by Actor, endpointID string) (int, error) {
	if s.endpoints == nil {
		return 0, unavailable("redelivering")
	}
	entry := ports.OperatorAction{Action: ActionRedeliver, ObjectID: endpointID}
	ep, err := s.reports.FindDisabledEndpoint(ctx, endpointID)
	if err != nil {
		return 0, s.record(ctx, by, entry, err)
	}
	entry.TenantID, entry.Environment = ep.TenantID, ep.Environment
	n, err := s.endpoints.RecoverEndpoint(ctx, kernel.System(ep.TenantID, ep.Environment, auth.ScopeKeysManage), ep.ID)
	if err == nil {
		entry.Detail = strconv.Itoa(n) + " deliveries made again"
	}
	return n, s.record(ctx, by, entry, err)
}

// RetryJob makes a failed job available again and audits it.
func (s *Service) RetryJob(ctx context.Context, by Actor, id int64) error {
	err := s.jobs.RetryJob(ctx, id)
	return s.record(ctx, by, ports.OperatorAction{Action: ActionRetryJob, ObjectID: strconv.FormatInt(id, 10)}, err)
}

// record writes the audit entry of an action whose outcome was err and returns err. An action
// refused with a domain error is recorded as refused; one that failed for another reason (the
// database, a deadline) is recorded as refused with a generic detail. When the entry cannot be
// written the action's own error wins, else the write's: an action that happened is never
// reported as done without its entry.
func (s *Service) record(ctx context.Context, by Actor, a ports.OperatorAction, err error) error {
	a.At, a.Operator, a.Via, a.Outcome = s.clock.Now().UTC(), by.Operator, by.Via, "done"
	if err != nil {
		a.Outcome, a.Detail = "refused", "internal error"
		var de *core.Error
		if errors.As(err, &de) {
			a.Detail = string(de.Code) + ": " + de.Message
		}
	}
	// The entry is written even when the caller's request was cancelled after the action ran,
	// under a deadline of its own (a silent database must not hold it).
	auditCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), auditWriteTimeout)
	defer cancel()
	werr := s.audit.RecordOperatorAction(auditCtx, a)
	s.log.InfoContext(ctx, "operator action", "operator", a.Operator, "action", a.Action, "objectId", a.ObjectID,
		"tenantId", a.TenantID, "outcome", a.Outcome, "detail", a.Detail, "via", a.Via)
	if err != nil {
		return err
	}
	if werr != nil {
		s.log.ErrorContext(ctx, "operator audit entry not written", "action", a.Action, "objectId", a.ObjectID, "error", werr.Error())
		return werr
	}
	return nil
}

func unavailable(what string) error {
	return core.E(core.CodeServiceUnavailable, "%s is not configured on this service", what)
}
