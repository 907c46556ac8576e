package safepayments

import (
	"context"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

// screened is the screening verdict a proposal prepared, outside any transaction, on the
// payment as the gates see it (its real amount and recipient). The unit of work answers it at
// the first gate, where it always sat, so the gate order does not depend on when the vendor
// was asked.
type screened struct {
	destinationAddress string
	amountBaseUnits    int64
	refused            *core.Error // DESTINATION_SCREENING_REJECTED: nothing is recorded
	failed             error       // no verdict (not configured, an outage): fails closed
}

// screen asks screening about the payment as the gates will see it. Safe payments have no
// hold state to wait in, so any reason screening finds refuses the proposal, and no answer
// (no provider configured, an outage) refuses it too: screening fails closed.
func (s *Service) screen(ctx context.Context, p auth.Principal, gated safepay.Payment) screened {
	out := screened{destinationAddress: gated.DestinationAddress, amountBaseUnits: gated.AmountBaseUnits}
	if s.screening == nil {
		out.failed = core.E(core.CodeProviderUnavailable, "no screening provider is configured for %s in this deployment", p.Environment)
		return out
	}
	reasons, err := s.screening.Screen(ctx, ports.ScreeningInput{Environment: gated.Environment, PaymentID: gated.ID,
		SenderTenantID: gated.TenantID, AmountBaseUnits: gated.AmountBaseUnits, DestinationAddress: gated.DestinationAddress})
	if err != nil {
		out.failed = core.E(core.CodeProviderUnavailable, "destination screening is unavailable; nothing was proposed").Transient(core.RetryDependency)
		return out
	}
	if len(reasons) == 0 {
		return out
	}
	names := make([]string, len(reasons))
	for i, r := range reasons {
		names[i] = string(r)
	}
	out.refused = core.E(safepay.CodeScreeningRejected, "screening of the destination refused this payment; nothing was proposed").
		WithDetails(map[string]any{"reasons": names})
	return out
}

// answer is the prepared verdict for the payment the unit of work is about to record. A
// destination that resolved elsewhere inside the unit than when it was screened (a handle
// pointed at another wallet in between) was never screened: the proposal fails closed, and
// the client sends it again.
func (v screened) answer(gated safepay.Payment) (*core.Error, error) {
	if v.destinationAddress != gated.DestinationAddress || v.amountBaseUnits != gated.AmountBaseUnits {
		return nil, core.E(core.CodeProviderUnavailable,
			"the destination changed while it was being screened; nothing was proposed, send the proposal again").Transient(core.RetryDatabase)
	}
	return v.refused, v.failed
}
