// Package offramp is the domain of phone-addressed off-ramp payments: the state machine of
// docs/api.md's off-ramp table as data, hold reasons and their verdicts, and route quotes.
package offramp

import (
	"fmt"

	"github.com/corridorhq/corridor/core"
)

// Status is an off-ramp payment's status (docs/api.md, States and transitions).
type Status string

const (
	StatusCreated                       Status = "CREATED"
	StatusRecipientResolution           Status = "RECIPIENT_RESOLUTION"
	StatusPendingClaim                  Status = "PENDING_CLAIM"
	StatusSourceFundsConfirmed          Status = "SOURCE_FUNDS_CONFIRMED"
	StatusPolicyCheck                   Status = "POLICY_CHECK"
	StatusRouteQuoted                   Status = "ROUTE_QUOTED"
	StatusAwaitingRecipientConfirmation Status = "AWAITING_RECIPIENT_CONFIRMATION"
	StatusPayoutSelectionRequired       Status = "PAYOUT_SELECTION_REQUIRED"
	StatusComplianceHold                Status = "COMPLIANCE_HOLD"
	StatusFundsLocked                   Status = "FUNDS_LOCKED"
	StatusProviderSubmitted             Status = "PROVIDER_SUBMITTED"
	StatusProviderProcessing            Status = "PROVIDER_PROCESSING"
	StatusActionRequired                Status = "ACTION_REQUIRED"
	StatusDelivered                     Status = "DELIVERED"
	StatusFailed                        Status = "FAILED"
	StatusRefundPending                 Status = "REFUND_PENDING"
	StatusRefunded                      Status = "REFUNDED"
	StatusCanceled                      Status = "CANCELED"
)

// Statuses lists every status in the order of the specification's table, for reports that
// show each one (a metric's series exists before its first payment).
func Statuses() []Status {
	return []Status{StatusCreated, StatusRecipientResolution, StatusPendingClaim, StatusSourceFundsConfirmed,
		StatusPolicyCheck, StatusRouteQuoted, StatusAwaitingRecipientConfirmation, StatusPayoutSelectionRequired,
		StatusComplianceHold, StatusFundsLocked, StatusProviderSubmitted, StatusProviderProcessing, StatusActionRequired,
		StatusDelivered, StatusFailed, StatusRefundPending, StatusRefunded, StatusCanceled}
}

// Trigger is what happened to a payment.
type Trigger string

const (
	TrigIntake            Trigger = "intake"
	TrigResolution        Trigger = "resolution"
	TrigPolicyVerdict     Trigger = "policy verdict"
	TrigPolicyHold        Trigger = "policy hold"
	TrigPolicyReject      Trigger = "policy reject"
	TrigFollows           Trigger = "follows"
	TrigRecipientConfirm  Trigger = "recipient confirm"
	TrigQuoteExpiry       Trigger = "quote expiry"
	TrigHoldCleared       Trigger = "hold cleared or review approved"
	TrigClaimRedeemed     Trigger = "claim redeemed"
	TrigClaimExpires      Trigger = "claim expires"
	TrigProviderAccepts   Trigger = "provider accepts"
	TrigProviderProgress  Trigger = "provider progress"
	TrigProviderSuccess   Trigger = "provider terminal success"
	TrigProviderAttention Trigger = "provider reports unclaimed, held or blocked"
	TrigProviderFailure   Trigger = "provider failure"
	TrigRefundPath        Trigger = "refund path"
	TrigRefundSettled     Trigger = "refund settled"
	TrigSenderCancel      Trigger = "sender cancel"
	TrigRecheckFailed     Trigger = "pre-submission re-check failed"
	// TrigProviderUnresponsive: the service stopped polling a provider that never gave a final
	// answer within the poll window (or whose polls kept failing until the job's last attempt).
	TrigProviderUnresponsive Trigger = "provider polls exhausted"
	// TrigProviderResumed: a provider report (webhook or poll) arrives for a payment waiting in
	// ACTION_REQUIRED, other than a failure.
	TrigProviderResumed Trigger = "provider reports again"
)

// Guard distinguishes rows with the same (from, trigger).
type Guard string

const (
	GuardNone            Guard = ""
	GuardPhoneUnknown    Guard = "phone unknown"
	GuardPhoneKnown      Guard = "phone known"
	GuardQuotesAvailable Guard = "quotes available"
	GuardNoDestination   Guard = "recipient onboarded, no usable destination"
	GuardOtherHolds      Guard = "other hold reasons"
	GuardUnfunded        Guard = "unfunded"
	GuardFunded          Guard = "funded"
	GuardQuoteValid      Guard = "quote not expired, selected route"
	GuardQuoteExpired    Guard = "quoteExpiresAt passed"
	GuardClaimFunded     Guard = "claim funded"
	GuardClaimUnfunded   Guard = "claim unfunded"
	GuardUnfundedPayment Guard = "unfunded payment"
	GuardProviderStage   Guard = "provider stage"
)

// Effect is what the application does along with a transition.
type Effect string

const (
	EffectNone          Effect = ""
	EffectReserve       Effect = "reserve hold on the sender's balance"
	EffectOpenClaim     Effect = "open claim, money reserved"
	EffectQuote         Effect = "create an active quote set"
	EffectVoidHold      Effect = "void the reservation"
	EffectLock          Effect = "post the reservation into the locked account"
	EffectRequote       Effect = "supersede quotes; fresh set"
	EffectUnlockRequote Effect = "unlock funds, new reservation, fresh set"
	EffectToClearing    Effect = "move locked funds to the provider's clearing account"
	EffectDeliver       Effect = "move clearing to the recipient side and fees"
	EffectRefund        Effect = "move the funds back to the sender"
)

// Row is one transition of the table.
type Row struct {
	From    Status
	Trigger Trigger
	Guard   Guard
	To      Status
	Effect  Effect
}

// providerStages are the statuses of a payout attempt in flight.
var providerStages = []Status{StatusFundsLocked, StatusProviderSubmitted, StatusProviderProcessing, StatusActionRequired}

// claimStuckStatuses are where a redeemed claim's payment can wait with its money still in the
// claim's escrow.
var claimStuckStatuses = []Status{StatusPayoutSelectionRequired, StatusComplianceHold, StatusAwaitingRecipientConfirmation}

// unfundedStatuses are the statuses in which only a reservation exists (docs/decisions/ledger.md); the sender may
// cancel in any of them.
var unfundedStatuses = []Status{StatusCreated, StatusRecipientResolution, StatusSourceFundsConfirmed,
	StatusPolicyCheck, StatusRouteQuoted, StatusAwaitingRecipientConfirmation, StatusPayoutSelectionRequired,
	StatusComplianceHold}

// Table is docs/api.md's off-ramp transition table, row by row, with the rows docs/api.md implies
// written out (FAILED's refund path in two steps, the pre-submission re-check of docs/api.md's
// rules, the sender's cancel from each unfunded status, provider failure from each stage).
var Table = buildTable()

func buildTable() []Row {
	rows := []Row{
		{StatusCreated, TrigIntake, GuardNone, StatusRecipientResolution, EffectNone},
		{StatusRecipientResolution, TrigResolution, GuardPhoneUnknown, StatusPendingClaim, EffectOpenClaim},
		{StatusRecipientResolution, TrigResolution, GuardPhoneKnown, StatusSourceFundsConfirmed, EffectReserve},
		{StatusSourceFundsConfirmed, TrigIntake, GuardNone, StatusPolicyCheck, EffectNone},
		{StatusPolicyCheck, TrigPolicyVerdict, GuardQuotesAvailable, StatusRouteQuoted, EffectQuote},
		{StatusRouteQuoted, TrigFollows, GuardNone, StatusAwaitingRecipientConfirmation, EffectNone},
		{StatusPolicyCheck, TrigPolicyHold, GuardNoDestination, StatusPayoutSelectionRequired, EffectNone},
		{StatusPolicyCheck, TrigPolicyHold, GuardOtherHolds, StatusComplianceHold, EffectNone},
		{StatusPolicyCheck, TrigPolicyReject, GuardUnfunded, StatusCanceled, EffectVoidHold},
		{StatusPolicyCheck, TrigPolicyReject, GuardFunded, StatusRefundPending, EffectRefund},
		{StatusAwaitingRecipientConfirmation, TrigRecipientConfirm, GuardQuoteValid, StatusFundsLocked, EffectLock},
		{StatusAwaitingRecipientConfirmation, TrigQuoteExpiry, GuardQuoteExpired, StatusPolicyCheck, EffectRequote},
		{StatusPayoutSelectionRequired, TrigHoldCleared, GuardNone, StatusPolicyCheck, EffectNone},
		{StatusComplianceHold, TrigHoldCleared, GuardNone, StatusPolicyCheck, EffectNone},
		{StatusPendingClaim, TrigClaimRedeemed, GuardNone, StatusPolicyCheck, EffectNone},
		{StatusPendingClaim, TrigClaimExpires, GuardClaimFunded, StatusRefundPending, EffectRefund},
		{StatusPendingClaim, TrigClaimExpires, GuardClaimUnfunded, StatusCanceled, EffectVoidHold},
		// Not in docs/api.md's table, implied by docs/decisions/ledger.md: a pending claim only reserved (its escrow
		// funding not indexed) is canceled by its sender like any reserved payment.
		{StatusPendingClaim, TrigSenderCancel, GuardClaimUnfunded, StatusCanceled, EffectVoidHold},
		{StatusFundsLocked, TrigProviderAccepts, GuardNone, StatusProviderSubmitted, EffectToClearing},
		{StatusFundsLocked, TrigRecheckFailed, GuardNone, StatusPolicyCheck, EffectUnlockRequote},
		{StatusProviderSubmitted, TrigProviderProgress, GuardNone, StatusProviderProcessing, EffectNone},
		{StatusProviderProcessing, TrigProviderSuccess, GuardNone, StatusDelivered, EffectDeliver},
		{StatusProviderSubmitted, TrigProviderAttention, GuardNone, StatusActionRequired, EffectNone},
		{StatusProviderProcessing, TrigProviderAttention, GuardNone, StatusActionRequired, EffectNone},
		// Not in docs/api.md (its ACTION_REQUIRED exits are "not shown"): a payout whose polls are
		// exhausted waits visibly in ACTION_REQUIRED (hold PROVIDER_UNRESPONSIVE), and a later
		// pending or successful report from the provider takes it back to PROVIDER_PROCESSING,
		// from where success delivers as usual. Failure leaves it by the provider-failure row.
		{StatusProviderSubmitted, TrigProviderUnresponsive, GuardNone, StatusActionRequired, EffectNone},
		{StatusProviderProcessing, TrigProviderUnresponsive, GuardNone, StatusActionRequired, EffectNone},
		{StatusActionRequired, TrigProviderResumed, GuardNone, StatusProviderProcessing, EffectNone},
		{StatusFailed, TrigRefundPath, GuardNone, StatusRefundPending, EffectNone},
		{StatusRefundPending, TrigRefundSettled, GuardNone, StatusRefunded, EffectRefund},
	}
	for _, s := range providerStages {
		rows = append(rows, Row{s, TrigProviderFailure, GuardProviderStage, StatusFailed, EffectNone})
	}
	// A redeemed claim whose payment never locked its funds (held, or never confirmed) is
	// refunded once the claim's expiry and grace period have passed: the escrow-funded payment
	// leaves through REFUND_PENDING, as every funded payment does (docs/api.md: funds win over
	// expiry, then a stuck lock becomes refundable).
	for _, s := range claimStuckStatuses {
		rows = append(rows, Row{s, TrigClaimExpires, GuardClaimFunded, StatusRefundPending, EffectRefund})
	}
	for _, s := range unfundedStatuses {
		rows = append(rows, Row{s, TrigSenderCancel, GuardUnfundedPayment, StatusCanceled, EffectVoidHold})
	}
	return rows
}

// Step is a requested transition: the trigger and the guard the caller evaluated.
type Step struct {
	Trigger Trigger
	Guard   Guard
}

// Next returns the row for (from, trigger, guard), or INVALID_STATE when the table has none.
// It is the only way a payment's status changes.
func Next(from Status, s Step) (Row, error) {
	for _, r := range Table {
		if r.From == from && r.Trigger == s.Trigger && r.Guard == s.Guard {
			return r, nil
		}
	}
	return Row{}, core.E(core.CodeInvalidState, "an off-ramp payment in %s cannot take %q", from, describe(s))
}

func describe(s Step) string {
	if s.Guard == GuardNone {
		return string(s.Trigger)
	}
	return fmt.Sprintf("%s (%s)", s.Trigger, s.Guard)
}

// Terminal reports the absorbing statuses: DELIVERED never reverts; REFUNDED and CANCELED end
// the payment.
func (s Status) Terminal() bool {
	return s == StatusDelivered || s == StatusRefunded || s == StatusCanceled
}

// Funded reports whether money has moved into a service-held account (docs/decisions/ledger.md).
func (s Status) Funded() bool {
	switch s {
	case StatusFundsLocked, StatusProviderSubmitted, StatusProviderProcessing, StatusActionRequired,
		StatusDelivered, StatusFailed, StatusRefundPending, StatusRefunded:
		return true
	}
	return false
}

// Cancelable reports whether the sender's cancel is accepted: only while unfunded.
func (s Status) Cancelable() bool {
	for _, u := range unfundedStatuses {
		if u == s {
			return true
		}
	}
	return false
}

// Valid reports whether s is a known status.
func (s Status) Valid() bool {
	for _, r := range Table {
		if r.From == s || r.To == s {
			return true
		}
	}
	return false
}
