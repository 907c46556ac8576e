// Package safepay holds the rules of Safe payments (docs/api.md Safe payment): destinations, the
// state machine as data, and signature collection up to the wallet's threshold.
package safepay

import (
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
)

// Status of a Safe payment.
type Status string

const (
	StatusCreated           Status = "CREATED"
	StatusAwaitingSignature Status = "AWAITING_SIGNATURE"
	// StatusSigning: an escrow invoice's settlement payment holding some, not all, of its
	// signatures (docs/api.md: one signature moves it to SIGNING, the second executes).
	StatusSigning        Status = "SIGNING"
	StatusReadyToExecute Status = "READY_TO_EXECUTE"
	StatusExecuting      Status = "EXECUTING"
	StatusCompleted      Status = "COMPLETED"
	StatusFailed         Status = "FAILED"
	StatusCancelled      Status = "CANCELLED"
)

// Terminal reports whether the payment is over.
func (s Status) Terminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// DestinationType is the tag of the destination union.
type DestinationType string

const (
	DestinationHandle  DestinationType = "handle"
	DestinationEmail   DestinationType = "email"
	DestinationAddress DestinationType = "address"
	DestinationWallet  DestinationType = "wallet"
)

// Signature is one owner's approval of the safeTxHash.
type Signature struct {
	Signer   string // EIP-55
	Value    string // 0x + 130 hex digits, v 27/28
	SignedAt time.Time
}

// Payment is a USDC transfer out of a Safe.
type Payment struct {
	ID string
	// Kind is KindTransfer (a USDC transfer) or KindTransaction (Call); "" reads as transfer.
	Kind Kind
	// Call is what a KindTransaction payment executes; nil for a transfer.
	Call               *Call
	TenantID           string
	Environment        core.Environment
	SourceWalletID     string
	SafeAddress        string
	ChainID            int64
	DestinationType    DestinationType
	DestinationHandle  string
	DestinationAddress string
	DestinationWallet  string
	DestinationChainID int64
	Asset              string
	AmountBaseUnits    int64
	Memo               string
	Status             Status
	SafeNonce          uint64
	SafeTxHash         string
	Threshold          int
	Signatures         []Signature
	ExecutedTxHash     string
	FailureReason      string
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

// SignedBy reports whether signer (any case) already signed.
func (p Payment) SignedBy(signer string) bool {
	for _, s := range p.Signatures {
		if strings.EqualFold(s.Signer, signer) {
			return true
		}
	}
	return false
}
