package offramp

import (
	"time"

	"github.com/corridorhq/corridor/core/recipient"
)

// The domain events a payment to a phone raises for its pending claim, inside the payment's
// unit of work: the pending-claims capability reacts in that unit, and the payments
// capability never calls it. Each carries the payment by pointer because the reaction is part
// of the step, not a notice after it: it completes the payment (its hold, its claim, its
// status) before the payment saves it, and its refusal fails the step.

// ClaimNeeded: the payment entered PENDING_CLAIM (nobody has verified the phone) and its row
// exists. The reaction opens the claim and reserves the amount towards the claim's escrow
// (INSUFFICIENT_FUNDS reserves nothing), setting the payment's hold and claim id.
type ClaimNeeded struct {
	Payment *Payment
	Phone   recipient.Phone
	At      time.Time
}

// ClaimCanceled: the sender cancels a PENDING_CLAIM payment. The reaction refuses a funded
// claim (CLAIM_FUNDED), else voids the reservation, cancels the payment and closes the claim.
type ClaimCanceled struct {
	Payment *Payment
	At      time.Time
}

// ClaimSettled: a claim-funded payment's money leaves the claim's escrow account, to the
// payment's locked account at FUNDS_LOCKED or back to the sender on a REJECT (Rejected). The
// reaction posts it and commits the composer's decision with the escrow's release.
type ClaimSettled struct {
	Payment  *Payment
	Rejected bool
	At       time.Time
}
