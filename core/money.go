package core

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// USDCDecimals is the number of fraction digits of USDC and of USD amounts (1 USD = 1_000_000).
const USDCDecimals = 6

// ParseUSD parses an API amount in USD or USDC into base units; see ParseAmount.
func ParseUSD(field, s string) (int64, error) {
	return ParseAmount(field, USDCDecimals, s)
}

// ParseAmount is the one parser of API amounts: it turns a plain decimal string into base units
// of an asset with the given number of fraction digits, exactly. Only ASCII digits with an
// optional point followed by at least one digit are amounts. A sign, an exponent, whitespace
// anywhere, or more fraction digits than the asset has (trailing zeros count: "1.0000000" is a
// seventh USD digit) are refused rather than read generously, because a client that sends them
// meant something we cannot be sure of, and an amount read differently than meant moves money.
// A value beyond int64 is refused too; nothing is ever rounded.
func ParseAmount(field string, decimals int, s string) (int64, error) {
	if s == "" {
		return 0, Invalid(field, "is required")
	}
	whole, fraction, hasPoint := strings.Cut(s, ".")
	switch {
	case len(s) > 1 && s[0] == '-' && allDigits(s[1:]):
		return 0, Invalid(field, "must not be negative")
	case !allDigits(whole) || (hasPoint && !allDigits(fraction)):
		return 0, Invalid(field, `must be a plain decimal string such as "12.50": digits with an optional point and fraction, no sign, exponent or spaces`)
	case len(fraction) > decimals:
		return 0, Invalid(field, fmt.Sprintf("must have at most %d fraction digits", decimals))
	}
	digits := strings.TrimLeft(whole+fraction+strings.Repeat("0", decimals-len(fraction)), "0")
	if digits == "" {
		return 0, nil
	}
	units, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, Invalid(field, "is too large")
	}
	return units, nil
}

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FormatUSD renders base units as a decimal string with exactly six fraction digits trimmed of
// trailing zeros ("12.5", "0.000001", "3").
func FormatUSD(baseUnits int64) string {
	return decimal.New(baseUnits, -USDCDecimals).String()
}

// AddInt64 adds with an overflow check.
func AddInt64(a, b int64) (int64, error) {
	s := a + b
	if (s > a) != (b > 0) {
		return 0, E(CodeAmountOverflow, "amount overflow adding %d and %d", a, b)
	}
	return s, nil
}

// SubInt64 subtracts with an overflow check.
func SubInt64(a, b int64) (int64, error) {
	if b == math.MinInt64 {
		return 0, E(CodeAmountOverflow, "amount overflow subtracting %d", b)
	}
	return AddInt64(a, -b)
}

// MulInt64 multiplies with an overflow check.
func MulInt64(a, b int64) (int64, error) {
	neg := (a < 0) != (b < 0)
	ua, ub := uint64(abs64(a)), uint64(abs64(b)) //nolint:gosec // the magnitude: abs64(MinInt64) stays negative and converts to 2^63
	hi, lo := bits.Mul64(ua, ub)
	if hi != 0 || lo > math.MaxInt64 {
		return 0, E(CodeAmountOverflow, "amount overflow multiplying %d by %d", a, b)
	}
	if neg {
		return -int64(lo), nil
	}
	return int64(lo), nil
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
