package offramps

import (
	"context"
	"fmt"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

// composition is the policy composer's answer for one payment.
type composition struct {
	decision     offramp.Decision
	payoutRoutes []offramp.PayoutRoute
}

// compose evaluates every hold reason of docs/api.md this build can observe: the recipient's
// credential, screening (failing closed on error), the spend policy of the sender's service
// balance (POLICY_DENIED, per POLICY_ENFORCEMENT), destinations and their providers'
// availability and liquidity. The spend policy is decided by the spend guard: decided holds
// the reasons its Decide answered at intake (the policy is not evaluated again); nil decides
// again (redecide), as a held or re-quoted payment's re-evaluation does.
func (s *Service) compose(ctx context.Context, tx txView, p offramp.Payment, decided []offramp.HoldReason) (composition, error) {
	reasons := []offramp.HoldReason{}
	cred, ok, err := tx.Recipients().FindCredential(ctx, p.RecipientTenantID, p.Environment)
	if err != nil {
		return composition{}, err
	}
	switch {
	case !ok:
		reasons = append(reasons, offramp.HoldRecipientNotOnboarded)
	case cred.Status == recipient.CredentialExpired:
		reasons = append(reasons, offramp.HoldCredentialExpired)
	case cred.Status == recipient.CredentialRevoked:
		reasons = append(reasons, offramp.HoldCredentialRevoked)
	case cred.Status == recipient.CredentialSuspended:
		reasons = append(reasons, offramp.HoldCredentialSuspended)
	}
	if s.screening == nil {
		reasons = append(reasons, offramp.HoldPolicySubsystemError)
	} else {
		found, err := s.screen(ctx, ports.ScreeningInput{Environment: p.Environment, PaymentID: p.ID,
			SenderTenantID: p.SenderTenantID, RecipientTenantID: p.RecipientTenantID, AmountBaseUnits: p.SourceAmountBaseUnits})
		if err != nil {
			found = []offramp.HoldReason{offramp.HoldPolicySubsystemError}
		}
		reasons = append(reasons, found...)
	}
	// The phone the payment was sent to must have been proven within the re-verification
	// window: an older proof holds until the recipient re-verifies the alias.
	if p.RecipientPhoneHash != "" {
		alias, err := tx.Recipients().FindVerifiedAlias(ctx, p.Environment, p.RecipientPhoneHash)
		switch {
		case err == nil && alias.TenantID == p.RecipientTenantID && alias.VerifiedAt != nil &&
			s.clock.Now().Sub(*alias.VerifiedAt) > s.phoneReverifyAfter:
			reasons = append(reasons, offramp.HoldPhoneReverificationRequired)
		case err != nil && !core.HasCode(err, recipient.CodePhoneAliasNotFound):
			return composition{}, err
		}
	}
	// A credential change found at the pre-submission re-check holds until an operator
	// approves the review (dropApprovedReviews), whatever else changes meanwhile.
	for _, r := range p.HoldReasons {
		if r == offramp.HoldCredentialChangedReview {
			reasons = append(reasons, r)
		}
	}
	if decided == nil {
		if decided, err = s.redecide(ctx, tx, p); err != nil {
			return composition{}, err
		}
	}
	reasons = append(reasons, decided...)
	payoutRoutes, payoutRouteReason, err := s.eligiblePayoutRoutes(ctx, tx, p)
	if err != nil {
		return composition{}, err
	}
	if ok && cred.Status == recipient.CredentialActive && payoutRouteReason != "" {
		reasons = append(reasons, payoutRouteReason)
	}
	reasons, err = dropApprovedReviews(ctx, tx, p.SenderTenantID, p.ID, reasons)
	if err != nil {
		return composition{}, err
	}
	return composition{decision: offramp.Compose(reasons), payoutRoutes: payoutRoutes}, nil
}

// ScreeningKey names what a screening answer depends on: the parties, the amount and the
// destination. The payment id is left out: a new payment's id is minted inside its unit of work,
// after the verdict was prepared, and the verdict on the same parties and amount is the same.
func ScreeningKey(in ports.ScreeningInput) string {
	return fmt.Sprintf("screening:%s:%s:%s:%d:%s", in.Environment, in.SenderTenantID, in.RecipientTenantID,
		in.AmountBaseUnits, in.DestinationAddress)
}

// reviewReasons are the hold reasons an operator's review approval clears (docs/api.md: cleared by
// operator review). INSUFFICIENT_ROUTE_LIQUIDITY is an operator's liquidity action, not a review.
var reviewReasons = map[offramp.HoldReason]bool{
	offramp.HoldTransactionMonitoringReview: true,
	offramp.HoldCredentialChangedReview:     true,
}

// dropApprovedReviews removes the review reasons an operator has approved for the payment
// (docs/decisions/operations.md); every other reason the composer found stays.
func dropApprovedReviews(ctx context.Context, tx txView, senderTenantID, paymentID string, reasons []offramp.HoldReason) ([]offramp.HoldReason, error) {
	hasReview := false
	for _, r := range reasons {
		hasReview = hasReview || reviewReasons[r]
	}
	if !hasReview {
		return reasons, nil
	}
	approved, err := tx.Offramp().ApprovedReviewReasons(ctx, senderTenantID, paymentID)
	if err != nil || len(approved) == 0 {
		return reasons, err
	}
	ok := map[offramp.HoldReason]bool{}
	for _, r := range approved {
		ok[r] = true
	}
	kept := reasons[:0:0]
	for _, r := range reasons {
		if !(reviewReasons[r] && ok[r]) {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// maxDestinationsConsidered bounds one routing pass.
const maxDestinationsConsidered = 100

// eligiblePayoutRoutes lists the payout routes of the recipient's ACTIVE, routable destinations
// (only the requested one when set) whose provider may pay out, or the hold reason why there
// are none.
func (s *Service) eligiblePayoutRoutes(ctx context.Context, tx txView, p offramp.Payment) ([]offramp.PayoutRoute, offramp.HoldReason, error) {
	dests, _, err := tx.Recipients().ListDestinations(ctx, p.RecipientTenantID, p.Environment, ports.Page{Take: maxDestinationsConsidered})
	if err != nil {
		return nil, "", err
	}
	routable, withProvider, revoked := 0, 0, 0
	payoutRoutes := []offramp.PayoutRoute{}
	for _, d := range dests {
		if d.Status == recipient.DestRevoked && (p.RequestedDestinationID == "" || d.ID == p.RequestedDestinationID) {
			revoked++
		}
		if d.Status != recipient.DestActive || !d.Type.Routable() || (p.RequestedDestinationID != "" && d.ID != p.RequestedDestinationID) {
			continue
		}
		routable++
		rail, ok := s.payouts.rail(p.Environment, d.Type)
		if !ok {
			continue
		}
		network := ""
		if d.Type == recipient.DestOnchainWallet {
			id, err := s.recipients.DestinationIdentifier(d)
			if err != nil {
				return nil, "", err
			}
			if !railPays(rail, p.Environment, d, id) {
				continue // an address on another network: no provider pays it here
			}
			network = id.Network
		}
		withProvider++
		if rail.Terms.LiquidityBaseUnits > 0 {
			topUps, err := tx.Offramp().LiquidityTopUps(ctx, p.Environment, rail.Terms.Provider)
			if err != nil {
				return nil, "", err
			}
			if liquidity, err := core.AddInt64(rail.Terms.LiquidityBaseUnits, topUps); err == nil && p.SourceAmountBaseUnits > liquidity {
				continue
			}
		}
		payoutRoutes = append(payoutRoutes, offramp.PayoutRoute{DestinationID: d.ID, DestinationType: d.Type, Network: network, Terms: rail.Terms})
	}
	switch {
	case routable == 0 && revoked > 0:
		// The provider revoked a destination and none usable remains: held until the
		// recipient adds a different one (CreateDestination re-evaluates held payments).
		return nil, offramp.HoldProviderDestinationRevoked, nil
	case routable == 0:
		return nil, offramp.HoldPayoutDestinationNotSelected, nil
	case withProvider == 0:
		return nil, offramp.HoldProviderUnavailable, nil
	case len(payoutRoutes) == 0:
		return nil, offramp.HoldInsufficientRouteLiquidity, nil
	}
	return payoutRoutes, "", nil
}

// RunPolicyCheck takes a payment in POLICY_CHECK to its next status: a fresh quote set
// (superseding any earlier one) and AWAITING_RECIPIENT_CONFIRMATION, a hold, or a rejection.
func (s *Service) RunPolicyCheck(ctx context.Context, tx PaymentTx, now time.Time, p *offramp.Payment) error {
	return s.runPolicyCheck(ctx, tx, now, p, nil)
}

// redecide decides a payment's spend again in the spend guard, on behalf of its sender's
// tenant: a re-evaluation (a hold rechecked, a quote expired, a claim redeemed, a pre-submission
// re-check) may run in a job or in the recipient's request, neither of which is the sender, and
// the sender's agent confinement was decided at intake. The policy is evaluated again because
// what it decides on (the windows' spend, the policy itself, a policy outage) may have changed.
func (s *Service) redecide(ctx context.Context, tx txView, p offramp.Payment) ([]offramp.HoldReason, error) {
	sender := kernel.System(p.SenderTenantID, p.Environment, auth.ScopeRampsWrite)
	return s.decideSpend(ctx, tx, sender, p, true)
}

// runPolicyCheck is RunPolicyCheck with the spend policy's reasons already decided (nil: decide).
func (s *Service) runPolicyCheck(ctx context.Context, tx txView, now time.Time, p *offramp.Payment, decided []offramp.HoldReason) error {
	c, err := s.compose(ctx, tx, *p, decided)
	if err != nil {
		return err
	}
	var quotes []offramp.Quote
	if c.decision.Verdict == offramp.VerdictAllow {
		quotes = offramp.PriceSet(offramp.QuoteInput{PaymentID: p.ID, SetVersion: p.QuoteSetVersion + 1,
			SourceAmountBaseUnits: p.SourceAmountBaseUnits, SourceAssetID: p.SourceAssetID, SourceChainKey: p.SourceChainKey,
			Speed: p.SpeedPreference, Now: now, Lifetime: s.quoteLifetime}, c.payoutRoutes)
		if len(quotes) == 0 {
			c.decision = offramp.Compose([]offramp.HoldReason{offramp.HoldPayoutDestinationNotSelected})
		}
	}
	fromClaim := p.ClaimFunded()
	row, err := p.Apply(c.decision.Step(p.Funded()), now)
	if err != nil {
		return err
	}
	p.HoldReasons, p.SelectedQuoteID = c.decision.Reasons, ""
	if err := tx.Offramp().SupersedeQuotes(ctx, p.SenderTenantID, p.ID, offramp.QuoteSuperseded); err != nil {
		return err
	}
	switch row.Effect {
	case offramp.EffectQuote:
		p.QuoteSetVersion++
		if err := tx.Offramp().InsertQuotes(ctx, p.SenderTenantID, quotes); err != nil {
			return err
		}
		_, err = p.Apply(offramp.Step{Trigger: offramp.TrigFollows}, now)
		return err
	case offramp.EffectVoidHold:
		p.FailureReason = string(c.decision.Reasons[0])
		return s.VoidReservation(ctx, tx.Ledger(), now, p)
	case offramp.EffectRefund:
		p.FailureReason = string(c.decision.Reasons[0])
		refund := func() error { return refund(ctx, tx, now, p, lockedSpec(*p)) }
		if fromClaim {
			refund = func() error {
				return s.claimSettled.RaiseHeard(ctx, offramp.ClaimSettled{Payment: p, Rejected: true, At: now})
			}
		}
		if err := refund(); err != nil {
			return err
		}
		_, err = p.Apply(offramp.Step{Trigger: offramp.TrigRefundSettled}, now)
		return err
	}
	return nil
}

// ReevaluateHeld re-runs the composer for a recipient's held payments after something they
// control changed (a credential, a destination, an alias): holds clear when their condition
// does. Holds only an operator clears stay held, because the composer finds them again.
func (s *Service) ReevaluateHeld(ctx context.Context, tx txView, env core.Environment, recipientTenantID string) error {
	ids, err := tx.Offramp().HeldPaymentIDs(ctx, env, recipientTenantID, maxDestinationsConsidered)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	for _, id := range ids {
		p, err := tx.Offramp().LockPayment(ctx, id)
		if err != nil {
			return err
		}
		if p.Status != offramp.StatusPayoutSelectionRequired && p.Status != offramp.StatusComplianceHold {
			continue
		}
		if _, err := p.Apply(offramp.Step{Trigger: offramp.TrigHoldCleared}, now); err != nil {
			return err
		}
		if err := s.RunPolicyCheck(ctx, tx, now, &p); err != nil {
			return err
		}
		if err := savePayment(ctx, tx, p); err != nil {
			return err
		}
	}
	return nil
}
