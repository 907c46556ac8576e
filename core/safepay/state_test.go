package safepay

import (
	"errors"
	"testing"
	"time"

	"corridor/core"
)

var allStatuses = []Status{StatusCreated, StatusAwaitingSignature, StatusReadyToExecute, StatusExecuting, StatusCompleted, StatusFailed, StatusCancelled}

// TestPayment_Transitions walks SPEC.md's Safe payment table row by row, and checks every
// other (state, trigger) pair is refused.
func TestPayment_Transitions(t *testing.T) {
	now := time.Now()
	rows := map[transition]Status{
		{StatusCreated, TriggerPropose}:             StatusAwaitingSignature,
		{StatusAwaitingSignature, TriggerThreshold}: StatusReadyToExecute,
		{StatusReadyToExecute, TriggerExecute}:      StatusExecuting,
		{StatusExecuting, TriggerSucceeded}:         StatusCompleted,
	}
	for _, s := range []Status{StatusCreated, StatusAwaitingSignature, StatusReadyToExecute, StatusExecuting} {
		rows[transition{s, TriggerFail}] = StatusFailed
	}
	for _, s := range []Status{StatusCreated, StatusAwaitingSignature, StatusReadyToExecute} {
		rows[transition{s, TriggerCancel}] = StatusCancelled
	}
	triggers := []Trigger{TriggerPropose, TriggerThreshold, TriggerExecute, TriggerSucceeded, TriggerFail, TriggerCancel}
	for _, from := range allStatuses {
		for _, trig := range triggers {
			got, err := Payment{Status: from}.Apply(trig, now)
			want, ok := rows[transition{from, trig}]
			switch {
			case ok && (err != nil || got.Status != want):
				t.Errorf("%s on %s: got %s, %v; want %s", from, trig, got.Status, err, want)
			case !ok && (!errors.Is(err, core.ErrInvalidState) || got.Status != from):
				t.Errorf("%s on %s: got %s, %v; want INVALID_STATE", from, trig, got.Status, err)
			}
		}
	}
	for _, s := range []Status{StatusCompleted, StatusFailed, StatusCancelled} {
		if !s.Terminal() {
			t.Errorf("%s is terminal", s)
		}
	}
}

func TestPayment_Signatures(t *testing.T) {
	now := time.Now()
	p := Payment{ID: "pay_1", Status: StatusAwaitingSignature, Threshold: 2}
	p, err := p.AddSignature(Signature{Signer: "0xAa"}, now)
	if err != nil || p.Status != StatusAwaitingSignature {
		t.Fatalf("first signature: %v %s", err, p.Status)
	}
	if _, err := p.AddSignature(Signature{Signer: "0xAA"}, now); !errors.Is(err, &core.Error{Code: CodeSignatureDuplicate}) {
		t.Fatalf("duplicate signer (other case): %v", err)
	}
	p, err = p.AddSignature(Signature{Signer: "0xbb"}, now)
	if err != nil || p.Status != StatusReadyToExecute || len(p.Signatures) != 2 {
		t.Fatalf("threshold: %v %s", err, p.Status)
	}
	if _, err := p.AddSignature(Signature{Signer: "0xcc"}, now); !errors.Is(err, core.ErrInvalidState) {
		t.Fatalf("signature after threshold: %v", err)
	}
	failed, _ := Payment{Status: StatusExecuting}.Fail("GS013", now)
	if failed.Status != StatusFailed || failed.FailureReason != "GS013" {
		t.Fatalf("fail: %+v", failed)
	}
}
