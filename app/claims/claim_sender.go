package claims

import (
	"context"
	"strings"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/core/offramp"
)

// ClaimView is a claim as its sender sees it.
type ClaimView struct {
	Claim   claim.Claim
	Payment offramp.Payment
}

// GetClaim returns a claim the caller sent.
func (s *Service) GetClaim(ctx context.Context, p auth.Principal, id string) (ClaimView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsRead); err != nil {
		return ClaimView{}, err
	}
	var out ClaimView
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		c, err := tx.Claims().FindClaimForSender(ctx, p.Environment, p.TenantID, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		pay, err := tx.Offramp().FindPayment(ctx, p.Environment, p.TenantID, c.PaymentID)
		out = ClaimView{Claim: c, Payment: pay}
		return err
	})
	return out, err
}

// ResendClaimLink texts a fresh link (sender only, budgeted); the old link stops working.
func (s *Service) ResendClaimLink(ctx context.Context, p auth.Principal, id string) (claim.Claim, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsWrite); err != nil {
		return claim.Claim{}, err
	}
	if err := s.ready(); err != nil {
		return claim.Claim{}, err
	}
	now := s.clock.Now()
	var out claim.Claim
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		c, err := lockSenderClaim(ctx, tx, p, id)
		if err != nil {
			return err
		}
		if c.Status != claim.StatusOpen || c.RedeemedAt != nil || c.Expired(now) {
			return core.E(claim.CodeNotRedeemable, "this claim is %s and can no longer be redeemed; nothing was sent", c.Status)
		}
		if c.ResendWindowStart == nil || !now.Before(c.ResendWindowStart.Add(claim.ResendWindow)) {
			c.ResendWindowStart, c.ResendCount = &now, 0
		}
		if c.ResendCount >= s.resendsPerClaim {
			retry := c.ResendWindowStart.Add(claim.ResendWindow).Sub(now)
			return core.E(claim.CodeResendBudget, "the claim link was re-sent %d times in the last %d hours; try again later",
				s.resendsPerClaim, int(claim.ResendWindow.Hours())).
				WithDetails(map[string]any{"limit": s.resendsPerClaim, "retryAfterSeconds": int(retry.Seconds()) + 1})
		}
		c.ResendCount++
		c.UpdatedAt = now
		if err := saveClaim(ctx, tx, c); err != nil {
			return err
		}
		out = c
		return s.sendClaimLink(ctx, tx, c, now)
	})
	return out, err
}

// RequestClaimRefund is the sender's refund request: 409 CLAIM_NOT_EXPIRED before expiry;
// afterwards it expires the claim if no job has yet (funded: REFUND_PENDING and the on-chain
// refund; unfunded: the escrow id is cancelled, then CANCELED) and answers where it stands.
// Repeating it changes nothing.
func (s *Service) RequestClaimRefund(ctx context.Context, p auth.Principal, id string) (ClaimView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsWrite); err != nil {
		return ClaimView{}, err
	}
	return s.expireForSender(ctx, p, id, false)
}

// ExpireClaimNow is the sandbox helper (docs/decisions/api.md, TEST only): the claim's lifetime ends now.
func (s *Service) ExpireClaimNow(ctx context.Context, p auth.Principal, id string) (ClaimView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsWrite); err != nil {
		return ClaimView{}, err
	}
	if err := kernel.RequireSandbox(p, "sandbox helpers exist only in TEST"); err != nil {
		return ClaimView{}, err
	}
	return s.expireForSender(ctx, p, id, true)
}

func (s *Service) expireForSender(ctx context.Context, p auth.Principal, id string, force bool) (ClaimView, error) {
	now := s.clock.Now()
	var out ClaimView
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		c, err := lockSenderClaim(ctx, tx, p, id)
		if err != nil {
			return err
		}
		pay, err := tx.Offramp().LockPayment(ctx, c.PaymentID)
		if err != nil {
			return err
		}
		if force && c.Status == claim.StatusOpen && c.RedeemedAt == nil && !c.Expired(now) {
			c.ExpiresAt = now
		}
		if force && c.RedeemedAt != nil && (c.Status == claim.StatusOpen || c.Status == claim.StatusLocked) && !c.Expired(now) {
			// The recipient redeemed it: the helper does not end its lifetime early, and the
			// refusal says so rather than pointing the sender at a refund it cannot have yet.
			return core.E(claim.CodeNotExpired, "the claim was redeemed at %s: the sandbox helper does not end a redeemed claim's lifetime early (it expires at %s)",
				c.RedeemedAt.UTC().Format(time.RFC3339), c.ExpiresAt.Format(time.RFC3339)).
				WithDetails(map[string]any{"expiresAt": c.ExpiresAt.Format(time.RFC3339), "redeemedAt": c.RedeemedAt.UTC().Format(time.RFC3339)})
		}
		if (c.Status == claim.StatusOpen || c.Status == claim.StatusLocked) && !c.Expired(now) {
			return core.E(claim.CodeNotExpired, "the claim expires at %s; a refund can be requested after that",
				c.ExpiresAt.Format(time.RFC3339)).WithDetails(map[string]any{"expiresAt": c.ExpiresAt.Format(time.RFC3339)})
		}
		if err := s.expireClaim(ctx, tx, now, &c, &pay); err != nil {
			return err
		}
		out = ClaimView{Claim: c, Payment: pay}
		return nil
	})
	return out, err
}

// lockSenderClaim finds the sender's claim id (another tenant's answers not found) and locks it.
func lockSenderClaim(ctx context.Context, tx txView, p auth.Principal, id string) (claim.Claim, error) {
	found, err := tx.Claims().FindClaimForSender(ctx, p.Environment, p.TenantID, strings.TrimSpace(id))
	if err != nil {
		return claim.Claim{}, err
	}
	return tx.Claims().LockClaim(ctx, found.ID)
}
