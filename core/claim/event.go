package claim

import (
	"time"
)

// EventKind names an escrow contract event.
type EventKind string

const (
	EventFunded          EventKind = "FUNDED"
	EventLocked          EventKind = "LOCKED"
	EventReleased        EventKind = "RELEASED"
	EventRefunded        EventKind = "REFUNDED"
	EventCanceled        EventKind = "CANCELED"
	EventExpiryShortened EventKind = "EXPIRY_SHORTENED"
)

// Event is one indexed escrow event for a claim.
type Event struct {
	Kind   EventKind
	TxHash string
}

// Outcome tells the caller what an event changed, so it posts the matching ledger transfer
// once: FundedNow the first time the escrow holds the money, and the status reached.
type Outcome struct {
	Changed   bool
	FundedNow bool
	From, To  Status
}

// ApplyEvent applies an indexed event. Events are idempotent and tolerate re-ordering: a
// release or refund seen before the lock (or expiry) it implies takes the implied step first;
// an event the claim already reflects, or one that contradicts an absorbing status, changes
// nothing. A claim is never both released and refunded.
func (c *Claim) ApplyEvent(e Event, now time.Time) Outcome {
	out := Outcome{From: c.Status, To: c.Status}
	step := func(t Trigger) bool {
		if err := c.Apply(t, now); err != nil {
			return false
		}
		out.Changed, out.To = true, c.Status
		return true
	}
	fund := func() {
		if !c.Funded {
			c.Funded, out.FundedNow, out.Changed, c.UpdatedAt = true, true, true, now
		}
	}
	switch e.Kind {
	case EventFunded:
		if c.Status != StatusCanceled {
			fund()
		}
	case EventLocked:
		if c.Status == StatusOpen {
			fund()
			step(TrigLock)
			c.LockTxHash = e.TxHash
		}
	case EventReleased:
		if c.Status == StatusOpen {
			fund()
			step(TrigLock)
		}
		if c.Status == StatusLocked && step(TrigRelease) {
			c.ReleaseTxHash = e.TxHash
		}
	case EventRefunded:
		if c.Status == StatusOpen {
			fund()
			step(TrigExpiry)
		}
		switch c.Status {
		case StatusLocked:
			if step(TrigGraceRefund) {
				c.RefundTxHash = e.TxHash
			}
		case StatusExpired:
			fund()
			if step(TrigRefund) {
				c.RefundTxHash = e.TxHash
			}
		}
	case EventCanceled:
		if c.Status == StatusOpen && !c.Funded {
			step(TrigExpiry)
		}
		if c.Status == StatusExpired && !c.Funded && step(TrigCancel) {
			c.CancelTxHash = e.TxHash
		}
	}
	return out
}
