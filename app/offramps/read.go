package offramps

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ports"
)

// GetPayment returns a payment the caller sends or receives.
func (s *Service) GetPayment(ctx context.Context, p auth.Principal, id string) (offramp.Payment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsRead); err != nil {
		return offramp.Payment{}, err
	}
	var out offramp.Payment
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, err = findForParty(ctx, tx, p, id, false)
		return err
	})
	return out, err
}

// ListPayments lists payments the caller sends or receives, newest first.
func (s *Service) ListPayments(ctx context.Context, p auth.Principal, page ports.Page) ([]offramp.Payment, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsRead); err != nil {
		return nil, 0, err
	}
	var out []offramp.Payment
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, total, err = tx.Offramp().ListPayments(ctx, ports.OfframpFilter{Environment: p.Environment, TenantID: p.TenantID}, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// PayoutRouteQuotes returns the current quote set. A quote past its expiry reads EXPIRED even
// before the expiry pass has marked it (the pass then requotes the payment).
func (s *Service) PayoutRouteQuotes(ctx context.Context, p auth.Principal, id string) ([]offramp.Quote, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsRead); err != nil {
		return nil, err
	}
	var out []offramp.Quote
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		pay, err := findForParty(ctx, tx, p, id, false)
		if err != nil {
			return err
		}
		out, err = tx.Offramp().ActiveQuotes(ctx, pay.SenderTenantID, pay.ID)
		return err
	})
	now := s.clock.Now()
	for i := range out {
		if !out[i].Usable(now) {
			out[i].Status = offramp.QuoteExpired
		}
	}
	return out, err
}
