package core

import (
	"errors"
	"fmt"
	"testing"
)

// TestHasCode: the code of a domain error is found directly and through wrapping; another
// code, a plain error and nil are not it.
func TestHasCode(t *testing.T) {
	insufficient := E(CodeInsufficientFunds, "short")
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"the error itself", insufficient, true},
		{"wrapped once", fmt.Errorf("posting: %w", insufficient), true},
		{"wrapped twice", fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", insufficient)), true},
		{"joined", errors.Join(errors.New("other"), insufficient), true},
		{"another code", E(CodeInvalidState, "no"), false},
		{"a plain error", errors.New("INSUFFICIENT_FUNDS: short"), false},
		{"nil", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := HasCode(c.err, CodeInsufficientFunds); got != c.want {
				t.Fatalf("HasCode(%v) = %v, want %v", c.err, got, c.want)
			}
		})
	}
}

// TestFieldErrors_Merge: a validator's named fields join the collector's (the collector's own
// reason for a field wins), any other error lands on the body, and nil adds nothing.
func TestFieldErrors_Merge(t *testing.T) {
	errs := FieldErrors{"name": "required"}
	inner := FieldErrors{"name": "too long", "amountUsd": "must be positive"}
	errs.Merge(inner.Err())
	errs.Merge(nil)
	if len(errs) != 2 || errs["name"] != "required" || errs["amountUsd"] != "must be positive" {
		t.Fatalf("merged %v", errs)
	}
	other := FieldErrors{}
	other.Merge(errors.New("boom"))
	if other["body"] != "boom" || len(other) != 1 {
		t.Fatalf("a plain error: %v", other)
	}
}
