package wiring

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/app/offramps"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

// safePayScreening is Safe payments' ScreeningGate over the screening port the off-ramp
// composer uses: any reason it finds refuses the proposal (a Safe payment has no hold state to
// wait in), and a screening failure fails closed.
type safePayScreening struct{ screening ports.Screening }

// ScreenSafePayment implements safepay.ScreeningGate.
func (g safePayScreening) ScreenSafePayment(ctx context.Context, p auth.Principal, pay safepay.Payment) (*core.Error, error) {
	if g.screening == nil {
		return nil, core.E(core.CodeProviderUnavailable, "no screening provider is configured for %s in this deployment", p.Environment)
	}
	in := ports.ScreeningInput{Environment: pay.Environment, PaymentID: pay.ID,
		SenderTenantID: pay.TenantID, AmountBaseUnits: pay.AmountBaseUnits, DestinationAddress: pay.DestinationAddress}
	// Screening leaves the process, so it runs outside the proposal's unit of work (docs/decisions/reliability.md).
	reasons, err := kernel.OutsideRead(ctx, offramps.ScreeningKey(in), func(ctx context.Context) ([]offramp.HoldReason, error) {
		return g.screening.Screen(ctx, in)
	})
	if kernel.IsOutsideReadRequest(err) {
		return nil, err
	}
	if err != nil {
		return nil, core.E(core.CodeProviderUnavailable, "destination screening is unavailable; nothing was proposed")
	}
	if len(reasons) == 0 {
		return nil, nil
	}
	names := make([]string, len(reasons))
	for i, r := range reasons {
		names[i] = string(r)
	}
	return core.E(safepay.CodeScreeningRejected, "screening of the destination refused this payment; nothing was proposed").
		WithDetails(map[string]any{"reasons": names}), nil
}
