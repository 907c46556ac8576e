package offramps

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
)

// Liquidity is a payout provider's route liquidity in one environment: the configured
// per-payout liquidity (0: uncapped) raised by operators' top-ups.
type Liquidity struct {
	Provider            string
	Environment         core.Environment
	ConfiguredBaseUnits int64
	ToppedUpBaseUnits   int64
	Added               bool // false when the reference was already recorded (a retry)
	// EffectiveBaseUnits is configured plus topped up; 0 when the provider is uncapped.
	EffectiveBaseUnits int64
}

// TopUpLiquidity is an operator's route liquidity top-up (docs/decisions/operations.md, POST
// /v1/admin/payout-providers/{provider}/liquidity). The HTTP adapter authenticates the
// operator. The top-up is recorded once per reference, so a retry adds nothing; payments held
// on INSUFFICIENT_ROUTE_LIQUIDITY lose their recheck backoff, so the next hold recheck pass
// re-runs the composer for them at once.
func (s *Service) TopUpLiquidity(ctx context.Context, operator string, env core.Environment, provider, reference string, amountBaseUnits int64) (Liquidity, error) {
	provider, reference = strings.TrimSpace(provider), strings.TrimSpace(reference)
	f := core.FieldErrors{}
	if env != core.EnvTest && env != core.EnvLive {
		f.Add("environment", "must be TEST or LIVE")
	}
	if amountBaseUnits <= 0 {
		f.Add("amountUsd", "must be positive")
	}
	if reference == "" || len(reference) > 128 {
		f.Add("reference", "is required (at most 128 characters): the operator's id of this top-up")
	}
	if err := f.Err(); err != nil {
		return Liquidity{}, err
	}
	rail, ok := s.payouts.provider(provider)
	if !ok {
		return Liquidity{}, core.E(offramp.CodeProviderNotFound, "no payout provider %q is configured", provider)
	}
	out := Liquidity{Provider: provider, Environment: env, ConfiguredBaseUnits: rail.Terms.LiquidityBaseUnits}
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		added, err := tx.Offramp().TopUpLiquidity(ctx, env, provider, reference, amountBaseUnits, operator, s.clock.Now())
		if err != nil {
			return err
		}
		out.Added = added
		if out.ToppedUpBaseUnits, err = tx.Offramp().LiquidityTopUps(ctx, env, provider); err != nil {
			return err
		}
		return tx.Offramp().ResetHoldRechecks(ctx, offramp.HoldInsufficientRouteLiquidity)
	})
	if err != nil {
		return Liquidity{}, err
	}
	if out.ConfiguredBaseUnits > 0 {
		out.EffectiveBaseUnits, _ = core.AddInt64(out.ConfiguredBaseUnits, out.ToppedUpBaseUnits)
	}
	return out, nil
}
