package offramp

import "sort"

// HoldReason is a machine-readable reason a payment is held or rejected (docs/api.md).
type HoldReason string

const (
	HoldRecipientNotOnboarded        HoldReason = "RECIPIENT_NOT_ONBOARDED"
	HoldPayoutDestinationNotSelected HoldReason = "PAYOUT_DESTINATION_NOT_SELECTED"
	HoldCredentialExpired            HoldReason = "CREDENTIAL_EXPIRED"
	HoldCredentialRevoked            HoldReason = "CREDENTIAL_REVOKED"
	HoldCredentialSuspended          HoldReason = "CREDENTIAL_SUSPENDED"
	HoldCredentialChangedReview      HoldReason = "CREDENTIAL_CHANGED_REVIEW_REQUIRED"
	HoldPhoneReverificationRequired  HoldReason = "PHONE_REVERIFICATION_REQUIRED"
	HoldTransactionMonitoringReview  HoldReason = "TRANSACTION_MONITORING_REVIEW"
	HoldProviderDestinationRevoked   HoldReason = "PROVIDER_DESTINATION_REVOKED"
	HoldProviderUnavailable          HoldReason = "PROVIDER_UNAVAILABLE"
	HoldInsufficientRouteLiquidity   HoldReason = "INSUFFICIENT_ROUTE_LIQUIDITY"
	HoldPolicySubsystemError         HoldReason = "POLICY_SUBSYSTEM_ERROR"
	RejectSanctionsReviewRequired    HoldReason = "SANCTIONS_REVIEW_REQUIRED"
	RejectPolicyDenied               HoldReason = "POLICY_DENIED"
)

// HoldProviderUnresponsive is set by the off-ramp's poll job, never by the policy composer: the
// payout provider gave no final answer within the poll window, so the payment waits in
// ACTION_REQUIRED until the provider reports again (cleared by the system) or an operator acts.
const HoldProviderUnresponsive HoldReason = "PROVIDER_UNRESPONSIVE"

// Verdict is what a reason does to a payment.
type Verdict string

const (
	VerdictAllow  Verdict = "ALLOW"
	VerdictHold   Verdict = "HOLD"
	VerdictReject Verdict = "REJECT"
)

// ClearedBy says who or what clears a hold (docs/api.md's hold-reason table).
type ClearedBy string

const (
	ClearedByRecipient ClearedBy = "recipient"
	ClearedByOperator  ClearedBy = "operator review"
	ClearedBySystem    ClearedBy = "system recovers"
	ClearedByNone      ClearedBy = "terminal for the attempt"
)

// ReasonRule is one row of the hold-reason table.
type ReasonRule struct {
	Verdict   Verdict
	ClearedBy ClearedBy
}

// Reasons is docs/api.md's hold-reason table as data.
var Reasons = map[HoldReason]ReasonRule{
	HoldRecipientNotOnboarded:        {VerdictHold, ClearedByRecipient},
	HoldPayoutDestinationNotSelected: {VerdictHold, ClearedByRecipient},
	HoldCredentialExpired:            {VerdictHold, ClearedByRecipient},
	HoldCredentialRevoked:            {VerdictHold, ClearedByRecipient},
	HoldCredentialSuspended:          {VerdictHold, ClearedByRecipient},
	HoldCredentialChangedReview:      {VerdictHold, ClearedByOperator},
	HoldPhoneReverificationRequired:  {VerdictHold, ClearedByRecipient},
	HoldTransactionMonitoringReview:  {VerdictHold, ClearedByOperator},
	HoldProviderDestinationRevoked:   {VerdictHold, ClearedByRecipient},
	HoldProviderUnavailable:          {VerdictHold, ClearedBySystem},
	HoldInsufficientRouteLiquidity:   {VerdictHold, ClearedByOperator},
	HoldPolicySubsystemError:         {VerdictHold, ClearedBySystem},
	RejectSanctionsReviewRequired:    {VerdictReject, ClearedByNone},
	RejectPolicyDenied:               {VerdictReject, ClearedByNone},
}

// Decision is the policy composer's verdict over every reason it found.
type Decision struct {
	Verdict Verdict
	Reasons []HoldReason // sorted, deduplicated; empty on ALLOW
}

// Compose folds reasons into one decision: any REJECT rejects, else any HOLD holds, else ALLOW.
// An unknown reason fails closed as a HOLD.
func Compose(reasons []HoldReason) Decision {
	seen := map[HoldReason]bool{}
	out := []HoldReason{}
	verdict := VerdictAllow
	for _, r := range reasons {
		if seen[r] {
			continue
		}
		seen[r] = true
		out = append(out, r)
		rule, ok := Reasons[r]
		switch {
		case ok && rule.Verdict == VerdictReject:
			verdict = VerdictReject
		case verdict != VerdictReject:
			verdict = VerdictHold
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return Decision{Verdict: verdict, Reasons: out}
}

// Step returns the transition a decision takes from POLICY_CHECK, given whether quotes exist
// and whether the payment is funded.
func (d Decision) Step(funded bool) Step {
	switch d.Verdict {
	case VerdictReject:
		if funded {
			return Step{TrigPolicyReject, GuardFunded}
		}
		return Step{TrigPolicyReject, GuardUnfunded}
	case VerdictHold:
		if len(d.Reasons) == 1 && d.Reasons[0] == HoldPayoutDestinationNotSelected {
			return Step{TrigPolicyHold, GuardNoDestination}
		}
		return Step{TrigPolicyHold, GuardOtherHolds}
	}
	return Step{TrigPolicyVerdict, GuardQuotesAvailable}
}

// RequoteReason says why the pre-submission re-check sent a payment the recipient had already
// confirmed back to quoting, so the recipient's app can tell "the price moved, consent again"
// from "your destination or policy changed" without guessing from the status alone. It is set
// when the re-check fails and cleared when the recipient confirms again.
type RequoteReason string

// Reasons the pre-submission re-check requotes a confirmed payment.
const (
	// RequoteQuoteExpired: the confirmed quote's lifetime ended before submission (rates may
	// have changed). A crash of the service itself does not cause it while the outage is
	// shorter than the quote's remaining lifetime (docs/reliability.md).
	RequoteQuoteExpired RequoteReason = "QUOTE_EXPIRED"
	// RequoteDestinationUnavailable: the destination is gone or no longer ACTIVE.
	RequoteDestinationUnavailable RequoteReason = "DESTINATION_UNAVAILABLE"
	// RequoteDestinationRevoked: the provider refused the payout because the recipient revoked
	// the destination with it.
	RequoteDestinationRevoked RequoteReason = "DESTINATION_REVOKED"
	// RequoteRailUnavailable: the quote's rail or provider is no longer offered.
	RequoteRailUnavailable RequoteReason = "RAIL_UNAVAILABLE"
	// RequoteCredentialChanged: the recipient's credential changed after the quote.
	RequoteCredentialChanged RequoteReason = "CREDENTIAL_CHANGED"
	// RequotePolicyChanged: the policy verdict is no longer ALLOW.
	RequotePolicyChanged RequoteReason = "POLICY_CHANGED"
)
