package safepay

import (
	"time"

	"github.com/corridorhq/corridor/core"
)

// Trigger is an event in a payment's life.
type Trigger string

const (
	TriggerPropose   Trigger = "propose"   // the safeTxHash is computed
	TriggerThreshold Trigger = "threshold" // signatures reach the wallet threshold
	TriggerSigning   Trigger = "signing"   // an escrow settlement's first signature, below the threshold
	TriggerExecute   Trigger = "execute"   // auto-execute or explicit execute: sent to the relayer
	TriggerSucceeded Trigger = "succeeded" // on-chain success
	TriggerFail      Trigger = "fail"      // policy rejection or on-chain revert
	TriggerCancel    Trigger = "cancel"
)

type transition struct {
	from    Status
	trigger Trigger
}

// transitions is docs/api.md's Safe payment table as data. "Any pending" for failure covers every
// non-terminal state; cancel covers the states before execution only, because once the
// transaction is with the relayer it cannot be taken back.
var transitions = map[transition]Status{
	{StatusCreated, TriggerPropose}:             StatusAwaitingSignature,
	{StatusAwaitingSignature, TriggerThreshold}: StatusReadyToExecute,
	{StatusAwaitingSignature, TriggerSigning}:   StatusSigning,
	{StatusSigning, TriggerThreshold}:           StatusReadyToExecute,
	{StatusSigning, TriggerFail}:                StatusFailed,
	{StatusSigning, TriggerCancel}:              StatusCancelled,
	{StatusReadyToExecute, TriggerExecute}:      StatusExecuting,
	{StatusExecuting, TriggerSucceeded}:         StatusCompleted,
	{StatusCreated, TriggerFail}:                StatusFailed,
	{StatusAwaitingSignature, TriggerFail}:      StatusFailed,
	{StatusReadyToExecute, TriggerFail}:         StatusFailed,
	{StatusExecuting, TriggerFail}:              StatusFailed,
	{StatusCreated, TriggerCancel}:              StatusCancelled,
	{StatusAwaitingSignature, TriggerCancel}:    StatusCancelled,
	{StatusReadyToExecute, TriggerCancel}:       StatusCancelled,
}

// Can reports whether trigger applies in the payment's state.
func (p Payment) Can(trigger Trigger) bool {
	_, ok := transitions[transition{p.Status, trigger}]
	return ok
}

// Apply moves the payment by trigger, or refuses with INVALID_STATE naming both states.
func (p Payment) Apply(trigger Trigger, now time.Time) (Payment, error) {
	to, ok := transitions[transition{p.Status, trigger}]
	if !ok {
		return p, core.E(core.CodeInvalidState, "payment %s is %s and cannot %s", p.ID, p.Status, trigger).
			WithDetails(map[string]any{"status": string(p.Status)})
	}
	p.Status = to
	p.UpdatedAt = now
	return p, nil
}

// Fail moves a pending payment to FAILED with a reason.
func (p Payment) Fail(reason string, now time.Time) (Payment, error) {
	out, err := p.Apply(TriggerFail, now)
	if err == nil {
		out.FailureReason = reason
	}
	return out, err
}

// TakesSignatures reports whether the payment still collects signatures.
func (s Status) TakesSignatures() bool {
	return s == StatusAwaitingSignature || s == StatusSigning
}

// AddSignature records an owner's verified signature. A second signature by the same owner is
// refused; reaching the threshold moves the payment to READY_TO_EXECUTE. Below the threshold an
// escrow settlement (escrow true: its Safe is an invoice's 2-of-3 hold Safe) moves to SIGNING,
// any other payment stays AWAITING_SIGNATURE as docs/api.md's table has it.
func (p Payment) AddSignature(sig Signature, now time.Time, escrow bool) (Payment, error) {
	if !p.Status.TakesSignatures() {
		return p, core.E(core.CodeInvalidState, "payment %s is %s: it takes no more signatures", p.ID, p.Status).
			WithDetails(map[string]any{"status": string(p.Status)})
	}
	if p.SignedBy(sig.Signer) {
		return p, core.E(CodeSignatureDuplicate, "owner %s already signed this payment", sig.Signer)
	}
	p.Signatures = append(append([]Signature(nil), p.Signatures...), sig)
	p.UpdatedAt = now
	if len(p.Signatures) >= p.Threshold {
		return p.Apply(TriggerThreshold, now)
	}
	if escrow && p.Status == StatusAwaitingSignature {
		return p.Apply(TriggerSigning, now)
	}
	return p, nil
}

// Codes of Safe payments.
const (
	CodeSignatureDuplicate core.Code = "SIGNATURE_DUPLICATE"
	CodeSignerNotOwner     core.Code = "SIGNER_NOT_OWNER"
	CodePaymentNotFound    core.Code = "PAYMENT_NOT_FOUND"
)
