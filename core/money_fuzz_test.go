package core

import (
	"errors"
	"testing"
)

// FuzzParseUSD: an API amount either parses to non-negative base units that format back to
// the same amount (FormatUSD, then ParseUSD again), or is refused with VALIDATION_FAILED; never
// a panic, a negative amount or a rounding.
func FuzzParseUSD(f *testing.F) {
	for _, s := range []string{"12.50", "0", "0.000001", "1.0000000", "-1", "1e6", " 1", "9223372036854.775807",
		"9223372036854.775808", "00012.5", ".5", "5.", "", "1.2.3", "١٢"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		units, err := ParseUSD("amountUsd", s)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || ce.Code != CodeValidationFailed {
				t.Fatalf("ParseUSD(%q): %v, want VALIDATION_FAILED", s, err)
			}
			return
		}
		if units < 0 {
			t.Fatalf("ParseUSD(%q) = %d", s, units)
		}
		again, err := ParseUSD("amountUsd", FormatUSD(units))
		if err != nil || again != units {
			t.Fatalf("ParseUSD(%q) = %d formats as %q, which parses to %d, %v", s, units, FormatUSD(units), again, err)
		}
	})
}
