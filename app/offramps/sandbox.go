package offramps

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/offramp"
)

// ExpireQuotes is the sandbox helper (docs/decisions/api.md): the payment's active quote set expires now and the
// payment goes where time passing takes it (docs/api.md: AWAITING_RECIPIENT_CONFIRMATION, quote
// expiry → POLICY_CHECK, a fresh set produced), in one unit of work, exactly as the periodic
// quote-expiry pass does: a fresh set, or a hold or a rejection when the composer now says so.
// A payment with no set awaiting confirmation answers INVALID_STATE and changes nothing.
func (s *Service) ExpireQuotes(ctx context.Context, pr auth.Principal, id string) (offramp.Payment, error) {
	if err := kernel.RequireTenantScope(pr, auth.ScopeRampsWrite); err != nil {
		return offramp.Payment{}, err
	}
	if err := kernel.RequireSandbox(pr, "sandbox helpers exist only in TEST"); err != nil {
		return offramp.Payment{}, err
	}
	var out offramp.Payment
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		pay, err := findForParty(ctx, tx, pr, id, true)
		if err != nil {
			return err
		}
		if pay.Status != offramp.StatusAwaitingRecipientConfirmation {
			return core.E(core.CodeInvalidState, "the payment is %s: only a quote set awaiting the recipient's confirmation expires", pay.Status)
		}
		if err := s.requoteExpired(ctx, tx, s.clock.Now(), &pay); err != nil {
			return err
		}
		out = pay
		return nil
	})
	return out, err
}

// ProviderStep is the sandbox helper (docs/decisions/api.md) that moves a submitted payment's provider one
// step: one poll, exactly what a signed webhook triggers.
func (s *Service) ProviderStep(ctx context.Context, pr auth.Principal, id string) (offramp.Payment, error) {
	if err := kernel.RequireTenantScope(pr, auth.ScopeRampsWrite); err != nil {
		return offramp.Payment{}, err
	}
	if err := kernel.RequireSandbox(pr, "sandbox helpers exist only in TEST"); err != nil {
		return offramp.Payment{}, err
	}
	pay, err := s.GetPayment(ctx, pr, id)
	if err != nil {
		return pay, err
	}
	if pay.ProviderReference == "" {
		return pay, core.E(core.CodeInvalidState, "the payment is %s: nothing has been submitted to a provider", pay.Status)
	}
	if _, err := newPayoutJobs(s).PollPayment(ctx, pay.ID); err != nil {
		return pay, err
	}
	return s.GetPayment(ctx, pr, id)
}
