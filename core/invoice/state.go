package invoice

import (
	"time"

	"github.com/corridorhq/corridor/core"
)

// Status is an invoice's state (docs/api.md States, Escrow invoice).
type Status string

// Statuses of docs/api.md.
const (
	StatusDraft     Status = "DRAFT"
	StatusSent      Status = "SENT"
	StatusFunded    Status = "FUNDED"
	StatusDelivered Status = "DELIVERED"
	StatusExpired   Status = "EXPIRED"
	StatusReleased  Status = "RELEASED"
	StatusRefunded  Status = "REFUNDED"
	StatusCancelled Status = "CANCELLED"
)

// Statuses lists every status.
var Statuses = []Status{StatusDraft, StatusSent, StatusFunded, StatusDelivered, StatusExpired, StatusReleased, StatusRefunded, StatusCancelled}

// Valid reports whether s is a known status.
func (s Status) Valid() bool {
	for _, v := range Statuses {
		if s == v {
			return true
		}
	}
	return false
}

// Terminal reports whether nothing follows s.
func (s Status) Terminal() bool {
	return s == StatusReleased || s == StatusRefunded || s == StatusCancelled
}

// Trigger is what moves an invoice.
type Trigger string

// Triggers of the state table. Funded and Expire are the balance poller's; Released and
// Refunded are the settlement payment completing on chain.
const (
	TriggerSend     Trigger = "send"
	TriggerCancel   Trigger = "cancel"
	TriggerFunded   Trigger = "funded"
	TriggerExpire   Trigger = "expire"
	TriggerDeliver  Trigger = "deliver"
	TriggerReleased Trigger = "released"
	TriggerRefunded Trigger = "refunded"
)

// Transition is one row of the state table.
type Transition struct {
	From    Status
	Trigger Trigger
	To      Status
}

// Table is docs/api.md's escrow invoice table, row by row. The conditions of the rows (balance,
// expiry, two signatures) are checked by Poll and the settlement guards, not by Apply.
var Table = []Transition{
	{StatusDraft, TriggerSend, StatusSent},
	{StatusDraft, TriggerCancel, StatusCancelled},
	{StatusSent, TriggerFunded, StatusFunded},
	{StatusSent, TriggerCancel, StatusCancelled},
	{StatusSent, TriggerExpire, StatusExpired},
	{StatusFunded, TriggerDeliver, StatusDelivered},
	{StatusFunded, TriggerReleased, StatusReleased},
	{StatusDelivered, TriggerReleased, StatusReleased},
	{StatusFunded, TriggerRefunded, StatusRefunded},
	{StatusDelivered, TriggerRefunded, StatusRefunded},
	{StatusExpired, TriggerRefunded, StatusRefunded},
}

// triggerVerb is each trigger as a refusal names it: "an invoice that is DRAFT cannot be released".
var triggerVerb = map[Trigger]string{TriggerSend: "sent", TriggerCancel: "cancelled", TriggerFunded: "funded",
	TriggerExpire: "expired", TriggerDeliver: "delivered", TriggerReleased: "released", TriggerRefunded: "refunded"}

// Next is the status trigger moves from to, or INVALID_STATE when the table has no such row.
func Next(from Status, t Trigger) (Status, error) {
	for _, r := range Table {
		if r.From == from && r.Trigger == t {
			return r.To, nil
		}
	}
	return from, core.E(core.CodeInvalidState, "an invoice that is %s cannot be %s", from, triggerVerb[t]).
		WithDetails(map[string]any{"status": string(from)})
}

// Apply moves i by t at now.
func (i Invoice) Apply(t Trigger, now time.Time) (Invoice, error) {
	to, err := Next(i.Status, t)
	if err != nil {
		return i, err
	}
	i.Status, i.UpdatedAt = to, now
	if t == TriggerFunded {
		at := now
		i.FundedAt = &at
	}
	return i, nil
}

// Poll is the balance poller's decision for a SENT invoice whose hold Safe holds balance
// (base units, read before deciding) at the invoice's now: FUNDED when it covers the amount,
// else EXPIRED once expiresAt has passed, else nothing. Funds win: a Safe that is funded at the
// moment of expiry makes the invoice FUNDED, never EXPIRED. Other statuses: nothing (a FUNDED
// invoice never expires).
func Poll(i Invoice, balance int64, now time.Time) (Trigger, bool) {
	if i.Status != StatusSent {
		return "", false
	}
	if balance >= i.AmountBaseUnits {
		return TriggerFunded, true
	}
	if i.Expired(now) {
		return TriggerExpire, true
	}
	return "", false
}

// Settlement is a release or a refund.
type Settlement string

// Settlements.
const (
	Release Settlement = "release"
	Refund  Settlement = "refund"
)

// CheckSettlement says whether a settlement may be proposed now and for how much: a release
// pays amountUsd to the payee from FUNDED or DELIVERED before expiry; a refund sweeps the
// Safe's actual balance (read by the caller) to the payer from FUNDED, DELIVERED or EXPIRED.
// Only one settlement may be in flight (SETTLEMENT_IN_FLIGHT); an empty Safe has nothing to
// refund (INVOICE_NOTHING_TO_REFUND).
func CheckSettlement(i Invoice, kind Settlement, balance int64, now time.Time) (int64, error) {
	trigger := TriggerReleased
	if kind == Refund {
		trigger = TriggerRefunded
	}
	if _, err := Next(i.Status, trigger); err != nil {
		return 0, err
	}
	if id := i.SettlementPaymentID(); id != "" {
		return 0, core.E(CodeSettlementInFlight, "invoice %s already has settlement payment %s in flight", i.ID, id).
			WithDetails(map[string]any{"paymentId": id})
	}
	if kind == Release {
		if i.Expired(now) {
			return 0, core.E(core.CodeInvalidState, "invoice %s expired at %s: it can only be refunded", i.ID, i.ExpiresAt.UTC().Format(time.RFC3339)).
				WithDetails(map[string]any{"status": string(i.Status), "reason": "EXPIRED"})
		}
		if balance < i.AmountBaseUnits {
			return 0, core.E(core.CodeInvalidState, "the hold Safe holds %s, less than the invoice's %s", core.FormatUSD(balance), core.FormatUSD(i.AmountBaseUnits))
		}
		return i.AmountBaseUnits, nil
	}
	if balance <= 0 {
		return 0, core.E(CodeNothingToRefund, "the hold Safe of invoice %s holds nothing to refund", i.ID)
	}
	return balance, nil
}

// Link records the proposed settlement payment.
func (i Invoice) Link(kind Settlement, paymentID string, now time.Time) Invoice {
	if kind == Release {
		i.ReleasePaymentID = paymentID
	} else {
		i.RefundPaymentID = paymentID
	}
	i.UpdatedAt = now
	return i
}

// Unlink clears a settlement payment that failed or was cancelled, so another may be proposed.
func (i Invoice) Unlink(now time.Time) Invoice {
	i.ReleasePaymentID, i.RefundPaymentID, i.UpdatedAt = "", "", now
	return i
}

// Settled moves i once its settlement payment completed on chain.
func (i Invoice) Settled(now time.Time) (Invoice, error) {
	t := TriggerReleased
	if i.ReleasePaymentID == "" {
		t = TriggerRefunded
	}
	return i.Apply(t, now)
}

// CheckCancel refuses a cancel once any funds reached the hold Safe (balance read by the
// caller; -1 when the invoice has no Safe yet).
func CheckCancel(i Invoice, balance int64) error {
	if _, err := Next(i.Status, TriggerCancel); err != nil {
		return err
	}
	if balance > 0 {
		return core.E(core.CodeInvalidState, "funds already reached the hold Safe of invoice %s: it can no longer be cancelled", i.ID).
			WithDetails(map[string]any{"status": string(i.Status), "reason": "FUNDS_ARRIVED"})
	}
	return nil
}
