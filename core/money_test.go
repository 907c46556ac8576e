package core

import (
	"errors"
	"math"
	"testing"
)

func TestParseUSD(t *testing.T) {
	ok := map[string]int64{
		"0":                    0,
		"1":                    1_000_000,
		"12.5":                 12_500_000,
		"0.000001":             1,
		"1.100000":             1_100_000,
		"007.5":                7_500_000,
		"9223372036854.775807": math.MaxInt64,
	}
	for in, want := range ok {
		got, err := ParseUSD("amountUsd", in)
		if err != nil || got != want {
			t.Errorf("ParseUSD(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	// Only plain decimal strings: no sign, exponent, spaces, bare point, or digits beyond six in
	// the fraction (trailing zeros count: "1.0000000" is a seventh digit, not a rounding).
	bad := []string{
		"", "-1", "-0", "+5", "1e3", "1E3", "1e-3", "1.5e2", " 5", "5 ", "1 000", "\t5", "5\n",
		"1.0000001", "1.0000000", ".5", "5.", ".", "abc", "0x10", "1,5", "1_000", "NaN", "Inf",
		"١", "9223372036854.775808", "99999999999999999999999",
	}
	for _, in := range bad {
		got, err := ParseUSD("amountUsd", in)
		var e *Error
		if err == nil || !errors.As(err, &e) || e.Code != CodeValidationFailed {
			t.Errorf("ParseUSD(%q) = %d, %v; want VALIDATION_FAILED", in, got, err)
			continue
		}
		if reason, _ := e.Details["fields"].(map[string]any)["amountUsd"].(string); reason == "" {
			t.Errorf("ParseUSD(%q): details.fields does not name amountUsd: %v", in, e.Details)
		}
	}
}

func TestParseAmount_Decimals(t *testing.T) {
	if got, err := ParseAmount("amount", 18, "0.000000000000000001"); err != nil || got != 1 {
		t.Fatalf("one wei = %d, %v", got, err)
	}
	if _, err := ParseAmount("amount", 18, "0.0000000000000000010"); err == nil {
		t.Fatal("nineteen fraction digits accepted for an 18-decimal asset")
	}
	if got, err := ParseAmount("amount", 0, "42"); err != nil || got != 42 {
		t.Fatalf("whole units = %d, %v", got, err)
	}
	if _, err := ParseAmount("amount", 0, "42.0"); err == nil {
		t.Fatal("a fraction accepted for an asset without decimals")
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
