package webhooks

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/webhook"
	"github.com/corridorhq/corridor/ports"
)

// EventDeliveries lists an event's deliveries to the tenant's endpoints, newest first, with
// their attempts: the event's page shows them, each with its redeliver action.
func (s *Service) EventDeliveries(ctx context.Context, p auth.Principal, eventID string) ([]DeliveryView, error) {
	if err := kernel.RequireTenantScope(p, scope); err != nil {
		return nil, err
	}
	var out []DeliveryView
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		rows, err := tx.Events().EventDeliveries(ctx, p.TenantID, p.Environment, strings.TrimSpace(eventID))
		if err != nil {
			return err
		}
		out, err = withAttempts(ctx, tx, p.TenantID, rows)
		return err
	})
	return out, err
}

// RecoverEndpoint enables an endpoint the service disabled and redelivers, as new deliveries,
// the deliveries that failed since it began failing (at most MaxTake, newest first): what a
// tenant does with PATCH enabled=true and a redeliver per delivery, in one unit of work, for an
// operator who knows the receiver works again. An endpoint that is enabled is refused.
func (s *Service) RecoverEndpoint(ctx context.Context, p auth.Principal, endpointID string) (int, error) {
	if err := kernel.RequireTenantScope(p, scope); err != nil {
		return 0, err
	}
	n := 0
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		e, err := tx.Events().FindEndpoint(ctx, p.TenantID, p.Environment, strings.TrimSpace(endpointID))
		if err != nil {
			return err
		}
		if e, err = tx.Events().LockEndpointByID(ctx, e.TenantID, e.ID); err != nil {
			return err
		}
		if e.Enabled {
			return core.E(core.CodeInvalidState, "webhook endpoint %s is enabled: nothing to recover", e.ID)
		}
		since := e.FailingSince
		e.Enabled, e.FailingSince, e.DisabledReason = true, nil, ""
		e.UpdatedAt = s.clock.Now().UTC()
		if err := tx.Events().UpdateEndpoint(ctx, e); err != nil {
			return err
		}
		failed, _, err := tx.Events().ListDeliveries(ctx, e.TenantID, e.ID, ports.Page{Take: ports.MaxTake})
		if err != nil {
			return err
		}
		for _, d := range failed {
			if d.Status != webhook.DeliveryFailed || (since != nil && d.CreatedAt.Before(*since)) {
				continue
			}
			if _, err := s.newDelivery(ctx, tx, e, d.EventID, d.EventType, d.ID); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}
