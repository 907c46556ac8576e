// Package checkout is a hosted-checkout payment (docs/decisions/checkout.md, docs/checkout.md): a merchant
// asks for an amount in USD; the payer sends USDC to a fresh deposit address; a watcher moves
// the checkout from CREATED to PENDING (funds seen), COMPLETED (the amount confirmed) or
// FAILED (expired without it). Refunds return what was received, never more.
package checkout

import (
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safepay"
)

// Prefixes of checkout and refund ids.
const (
	PrefixCheckout = "chk"
	PrefixRefund   = "crf"
)

// Status is where a checkout stands.
type Status string

const (
	StatusCreated   Status = "CREATED"
	StatusPending   Status = "PENDING"
	StatusCompleted Status = "COMPLETED"
	StatusFailed    Status = "FAILED"
)

// Terminal reports a status the watcher no longer changes.
func (s Status) Terminal() bool { return s == StatusCompleted || s == StatusFailed }

// CodeNothingToRefund is a refund of a checkout that holds nothing refundable.
const CodeNothingToRefund core.Code = "CHECKOUT_NOTHING_TO_REFUND"

// ErrNotFound is the 404 of a checkout that is not the caller's: the code of every payment
// id under /v1/payments/{id}, whichever surface (a Safe payment's PAYMENT_NOT_FOUND).
var ErrNotFound = core.NotFound(safepay.CodePaymentNotFound, "payment")

// Bounds of a checkout.
const (
	// MaxAmount is the largest amount one checkout asks for: 1,000,000 USD.
	MaxAmount int64 = 1_000_000 * 1_000_000
	// MaxDescription bounds the description shown on the payment page.
	MaxDescription = 500
	// MaxMetadataKeys bounds metadata; keys and values are strings.
	MaxMetadataKeys  = 20
	MaxMetadataKey   = 40
	MaxMetadataValue = 500
)

// Checkout is one hosted-checkout payment. Amounts are USDC base units (6 decimals); one USD is
// one USDC.
type Checkout struct {
	ID             string
	TenantID       string
	Environment    core.Environment
	ChainID        int64
	Amount         int64
	Currency       string // USD
	Cryptocurrency string // USDC
	Description    string
	CustomerEmail  string
	CustomerName   string
	Metadata       map[string]string
	DepositAddress string
	// StartBlock is the chain's head when the checkout was created: the watcher reads the
	// deposit's transfers from there.
	StartBlock uint64
	Status     Status
	// Received sums every transfer seen to the deposit address; Credited the part credited
	// to the merchant's service balance (confirmed transfers); Refunded what refunds took back.
	Received int64
	Credited int64
	Refunded int64
	// TransactionHash is the latest transfer seen, Confirmations its depth.
	TransactionHash string
	Confirmations   int64
	// PayerAddress is the sender of the first transfer: refunds go there by default.
	PayerAddress  string
	FailureReason string
	SweepTxHash   string
	ExpiresAt     time.Time
	// WatchUntil is how long the watcher keeps reading the address (late funds are swept and
	// credited too, so they can be refunded).
	WatchUntil  time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
	CompletedAt *time.Time
}

// Salt is the CREATE2 salt of the checkout's deposit address: keccak256 of its id.
func Salt(id string) [32]byte { return crypto.Keccak256Hash([]byte(id)) }

// RefundKey is the refund's id on the chain: the factory pays each key at most once.
func RefundKey(refundID string) [32]byte { return crypto.Keccak256Hash([]byte(refundID)) }

// Due is what the payer still has to send: the amount, less what arrived while that is short
// of it (a partly paid checkout asks for the rest, so a payer who scans again does not pay the
// whole amount twice).
func (c Checkout) Due() int64 {
	if c.Received > 0 && c.Received < c.Amount {
		return c.Amount - c.Received
	}
	return c.Amount
}

// Refundable is what refunds may still take back: credited and not refunded.
func (c Checkout) Refundable() int64 { return c.Credited - c.Refunded }

// Validate checks a checkout before it is stored and after it is read back.
func (c Checkout) Validate() error {
	switch {
	case !core.HasPrefix(c.ID, PrefixCheckout):
		return fmt.Errorf("checkout: id %q", c.ID)
	case c.TenantID == "" || !c.Environment.Valid():
		return fmt.Errorf("checkout %s: tenant and environment are required", c.ID)
	case c.Amount <= 0 || c.Amount > MaxAmount:
		return fmt.Errorf("checkout %s: amount %d", c.ID, c.Amount)
	case c.Received < 0 || c.Credited < 0 || c.Refunded < 0 || c.Refunded > c.Credited || c.Credited > c.Received:
		return fmt.Errorf("checkout %s: received %d, credited %d, refunded %d", c.ID, c.Received, c.Credited, c.Refunded)
	case c.DepositAddress == "":
		return fmt.Errorf("checkout %s: deposit address is required", c.ID)
	}
	switch c.Status {
	case StatusCreated, StatusPending, StatusCompleted, StatusFailed:
	default:
		return fmt.Errorf("checkout %s: status %q", c.ID, c.Status)
	}
	return nil
}

// Observation is what the watcher read of the deposit address.
type Observation struct {
	// Seen sums every transfer to the address; Confirmed those at least the configured
	// confirmations deep.
	Seen, Confirmed int64
	// LastTx and LastConfirmations are the newest transfer and its depth; Payer the sender
	// of the first.
	LastTx            string
	LastConfirmations int64
	Payer             string
}

// Observe applies one reading at now and returns the next checkout and the status it reached,
// when it changed. The rule (docs/checkout.md):
//   - any transfer seen moves CREATED to PENDING;
//   - COMPLETED when the confirmed transfers cover the amount (an overpayment completes too:
//     the whole amount received is credited and the excess is refundable);
//   - after expiresAt, a checkout whose seen transfers do not cover the amount is FAILED
//     (reason "expired", or "underpaid" when something arrived); what did arrive is credited
//     once confirmed, and refundable. Funds seen before expiry still complete it once confirmed.
func (c Checkout) Observe(o Observation, now time.Time) (Checkout, bool) {
	next := c
	if o.Seen > next.Received {
		next.Received = o.Seen
	}
	if o.LastTx != "" {
		next.TransactionHash, next.Confirmations = o.LastTx, o.LastConfirmations
	}
	if next.PayerAddress == "" {
		next.PayerAddress = o.Payer
	}
	changed := false
	switch next.Status {
	case StatusCreated, StatusPending:
		switch {
		case o.Confirmed >= next.Amount:
			at := now
			next.Status, next.CompletedAt, changed = StatusCompleted, &at, true
		case !now.Before(next.ExpiresAt) && o.Seen < next.Amount:
			next.Status, changed = StatusFailed, true
			next.FailureReason = "expired"
			if o.Seen > 0 {
				next.FailureReason = "underpaid"
			}
		case o.Seen > 0 && next.Status == StatusCreated:
			next.Status, changed = StatusPending, true
		}
	}
	return next, changed
}

// RefundStatus is where a refund stands.
type RefundStatus string

const (
	RefundPending   RefundStatus = "PENDING"
	RefundProcessed RefundStatus = "PROCESSED"
)

// Refund returns part or all of what a checkout received to an address.
type Refund struct {
	ID          string
	CheckoutID  string
	TenantID    string
	Environment core.Environment
	Amount      int64
	Destination string
	Status      RefundStatus
	TxHash      string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Validate checks a refund.
func (r Refund) Validate() error {
	switch {
	case !core.HasPrefix(r.ID, PrefixRefund) || !core.HasPrefix(r.CheckoutID, PrefixCheckout):
		return fmt.Errorf("checkout refund: id %q of %q", r.ID, r.CheckoutID)
	case r.Amount <= 0 || r.Destination == "":
		return fmt.Errorf("checkout refund %s: amount %d to %q", r.ID, r.Amount, r.Destination)
	case r.Status != RefundPending && r.Status != RefundProcessed:
		return fmt.Errorf("checkout refund %s: status %q", r.ID, r.Status)
	}
	return nil
}
