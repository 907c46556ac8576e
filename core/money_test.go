package core

import (
	"errors"
	"math"
	"testing"
)

func TestParseUSD(t *testing.T) {
	cases := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"0", 0, false},
		{"1", 1_000_000, false},
		{"12.5", 12_500_000, false},
		{"0.000001", 1, false},
		{"1.100000", 1_100_000, false},
		{"1.0000001", 0, true},
		{"-1", 0, true},
		{"", 0, true},
		{"abc", 0, true},
		{"1e3", 1_000_000_000, false},
		{"9223372036854.775807", math.MaxInt64, false},
		{"9223372036854.775808", 0, true},
	}
	for _, tc := range cases {
		got, err := ParseUSD("amountUsd", tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ParseUSD(%q) = %d, %v; want %d, err=%v", tc.in, got, err, tc.want, tc.wantErr)
		}
		if err != nil && !errors.Is(err, ErrValidation) {
			t.Errorf("ParseUSD(%q) error %v is not VALIDATION_FAILED", tc.in, err)
		}
	}
}

func TestFormatUSD(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 1: "0.000001", 12_500_000: "12.5", 3_000_000: "3"} {
		if got := FormatUSD(in); got != want {
			t.Errorf("FormatUSD(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestOverflowChecks(t *testing.T) {
	if _, err := AddInt64(math.MaxInt64, 1); !errors.Is(err, ErrAmountOverflow) {
		t.Fatal("MaxInt64+1 did not overflow")
	}
	if _, err := SubInt64(math.MinInt64+1, 2); !errors.Is(err, ErrAmountOverflow) {
		t.Fatal("MinInt64+1-2 did not overflow")
	}
	if _, err := MulInt64(math.MaxInt64/2+1, 2); !errors.Is(err, ErrAmountOverflow) {
		t.Fatal("multiplication did not overflow")
	}
	if v, err := MulInt64(-3, 4); err != nil || v != -12 {
		t.Fatalf("MulInt64(-3,4) = %d, %v", v, err)
	}
}

func TestFieldErrors(t *testing.T) {
	f := FieldErrors{}
	if f.Err() != nil {
		t.Fatal("empty field errors is an error")
	}
	f.Add("b", "first")
	f.Add("b", "second")
	f.Add("a", "x")
	var e *Error
	if !errors.As(f.Err(), &e) || e.Code != CodeValidationFailed {
		t.Fatalf("not a validation error: %v", f.Err())
	}
	fields := e.Details["fields"].(map[string]any)
	if fields["b"] != "first" || fields["a"] != "x" || e.Message != "invalid request: a, b" {
		t.Fatalf("unexpected %v / %q", fields, e.Message)
	}
}

func TestNewIDIsPrefixedAndOrdered(t *testing.T) {
	a, b := NewID(PrefixTenant), NewID(PrefixTenant)
	if !HasPrefix(a, PrefixTenant) || !(a < b) {
		t.Fatalf("ids %q, %q: want ten_ prefix and increasing order", a, b)
	}
}
