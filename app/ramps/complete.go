package ramps

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/ramp"
)

const (
	// onRampSettleSteps bounds how many times the create response looks at an on-ramp's
	// credit (at most onRampSettlePollMax apart, so about 20 s). The sandbox chain mines at
	// once; past the bound the response says SUBMITTED and the credit's job finishes it. A count,
	// not a clock, so a frozen test clock cannot make the wait endless.
	onRampSettleSteps = 80
	// onRampSettlePollMax caps one wait between two looks at the credit.
	onRampSettlePollMax = 250 * time.Millisecond
	// lateReadTimeout bounds the read that answers after the caller's deadline passed.
	lateReadTimeout = 5 * time.Second
)

// CompleteOnRamp makes an on-ramp complete immediately, as the ramps surface promises: called
// once CreateRamp's unit of work has committed (never inside one: it waits for the chain), it
// runs the credit's steps itself until the mint is mined (CONFIRMED with its txHash) or failed,
// then answers the ramp as it stands. A node error or a slow chain is not the caller's error:
// the ramp exists, its job keeps going, and the answer is the ramp as it stands (SUBMITTED).
// An off-ramp is answered unchanged: it waits for the owners' signatures.
func (s *Service) CompleteOnRamp(ctx context.Context, p auth.Principal, id string) (View, error) {
	v, err := s.GetRamp(ctx, p, id)
	if err != nil || v.Ramp.Direction != ramp.DirectionOn || v.Status != ramp.StatusSubmitted {
		return v, err
	}
	for step := 1; ; step++ {
		snooze, err := s.credits.RunDrip(ctx, v.Ramp.TenantID, v.Ramp.DripID)
		if err != nil || snooze == 0 || step == onRampSettleSteps {
			break
		}
		timer := time.NewTimer(min(snooze, onRampSettlePollMax))
		select {
		case <-ctx.Done():
			timer.Stop()
			// The caller's deadline passed: answer with the ramp as it stands, read under a
			// short deadline of its own.
			readCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lateReadTimeout)
			defer cancel()
			return s.GetRamp(readCtx, p, id)
		case <-timer.C:
		}
	}
	return s.GetRamp(ctx, p, id)
}
