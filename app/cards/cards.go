package cards

import (
	"context"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/ports"
)

// cardholderSandboxMessage refuses LIVE callers: cardholders exist for card issuance, which is
// sandbox only, and LIVE reports the cards feature false.
const cardholderSandboxMessage = "cardholders are sandbox only: card issuance is sandbox only; use a TEST key"

// CreateCardholder records a cardholder {name, email}.
func (s *Service) CreateCardholder(ctx context.Context, p auth.Principal, name, email string) (card.Cardholder, error) {
	if err := kernel.RequireSandboxScope(p, cardholderSandboxMessage, auth.ScopeCardsIssue); err != nil {
		return card.Cardholder{}, err
	}
	errs := core.FieldErrors{}
	name, email = strings.TrimSpace(name), strings.TrimSpace(email)
	switch {
	case name == "":
		errs.Add("name", "is required")
	case utf8.RuneCountInString(name) > maxCardholderLen:
		errs.Add("name", "must be at most 200 characters")
	case core.TextProblem(name) != "":
		errs.Add("name", core.TextProblem(name))
	}
	if addr, err := mail.ParseAddress(email); err != nil || addr.Address != email || len(email) > 254 {
		errs.Add("email", "must be an email address such as ana@example.com")
	}
	if err := errs.Err(); err != nil {
		return card.Cardholder{}, err
	}
	h := card.Cardholder{ID: core.NewID(core.PrefixCardholder), TenantID: p.TenantID, Environment: p.Environment,
		Name: name, Email: strings.ToLower(email), CreatedAt: s.now()}
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return tx.Cards().CreateCardholder(ctx, h) })
	return h, err
}

// ListCardholders lists the caller's cardholders, newest first.
func (s *Service) ListCardholders(ctx context.Context, p auth.Principal, page ports.Page) ([]card.Cardholder, int, error) {
	if err := kernel.RequireSandboxScope(p, cardholderSandboxMessage, auth.ScopeCardsRead); err != nil {
		return nil, 0, err
	}
	var out []card.Cardholder
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, total, err = tx.Cards().ListCardholders(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// GetCard returns one of the caller's cards (another tenant's is CARD_NOT_FOUND).
func (s *Service) GetCard(ctx context.Context, p auth.Principal, id string) (card.Card, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeCardsRead); err != nil {
		return card.Card{}, err
	}
	var c card.Card
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		c, err = tx.Cards().FindCard(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		return err
	})
	return c, err
}

// ListCards lists the caller's cards, newest first.
func (s *Service) ListCards(ctx context.Context, p auth.Principal, page ports.Page) ([]card.Card, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeCardsRead); err != nil {
		return nil, 0, err
	}
	var out []card.Card
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, total, err = tx.Cards().ListCards(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// UpdateLimits applies a PUT limits body: only sent fields change (card.Limits.Apply). A bad
// body changes nothing.
func (s *Service) UpdateLimits(ctx context.Context, p auth.Principal, id string, patch card.LimitsPatch) (card.Card, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeCardsManage); err != nil {
		return card.Card{}, err
	}
	if _, err := (card.Limits{}).Apply(patch); err != nil {
		return card.Card{}, err // validate before looking the card up
	}
	var c card.Card
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		if c, err = tx.Cards().LockCard(ctx, p.TenantID, p.Environment, strings.TrimSpace(id)); err != nil {
			return err
		}
		if c.Limits, err = c.Limits.Apply(patch); err != nil {
			return err
		}
		c.UpdatedAt = s.now()
		if err := tx.Cards().UpdateCard(ctx, c); err != nil {
			return err
		}
		return recordCardEvent(ctx, tx, c, cardLimits)
	})
	return c, err
}

// SetFrozen freezes (frozen true) or unfreezes a card here, and tells the issuer after commit
// through an outbox job (IssuerStatusArgs). The service's record is what authorizations are
// decided on, so the response's status holds from the moment it is answered. Both are
// reversible and idempotent.
func (s *Service) SetFrozen(ctx context.Context, p auth.Principal, id string, frozen bool) (card.Card, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeCardsManage); err != nil {
		return card.Card{}, err
	}
	var c card.Card
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		if c, err = tx.Cards().LockCard(ctx, p.TenantID, p.Environment, strings.TrimSpace(id)); err != nil {
			return err
		}
		next := c.Unfreeze(s.now())
		if frozen {
			next = c.Freeze(s.now())
		}
		if next.Status == c.Status {
			return nil
		}
		c = next
		if err := tx.Cards().UpdateCard(ctx, c); err != nil {
			return err
		}
		if err := s.enqueueIssuerStatus(ctx, c); err != nil {
			return err
		}
		what := cardUnfrozen
		if frozen {
			what = cardFrozen
		}
		return recordCardEvent(ctx, tx, c, what)
	})
	return c, err
}

// EphemeralKeyInput is the body of POST /v1/cards/{id}/ephemeral-keys.
type EphemeralKeyInput struct {
	Platform       string
	Nonce          string
	NonceSignature string
	Certificates   []string
}

// CreateEphemeralKey mints a push-provisioning key for one of the caller's cards. The
// funding-account issuing provider offers none: 400 EPHEMERAL_KEYS_NOT_SUPPORTED.
func (s *Service) CreateEphemeralKey(ctx context.Context, p auth.Principal, id string, in EphemeralKeyInput) (card.Card, ports.EphemeralKey, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeCardsManage); err != nil {
		return card.Card{}, ports.EphemeralKey{}, err
	}
	if s.provider == ports.IssuingFundingAccount {
		return card.Card{}, ports.EphemeralKey{}, core.E(card.CodeEphemeralKeysUnsupported,
			"push provisioning is not offered by the funding_account issuing provider")
	}
	if in.Platform != "vendor_a" && in.Platform != "vendor_b" {
		return card.Card{}, ports.EphemeralKey{}, core.Invalid("platform", "must be vendor_a or vendor_b")
	}
	c, err := s.GetCard(ctx, p, id)
	if err != nil {
		return card.Card{}, ports.EphemeralKey{}, err
	}
	key, err := s.issuer.CreateEphemeralKey(ctx, ports.EphemeralKeyInput{IssuerCardID: c.IssuerCardID, Platform: in.Platform,
		Nonce: in.Nonce, NonceSignature: in.NonceSignature, Certificates: in.Certificates})
	return c, key, err
}

// ListAuthorizations lists one card's authorizations, newest first.
func (s *Service) ListAuthorizations(ctx context.Context, p auth.Principal, cardID string, page ports.Page) ([]card.Authorization, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeCardsRead); err != nil {
		return nil, 0, err
	}
	var out []card.Authorization
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		c, err := tx.Cards().FindCard(ctx, p.TenantID, p.Environment, strings.TrimSpace(cardID))
		if err != nil {
			return err
		}
		out, total, err = tx.Cards().ListAuthorizations(ctx, c.TenantID, c.ID, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}
