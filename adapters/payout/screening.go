package payout

import (
	"context"

	"corridor/core/offramp"
	"corridor/ports"
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
