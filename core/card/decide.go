package card

import "github.com/corridorhq/corridor/core"

// Decline reasons (docs/api.md Errors, card decline reasons), recorded on the authorization.
const (
	ReasonCardInactive       = "CARD_INACTIVE"
	ReasonMCCBlocked         = "MCC_BLOCKED"
	ReasonMCCNotAllowed      = "MCC_NOT_ALLOWED"
	ReasonPerTxnLimit        = "PER_TXN_LIMIT"
	ReasonDailyCap           = "DAILY_CAP"
	ReasonWeeklyCap          = "WEEKLY_CAP"
	ReasonMonthlyCap         = "MONTHLY_CAP"
	ReasonInsufficientSafe   = "INSUFFICIENT_SAFE_BALANCE"
	ReasonPolicyDenied       = "POLICY_DENIED"
	ReasonPolicyUnavailable  = "POLICY_UNAVAILABLE"
	ReasonInsufficientFunds  = "INSUFFICIENT_FUNDS" // a funding-account card's service balance
	ReasonAgentLimitExceeded = "AGENT_LIMIT"
)

// Request is what the till asks: an amount (base units, positive) at a merchant category
// (four digits).
type Request struct {
	Amount int64
	MCC    string
}

// Decide is the card's own part of docs/decisions/cards.md's order: CARD_INACTIVE, MCC_BLOCKED, MCC_NOT_ALLOWED,
// PER_TXN_LIMIT, DAILY_CAP, WEEKLY_CAP, MONTHLY_CAP. It returns "" when the card's rules
// approve; the policy gate and the balance hold come after it, in the application. Caps are
// cumulative: spent in the window plus the amount, against the cap.
func Decide(c Card, req Request, spent Spend) string {
	l := c.Limits
	mcc := Normalise4(req.MCC)
	switch {
	case c.Status != StatusActive:
		return ReasonCardInactive
	case containsMCC(l.BlockedMCC, mcc):
		return ReasonMCCBlocked
	case l.AllowedMCC != nil && !containsMCC(l.AllowedMCC, mcc):
		return ReasonMCCNotAllowed
	case l.PerTransaction != nil && req.Amount > *l.PerTransaction:
		return ReasonPerTxnLimit
	case over(l.Daily, spent.Daily, req.Amount):
		return ReasonDailyCap
	case over(l.Weekly, spent.Weekly, req.Amount):
		return ReasonWeeklyCap
	case over(l.Monthly, spent.Monthly, req.Amount):
		return ReasonMonthlyCap
	}
	return ""
}

func over(limit *int64, spent, amount int64) bool {
	if limit == nil {
		return false
	}
	total, err := core.AddInt64(spent, amount)
	return err != nil || total > *limit
}

// PolicyOutcome is the policy gate's answer on an authorization: Decline is "" to approve,
// else the decline reason (POLICY_DENIED, POLICY_UNAVAILABLE); PolicyID and DecisionID pin the
// decision that was evaluated (empty when no policy applies).
type PolicyOutcome struct {
	Decline    string
	PolicyID   string
	DecisionID string
}
