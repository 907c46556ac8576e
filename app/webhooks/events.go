package webhooks

import (
	"context"
	"strings"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/ports"
)

// Scope: events and webhook endpoints are read and managed under keys:manage. An event feed
// spans every capability (payments, cards, agents, invoices), so no one capability's read scope
// covers it; and an endpoint's signing secret is a credential like an API key. Agent keys never
// hold keys:manage, so an agent cannot redirect or read its tenant's events.
const scope = auth.ScopeKeysManage

// EventQuery filters GET /v1/events.
type EventQuery struct {
	Type     string
	From, To time.Time
	// ResourceID, when set, selects one object's events (its state history).
	ResourceID string
}

// ListEvents lists the caller's events, newest first.
func (s *Service) ListEvents(ctx context.Context, p auth.Principal, q EventQuery, page ports.Page) ([]event.Event, int, error) {
	if err := kernel.RequireTenantScope(p, scope); err != nil {
		return nil, 0, err
	}
	typ := strings.TrimSpace(q.Type)
	// One type (family.state) or a family (family.*): a bare family name is neither, and would
	// match no event.
	if family, ok := strings.CutSuffix(typ, ".*"); typ != "" && !(ok && event.ValidType(family+".x")) && !(!ok && event.ValidType(typ)) {
		return nil, 0, core.Invalid("type", "an event type such as safe_payment.completed, or a family such as card_authorization.*")
	}
	if !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To) {
		return nil, 0, core.Invalid("to", "must be after from")
	}
	var out []event.Event
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, total, err = tx.Events().ListEvents(ctx, ports.EventFilter{TenantID: p.TenantID, Environment: p.Environment,
			Type: typ, From: q.From, To: q.To, ResourceID: strings.TrimSpace(q.ResourceID)}, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// GetEvent returns one of the caller's events.
func (s *Service) GetEvent(ctx context.Context, p auth.Principal, id string) (event.Event, error) {
	if err := kernel.RequireTenantScope(p, scope); err != nil {
		return event.Event{}, err
	}
	var out event.Event
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, err = tx.Events().FindEvent(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		return err
	})
	return out, err
}
