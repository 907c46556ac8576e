package payout

import (
	"context"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ports"
)

// SandboxScreening is the sandbox Screening adapter. Its triggers are the last two digits of
// the amount in base units: 91 → TRANSACTION_MONITORING_REVIEW (HOLD), 92 →
// SANCTIONS_REVIEW_REQUIRED (REJECT); anything else is clear.
type SandboxScreening struct{}

var _ ports.Screening = SandboxScreening{}

// Screen applies the documented triggers.
func (SandboxScreening) Screen(_ context.Context, in ports.ScreeningInput) ([]offramp.HoldReason, error) {
	switch in.AmountBaseUnits % 100 {
	case 91:
		return []offramp.HoldReason{offramp.HoldTransactionMonitoringReview}, nil
	case 92:
		return []offramp.HoldReason{offramp.RejectSanctionsReviewRequired}, nil
	}
	return nil, nil
}

// ScreeningByEnvironment picks the screening adapter of the payment's environment. An
// environment without one fails closed: Screen answers PROVIDER_UNAVAILABLE, and the composer
// holds the payment rather than letting it through unscreened. Wiring gives TEST the sandbox
// adapter and LIVE only a configured vendor adapter, never the sandbox one, whose triggers any
// partner can read in the documentation.
type ScreeningByEnvironment map[core.Environment]ports.Screening

var _ ports.Screening = ScreeningByEnvironment{}

// Screen delegates to the environment's adapter, or refuses.
func (s ScreeningByEnvironment) Screen(ctx context.Context, in ports.ScreeningInput) ([]offramp.HoldReason, error) {
	adapter := s[in.Environment]
	if adapter == nil {
		return nil, core.E(core.CodeProviderUnavailable, "no screening provider is configured for %s in this deployment", in.Environment)
	}
	return adapter.Screen(ctx, in)
}
