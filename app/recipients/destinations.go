package recipients

import (
	"context"
	"encoding/json"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

// CreateDestination adds a payout destination (docs/api.md PayoutDestination). It needs an ACTIVE
// BUSINESS_IDENTITY credential. Identifiers are encrypted, never returned, and immutable:
// there is no update; a new place to be paid is a new destination.
func (s *Service) CreateDestination(ctx context.Context, p auth.Principal, in recipient.DestinationInput) (recipient.Destination, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeIdentityWrite); err != nil {
		return recipient.Destination{}, err
	}
	if err := s.Ready(); err != nil {
		return recipient.Destination{}, err
	}
	typ, ident, masked, err := recipient.ValidateDestination(in)
	if err != nil {
		return recipient.Destination{}, err
	}
	d := recipient.Destination{ID: core.NewID(core.PrefixDest), TenantID: p.TenantID, Environment: p.Environment,
		Type: typ, Status: recipient.DestActive, Masked: masked, AllowAutomaticFallback: in.AllowAutomaticFallback,
		CreatedAt: s.clock.Now()}
	if typ != recipient.DestServiceBalance {
		raw, err := json.Marshal(ident)
		if err != nil {
			return recipient.Destination{}, err
		}
		if d.IdentifierCiphertext, err = s.cipher.Encrypt(raw, "payout_destination:"+d.ID); err != nil {
			return recipient.Destination{}, err
		}
	}
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		cred, ok, err := tx.Recipients().FindCredential(ctx, p.TenantID, p.Environment)
		if err != nil {
			return err
		}
		if !ok || cred.Status != recipient.CredentialActive {
			return core.E(recipient.CodeCredentialRequired, "creating payout destinations requires an ACTIVE BUSINESS_IDENTITY credential")
		}
		if err := tx.Recipients().CreateDestination(ctx, d); err != nil {
			return err
		}
		return s.changed.Raise(ctx, recipient.Changed{Environment: p.Environment, TenantID: p.TenantID})
	})
	return d, err
}

// GetDestination returns one of the caller's destinations.
func (s *Service) GetDestination(ctx context.Context, p auth.Principal, id string) (recipient.Destination, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeIdentityRead); err != nil {
		return recipient.Destination{}, err
	}
	var d recipient.Destination
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		d, err = tx.Recipients().FindDestination(ctx, p.TenantID, p.Environment, id)
		return err
	})
	return d, err
}

// ListDestinations lists the caller's destinations, oldest first.
func (s *Service) ListDestinations(ctx context.Context, p auth.Principal, page ports.Page) ([]recipient.Destination, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeIdentityRead); err != nil {
		return nil, 0, err
	}
	var out []recipient.Destination
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, total, err = tx.Recipients().ListDestinations(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// DestinationIdentifier decrypts a destination's identifier (for routing and submission only).
func (s *Service) DestinationIdentifier(d recipient.Destination) (recipient.Identifier, error) {
	var id recipient.Identifier
	if len(d.IdentifierCiphertext) == 0 {
		return id, nil
	}
	raw, err := s.cipher.Decrypt(d.IdentifierCiphertext, "payout_destination:"+d.ID)
	if err != nil {
		return id, err
	}
	return id, json.Unmarshal(raw, &id)
}
