package safepay

import (
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

var allStatuses = []Status{StatusCreated, StatusAwaitingSignature, StatusSigning, StatusReadyToExecute, StatusExecuting, StatusCompleted, StatusFailed, StatusCancelled}

// TestPayment_Transitions walks docs/api.md's Safe payment table row by row, and checks every
// other (state, trigger) pair is refused.
func TestPayment_Transitions(t *testing.T) {
	now := time.Now()
	rows := map[transition]Status{
		{StatusCreated, TriggerPropose}:             StatusAwaitingSignature,
		{StatusAwaitingSignature, TriggerThreshold}: StatusReadyToExecute,
		{StatusAwaitingSignature, TriggerSigning}:   StatusSigning,
		{StatusSigning, TriggerThreshold}:           StatusReadyToExecute,
		{StatusReadyToExecute, TriggerExecute}:      StatusExecuting,
		{StatusExecuting, TriggerSucceeded}:         StatusCompleted,
	}
	for _, s := range []Status{StatusCreated, StatusAwaitingSignature, StatusSigning, StatusReadyToExecute, StatusExecuting} {
		rows[transition{s, TriggerFail}] = StatusFailed
	}
	for _, s := range []Status{StatusCreated, StatusAwaitingSignature, StatusSigning, StatusReadyToExecute} {
		rows[transition{s, TriggerCancel}] = StatusCancelled
	}
	triggers := []Trigger{TriggerPropose, TriggerThreshold, TriggerSigning, TriggerExecute, TriggerSucceeded, TriggerFail, TriggerCancel}
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
	p, err := p.AddSignature(Signature{Signer: "0xAa"}, now, false)
	if err != nil || p.Status != StatusAwaitingSignature {
		t.Fatalf("first signature: %v %s", err, p.Status)
	}
	if _, err := p.AddSignature(Signature{Signer: "0xAA"}, now, false); !errors.Is(err, &core.Error{Code: CodeSignatureDuplicate}) {
		t.Fatalf("duplicate signer (other case): %v", err)
	}
	p, err = p.AddSignature(Signature{Signer: "0xbb"}, now, false)
	if err != nil || p.Status != StatusReadyToExecute || len(p.Signatures) != 2 {
		t.Fatalf("threshold: %v %s", err, p.Status)
	}
	if _, err := p.AddSignature(Signature{Signer: "0xcc"}, now, false); !errors.Is(err, core.ErrInvalidState) {
		t.Fatalf("signature after threshold: %v", err)
	}
	// An escrow settlement shows SIGNING between its first signature and the threshold.
	e := Payment{ID: "pay_2", Status: StatusAwaitingSignature, Threshold: 2}
	e, err = e.AddSignature(Signature{Signer: "0xaa"}, now, true)
	if err != nil || e.Status != StatusSigning {
		t.Fatalf("escrow first signature: %v %s", err, e.Status)
	}
	if _, err := e.AddSignature(Signature{Signer: "0xAA"}, now, true); !errors.Is(err, &core.Error{Code: CodeSignatureDuplicate}) {
		t.Fatalf("escrow duplicate signer: %v", err)
	}
	e, err = e.AddSignature(Signature{Signer: "0xbb"}, now, true)
	if err != nil || e.Status != StatusReadyToExecute || len(e.Signatures) != 2 {
		t.Fatalf("escrow threshold: %v %s", err, e.Status)
	}
	three := Payment{ID: "pay_3", Status: StatusAwaitingSignature, Threshold: 3}
	for i, signer := range []string{"0x01", "0x02"} {
		if three, err = three.AddSignature(Signature{Signer: signer}, now, true); err != nil || three.Status != StatusSigning {
			t.Fatalf("escrow signature %d of 3: %v %s", i+1, err, three.Status)
		}
	}
	failed, _ := Payment{Status: StatusExecuting}.Fail("GS013", now)
	if failed.Status != StatusFailed || failed.FailureReason != "GS013" {
		t.Fatalf("fail: %+v", failed)
	}
}
