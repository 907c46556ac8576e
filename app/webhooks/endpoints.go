package webhooks

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/webhook"
	"github.com/corridorhq/corridor/ports"
)

// EndpointInput is POST /v1/webhook-endpoints.
type EndpointInput struct {
	URL     string
	Events  []string
	Enabled *bool // nil: enabled
}

// EndpointPatch is PATCH /v1/webhook-endpoints/{id}: nil fields stay as they are. RotateSecret
// replaces the signing secret; the new one is shown in that answer only.
type EndpointPatch struct {
	URL          *string
	Events       *[]string
	Enabled      *bool
	RotateSecret bool
}

// PreparedEndpoint is a new endpoint checked outside any transaction (its URL, its events,
// and in LIVE where its host resolves), with its signing secret sealed, ready for AddEndpoint.
type PreparedEndpoint struct {
	tenantID string
	endpoint webhook.Endpoint
	secret   string
}

// PrepareEndpoint is the first step of creating an endpoint: it checks the URL and events and
// resolves the host (which leaves the process, so it runs before the unit of work).
func (s *Service) PrepareEndpoint(ctx context.Context, p auth.Principal, in EndpointInput) (PreparedEndpoint, error) {
	if err := kernel.RequireTenantScope(p, scope); err != nil {
		return PreparedEndpoint{}, err
	}
	url := strings.TrimSpace(in.URL)
	if err := s.checkEndpoint(ctx, p.Environment, url, in.Events); err != nil {
		return PreparedEndpoint{}, err
	}
	now := s.clock.Now().UTC()
	e := webhook.Endpoint{ID: core.NewID(core.PrefixWebhookEndpoint), TenantID: p.TenantID, Environment: p.Environment, URL: url,
		EventTypes: normalizeTypes(in.Events), Enabled: in.Enabled == nil || *in.Enabled, EnabledAt: now, CreatedAt: now, UpdatedAt: now}
	secret := webhook.NewSecret()
	if err := s.seal(&e, secret); err != nil {
		return PreparedEndpoint{}, err
	}
	return PreparedEndpoint{tenantID: p.TenantID, endpoint: e, secret: secret}, nil
}

// AddEndpoint records a prepared endpoint in one unit of work, within the per-tenant bound,
// and returns it with its signing secret (shown once).
func (s *Service) AddEndpoint(ctx context.Context, p auth.Principal, prepared PreparedEndpoint) (webhook.Endpoint, string, error) {
	if err := kernel.RequireTenantScope(p, scope); err != nil {
		return webhook.Endpoint{}, "", err
	}
	if prepared.tenantID != p.TenantID || prepared.endpoint.Environment != p.Environment {
		return webhook.Endpoint{}, "", core.E(core.CodeInternal, "webhooks: an endpoint prepared for another caller")
	}
	e := prepared.endpoint
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		n, err := tx.Events().CountEndpoints(ctx, p.TenantID, p.Environment)
		if err != nil {
			return err
		}
		if n >= webhook.MaxEndpoints {
			return core.E(core.CodeInvalidState, "at most %d webhook endpoints per tenant and environment", webhook.MaxEndpoints)
		}
		return tx.Events().CreateEndpoint(ctx, e)
	})
	return e, prepared.secret, err
}

// CreateEndpoint prepares and adds an endpoint, for a caller outside the HTTP runner (the
// console), which is outside any unit of work.
func (s *Service) CreateEndpoint(ctx context.Context, p auth.Principal, in EndpointInput) (webhook.Endpoint, string, error) {
	prepared, err := s.PrepareEndpoint(ctx, p, in)
	if err != nil {
		return webhook.Endpoint{}, "", err
	}
	return s.AddEndpoint(ctx, p, prepared)
}

// ListEndpoints lists the caller's endpoints, newest first.
func (s *Service) ListEndpoints(ctx context.Context, p auth.Principal, page ports.Page) ([]webhook.Endpoint, int, error) {
	if err := kernel.RequireTenantScope(p, scope); err != nil {
		return nil, 0, err
	}
	var out []webhook.Endpoint
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, total, err = tx.Events().ListEndpoints(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// GetEndpoint returns one of the caller's endpoints.
func (s *Service) GetEndpoint(ctx context.Context, p auth.Principal, id string) (webhook.Endpoint, error) {
	if err := kernel.RequireTenantScope(p, scope); err != nil {
		return webhook.Endpoint{}, err
	}
	var out webhook.Endpoint
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, err = tx.Events().FindEndpoint(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		return err
	})
	return out, err
}

// UpdateEndpoint applies a patch; enabling an endpoint again clears its failure run. The
// returned secret is set only when the patch rotated it.
func (s *Service) UpdateEndpoint(ctx context.Context, p auth.Principal, id string, in EndpointPatch) (webhook.Endpoint, string, error) {
	if err := kernel.RequireTenantScope(p, scope); err != nil {
		return webhook.Endpoint{}, "", err
	}
	if in.URL != nil || in.Events != nil {
		url, events := "", []string(nil)
		if in.URL != nil {
			url = strings.TrimSpace(*in.URL)
		}
		if in.Events != nil {
			events = *in.Events
		}
		if err := s.checkPatch(ctx, p.Environment, in.URL != nil, url, events); err != nil {
			return webhook.Endpoint{}, "", err
		}
	}
	var out webhook.Endpoint
	var secret string
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		e, err := tx.Events().FindEndpoint(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		if e, err = tx.Events().LockEndpointByID(ctx, e.TenantID, e.ID); err != nil {
			return err
		}
		before := e
		if in.URL != nil {
			e.URL = strings.TrimSpace(*in.URL)
		}
		if in.Events != nil {
			e.EventTypes = normalizeTypes(*in.Events)
		}
		now := s.clock.Now().UTC()
		if in.Enabled != nil {
			if *in.Enabled && !e.Enabled {
				e.FailingSince, e.DisabledReason = nil, ""
				e.EnabledAt = now
			}
			e.Enabled = *in.Enabled
		}
		if in.RotateSecret {
			secret = webhook.NewSecret()
			if err := s.seal(&e, secret); err != nil {
				return err
			}
		}
		out = e
		if !in.RotateSecret && e.URL == before.URL && e.Enabled == before.Enabled && slices.Equal(e.EventTypes, before.EventTypes) {
			return nil // a patch that changes nothing writes nothing, updatedAt included
		}
		e.UpdatedAt = now
		out = e
		return tx.Events().UpdateEndpoint(ctx, e)
	})
	return out, secret, err
}

// DeleteEndpoint removes an endpoint and returns it as it was; its pending deliveries fail.
func (s *Service) DeleteEndpoint(ctx context.Context, p auth.Principal, id string) (webhook.Endpoint, error) {
	if err := kernel.RequireTenantScope(p, scope); err != nil {
		return webhook.Endpoint{}, err
	}
	var out webhook.Endpoint
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		if out, err = tx.Events().FindEndpoint(ctx, p.TenantID, p.Environment, strings.TrimSpace(id)); err != nil {
			return err
		}
		out.Enabled = false
		return tx.Events().DeleteEndpoint(ctx, p.TenantID, p.Environment, out.ID, s.clock.Now().UTC())
	})
	return out, err
}

// DeliveryView is a delivery with its attempts.
type DeliveryView struct {
	webhook.Delivery
	Attempts []webhook.Attempt
}

// ListDeliveries lists an endpoint's deliveries, newest first, with their attempts.
func (s *Service) ListDeliveries(ctx context.Context, p auth.Principal, endpointID string, page ports.Page) ([]DeliveryView, int, error) {
	if err := kernel.RequireTenantScope(p, scope); err != nil {
		return nil, 0, err
	}
	var out []DeliveryView
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		e, err := tx.Events().FindEndpoint(ctx, p.TenantID, p.Environment, strings.TrimSpace(endpointID))
		if err != nil {
			return err
		}
		rows, n, err := tx.Events().ListDeliveries(ctx, e.TenantID, e.ID, kernel.ClampPage(page))
		if err != nil {
			return err
		}
		total = n
		out, err = withAttempts(ctx, tx, p.TenantID, rows)
		return err
	})
	return out, total, err
}

// withAttempts reads the attempts of deliveries, each beside its delivery.
func withAttempts(ctx context.Context, tx txView, tenantID string, rows []webhook.Delivery) ([]DeliveryView, error) {
	ids := make([]string, len(rows))
	for i, d := range rows {
		ids[i] = d.ID
	}
	attempts, err := tx.Events().Attempts(ctx, tenantID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]DeliveryView, len(rows))
	for i, d := range rows {
		out[i] = DeliveryView{Delivery: d, Attempts: attempts[d.ID]}
	}
	return out, nil
}

// Redeliver sends a delivery's event to its endpoint again, now, as a new delivery with its
// own attempts and retries (the event, and its id, are the same).
func (s *Service) Redeliver(ctx context.Context, p auth.Principal, deliveryID string) (DeliveryView, error) {
	if err := kernel.RequireTenantScope(p, scope); err != nil {
		return DeliveryView{}, err
	}
	var out webhook.Delivery
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		d, err := tx.Events().FindDelivery(ctx, p.TenantID, p.Environment, strings.TrimSpace(deliveryID))
		if err != nil {
			return err
		}
		e, err := tx.Events().FindEndpoint(ctx, p.TenantID, p.Environment, d.EndpointID)
		if err != nil {
			return core.E(core.CodeInvalidState, "the delivery's endpoint was deleted")
		}
		if !e.Enabled {
			return core.E(core.CodeInvalidState, "the delivery's endpoint is disabled: enable it first")
		}
		out, err = s.newDelivery(ctx, tx, e, d.EventID, d.EventType, d.ID)
		return err
	})
	return DeliveryView{Delivery: out}, err
}

// checkEndpoint validates a new endpoint's URL (and, in LIVE, where it points) and events.
func (s *Service) checkEndpoint(ctx context.Context, env core.Environment, url string, events []string) error {
	return s.checkPatch(ctx, env, true, url, events)
}

func (s *Service) checkPatch(ctx context.Context, env core.Environment, hasURL bool, url string, events []string) error {
	if hasURL {
		if err := webhook.CheckURL(url); err != nil {
			return err
		}
		// Resolving the host leaves the process: the callers run this while preparing, before
		// their unit of work (docs/decisions/reliability.md).
		if err := s.sender.CheckDestination(ctx, url, s.allowPrivate(env)); err != nil {
			return core.Invalid("url", err.Error())
		}
	}
	return webhook.CheckEventTypes(events)
}

// seal encrypts the secret into the endpoint.
func (s *Service) seal(e *webhook.Endpoint, secret string) error {
	sealed, err := s.cipher.Encrypt([]byte(secret), secretContext(e.ID))
	if err != nil {
		return fmt.Errorf("webhooks: seal secret: %w", err)
	}
	e.SealedSecret = sealed
	return nil
}

// normalizeTypes trims and deduplicates a subscription list, keeping its order.
func normalizeTypes(in []string) []string {
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, t := range in {
		t = strings.TrimSpace(t)
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
