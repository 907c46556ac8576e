package offramps

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ports"
)

// errQuoteExpired answers a select or confirm on an expired quote; the payment has already
// gone back through POLICY_CHECK to a fresh set (committed) when this is returned.
func errQuoteExpired(p offramp.Payment) error {
	return core.E(offramp.CodeQuoteExpired, "the route quote expired; a fresh quote set was produced (GET /v1/offramp/payments/%s/routes)", p.ID).
		WithDetails(map[string]any{"paymentId": p.ID, "status": string(p.Status)})
}

// requoteExpired takes an awaiting payment whose quote expired back to POLICY_CHECK and on to
// a fresh quote set (or a hold or rejection, per the composer).
func (s *Service) requoteExpired(ctx context.Context, tx txView, now time.Time, p *offramp.Payment) error {
	if _, err := p.Apply(offramp.Step{Trigger: offramp.TrigQuoteExpiry, Guard: offramp.GuardQuoteExpired}, now); err != nil {
		return err
	}
	if err := tx.Offramp().SupersedeQuotes(ctx, p.SenderTenantID, p.ID, offramp.QuoteExpired); err != nil {
		return err
	}
	if err := s.RunPolicyCheck(ctx, tx, now, p); err != nil {
		return err
	}
	return savePayment(ctx, tx, *p)
}

// recipientQuote loads a payment for the recipient's select or confirm and checks quoteID is
// usable. expired reports that the payment was requoted (the caller commits, then answers
// QUOTE_EXPIRED).
func (s *Service) recipientQuote(ctx context.Context, tx txView, pr auth.Principal, id, quoteID string, now time.Time) (offramp.Payment, offramp.Quote, bool, error) {
	pay, err := findForParty(ctx, tx, pr, id, true)
	if err != nil {
		return pay, offramp.Quote{}, false, err
	}
	if pay.RecipientTenantID != pr.TenantID {
		return pay, offramp.Quote{}, false, core.E(offramp.CodeRecipientConsentRequired, "only the recipient may select a route and confirm this payment")
	}
	if pay.Status != offramp.StatusAwaitingRecipientConfirmation {
		return pay, offramp.Quote{}, false, core.E(core.CodeInvalidState, "the payment is %s, not AWAITING_RECIPIENT_CONFIRMATION", pay.Status)
	}
	if quoteID == "" {
		return pay, offramp.Quote{}, false, core.E(offramp.CodeRouteNotSelected, "select a route (POST /v1/offramp/payments/%s/select-route) before confirming", pay.ID)
	}
	q, err := tx.Offramp().FindQuote(ctx, pay.SenderTenantID, pay.ID, quoteID)
	if err != nil {
		return pay, q, false, err
	}
	// A quote of an earlier set (superseded, or expired and already requoted) leaves the
	// current set alone: only an ACTIVE quote past its time sends the payment back to requote.
	if q.Status != offramp.QuoteActive {
		return pay, q, false, core.E(offramp.CodeQuoteExpired, "the route quote is %s: a newer set replaced it (GET /v1/offramp/payments/%s/routes)", q.Status, pay.ID).
			WithDetails(map[string]any{"paymentId": pay.ID, "status": string(pay.Status)})
	}
	if !q.Usable(now) {
		return pay, q, true, s.requoteExpired(ctx, tx, now, &pay)
	}
	return pay, q, false, nil
}

// SelectPayoutRoute records the recipient's choice of a quote of the active set.
func (s *Service) SelectPayoutRoute(ctx context.Context, pr auth.Principal, id, quoteID string) (offramp.Payment, error) {
	if err := kernel.RequireTenantScope(pr, auth.ScopeRampsWrite); err != nil {
		return offramp.Payment{}, err
	}
	if quoteID == "" {
		return offramp.Payment{}, core.Invalid("routeQuoteId", "is required")
	}
	now := s.clock.Now()
	var out offramp.Payment
	var expired bool
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		pay, _, exp, err := s.recipientQuote(ctx, tx, pr, id, quoteID, now)
		out, expired = pay, exp
		if err != nil || exp {
			return err
		}
		pay.SelectedQuoteID, pay.UpdatedAt = quoteID, now
		out = pay
		return savePayment(ctx, tx, pay)
	})
	if err == nil && expired {
		err = errQuoteExpired(out)
	}
	return out, err
}

// ConfirmPayment is the recipient's consent: the reservation is posted into the
// payment's locked account (FUNDS_LOCKED) and the provider submission is enqueued in the same
// unit of work. Two racing confirms serialize on the row lock; the second finds FUNDS_LOCKED.
func (s *Service) ConfirmPayment(ctx context.Context, pr auth.Principal, id string) (offramp.Payment, error) {
	if err := kernel.RequireTenantScope(pr, auth.ScopeRampsWrite); err != nil {
		return offramp.Payment{}, err
	}
	now := s.clock.Now()
	var out offramp.Payment
	var expired bool
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		pay, err := findForParty(ctx, tx, pr, id, true)
		if err != nil {
			return err
		}
		pay, q, exp, err := s.recipientQuote(ctx, tx, pr, id, pay.SelectedQuoteID, now)
		out, expired = pay, exp
		if err != nil || exp {
			return err
		}
		fromClaim := pay.ClaimFunded()
		if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigRecipientConfirm, Guard: offramp.GuardQuoteValid}, now); err != nil {
			return err
		}
		lock := func() error { return lockReservation(ctx, tx, now, &pay) }
		if fromClaim {
			// A redeemed claim's money leaves the claim's escrow account; the composer's
			// decision hash goes on chain with the escrow's release.
			lock = func() error {
				return s.claimSettled.RaiseHeard(ctx, offramp.ClaimSettled{Payment: &pay, At: now})
			}
		}
		if err := lock(); err != nil {
			return err
		}
		pay.Attempt++
		pay.Provider, pay.ProviderReference = q.Provider, ""
		pay.RequoteReason = "" // the recipient consented again: the earlier requote is answered
		if err := savePayment(ctx, tx, pay); err != nil {
			return err
		}
		out = pay
		return s.jobs.Enqueue(ctx, SubmitPayoutArgs{PaymentID: pay.ID}, ports.JobOptions{MaxAttempts: offrampJobMaxAttempts})
	})
	if err == nil && expired {
		err = errQuoteExpired(out)
	}
	return out, err
}
