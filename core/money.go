package core

import (
	"math"
	"math/bits"

	"github.com/shopspring/decimal"
)

// USDCDecimals is the number of fraction digits of USDC and of USD amounts (1 USD = 1_000_000).
const USDCDecimals = 6

// ParseUSD parses a decimal string into base units exactly. More than six fraction digits, a
// negative or non-numeric value, or a value that does not fit int64 is refused, never rounded.
func ParseUSD(field, s string) (int64, error) {
	if s == "" {
		return 0, Invalid(field, "is required")
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return 0, Invalid(field, "must be a decimal string such as \"12.50\"")
	}
	if d.Exponent() < -USDCDecimals && !d.Equal(d.Truncate(USDCDecimals)) {
		return 0, Invalid(field, "must have at most 6 fraction digits")
	}
	if d.Sign() < 0 {
		return 0, Invalid(field, "must not be negative")
	}
	scaled := d.Shift(USDCDecimals)
	if scaled.GreaterThan(decimal.NewFromInt(math.MaxInt64)) {
		return 0, Invalid(field, "is too large")
	}
	return scaled.IntPart(), nil
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
	ua, ub := uint64(abs64(a)), uint64(abs64(b))
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
