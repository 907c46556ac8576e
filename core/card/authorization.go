package card

import (
	"time"

	"github.com/corridorhq/corridor/core"
)

// AuthStatus is an authorization's state: APPROVED (a hold is open) moves once, to CAPTURED
// (posted in part or whole) or REVERSED (voided); DECLINED, CAPTURED and REVERSED are terminal.
type AuthStatus string

const (
	AuthApproved AuthStatus = "APPROVED"
	AuthDeclined AuthStatus = "DECLINED"
	AuthCaptured AuthStatus = "CAPTURED"
	AuthReversed AuthStatus = "REVERSED"
)

// Why an authorization was reversed.
const (
	// ReversalMerchant: the acquirer reversed it (the sandbox reverse helper).
	ReversalMerchant = "MERCHANT"
	// ReversalExpired: it stayed APPROVED, never captured, for the authorization lifetime, and
	// the expiry pass released its hold and budget.
	ReversalExpired = "EXPIRED"
)

// DefaultAuthorizationLifetime is how long an approval holds funds without a capture before
// the expiry pass releases it, as card networks let an uncaptured authorization lapse.
const DefaultAuthorizationLifetime = 7 * 24 * time.Hour

// SettlementStatus tracks the on-chain settlement of a captured Safe card's spend.
type SettlementStatus string

const (
	SettlementPending   SettlementStatus = "PENDING"   // captured, not yet sent
	SettlementSubmitted SettlementStatus = "SUBMITTED" // sent, waiting for its receipt
	SettlementConfirmed SettlementStatus = "CONFIRMED"
	SettlementFailed    SettlementStatus = "FAILED"    // refused or reverted; visible, retried by an operator
	SettlementOffChain  SettlementStatus = "OFF_CHAIN" // a funding-account card: settled by the issuer
	SettlementNone      SettlementStatus = ""          // nothing captured
)

// Authorization is one decision on one card, recorded with its reason and the window keys it
// consumed.
type Authorization struct {
	ID             string
	TenantID       string
	Environment    core.Environment
	CardID         string
	Amount         int64 // asked, base units
	CapturedAmount int64
	MCC            string
	MerchantName   string
	Counterparty   string
	Status         AuthStatus
	DeclineReason  string
	// ReversalReason is ReversalMerchant or ReversalExpired once REVERSED.
	ReversalReason string
	Windows        Windows
	HoldTransferID string
	// PolicyID and PolicyDecisionID pin the policy gate's decision, when one was evaluated.
	PolicyID         string
	PolicyDecisionID string
	SettlementStatus SettlementStatus
	SettlementTxHash string
	SettlementError  string
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// Consumed is what the authorization holds against its windows: the amount while APPROVED,
// the captured amount once CAPTURED, nothing when DECLINED or REVERSED.
func (a Authorization) Consumed() int64 {
	switch a.Status {
	case AuthApproved:
		return a.Amount
	case AuthCaptured:
		return a.CapturedAmount
	}
	return 0
}

// Capture posts an APPROVED authorization: amount nil captures the whole; a part captures
// less and releases the rest. Capturing more than approved, zero, or anything not APPROVED
// (captured twice, after a reversal, a decline) is refused and changes nothing.
func (a Authorization) Capture(amount *int64, now time.Time) (Authorization, error) {
	if a.Status != AuthApproved {
		return a, notApproved(a, "captured")
	}
	v := a.Amount
	if amount != nil {
		v = *amount
	}
	if v <= 0 {
		return a, core.Invalid("amountUsd", "must be a positive amount")
	}
	if v > a.Amount {
		return a, core.Invalid("amountUsd", "must not exceed the approved amount "+core.FormatUSD(a.Amount))
	}
	a.Status, a.CapturedAmount, a.UpdatedAt = AuthCaptured, v, now
	return a, nil
}

// Reverse voids an APPROVED authorization for reason (ReversalMerchant or ReversalExpired). A
// captured, reversed or declined one is refused.
func (a Authorization) Reverse(now time.Time, reason string) (Authorization, error) {
	if a.Status != AuthApproved {
		return a, notApproved(a, "reversed")
	}
	if reason != ReversalMerchant && reason != ReversalExpired {
		return a, core.E(core.CodeInternal, "card: unknown reversal reason %q", reason)
	}
	a.Status, a.ReversalReason, a.UpdatedAt = AuthReversed, reason, now
	return a, nil
}

func notApproved(a Authorization, verb string) error {
	return core.E(core.CodeInvalidState, "authorization %s is %s: only an APPROVED authorization can be %s", a.ID, a.Status, verb).
		WithDetails(map[string]any{"status": string(a.Status)})
}
