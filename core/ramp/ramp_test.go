package ramp

import (
	"errors"
	"testing"

	"github.com/corridorhq/corridor/core"
)

// TestLiveStatus walks every linked status of a drip (ON) and a Safe payment (OFF).
func TestLiveStatus(t *testing.T) {
	for _, tc := range []struct {
		direction Direction
		linked    string
		want      Status
	}{
		{DirectionOn, "SUBMITTED", StatusSubmitted},
		{DirectionOn, "CONFIRMED", StatusConfirmed},
		{DirectionOn, "FAILED", StatusFailed},
		{DirectionOff, "CREATED", StatusSubmitted},
		{DirectionOff, "AWAITING_SIGNATURE", StatusSubmitted},
		{DirectionOff, "READY_TO_EXECUTE", StatusSubmitted},
		{DirectionOff, "EXECUTING", StatusSubmitted},
		{DirectionOff, "COMPLETED", StatusConfirmed},
		{DirectionOff, "FAILED", StatusFailed},
		{DirectionOff, "CANCELLED", StatusFailed},
		// A drip is never COMPLETED and a payment never CONFIRMED: neither confirms the other.
		{DirectionOn, "COMPLETED", StatusSubmitted},
		{DirectionOff, "CONFIRMED", StatusSubmitted},
	} {
		if got := LiveStatus(tc.direction, tc.linked); got != tc.want {
			t.Errorf("%s with %s: %s, want %s", tc.direction, tc.linked, got, tc.want)
		}
	}
}

func TestFiatRef_OnlyOnceConfirmedAndStable(t *testing.T) {
	r := Ramp{ID: "rmp_06h0abc", Direction: DirectionOff}
	if got := FiatRef(r, StatusSubmitted); got != "" {
		t.Errorf("SUBMITTED fiatRef %q", got)
	}
	if got := FiatRef(r, StatusConfirmed); got != "simfiat_off_06h0abc" || got != FiatRef(r, StatusConfirmed) {
		t.Errorf("CONFIRMED fiatRef %q", got)
	}
}

func TestParseRequest(t *testing.T) {
	p := func(s string) *string { return &s }
	for _, tc := range []struct {
		name                      string
		wallet, direction, amount string
		provider                  *string
		code                      core.Code
	}{
		{"on", "wal_1", "on", "1", nil, ""},
		{"off with simulated", "wal_1", "off", "0.000001", p("simulated"), ""},
		{"provider case", "wal_1", "on", "1", p(" Simulated "), ""},
		{"moonpay", "wal_1", "on", "1", p("moonpay"), CodeRampProviderNotAvailable},
		{"unknown provider", "wal_1", "on", "1", p("acme"), core.CodeValidationFailed},
		{"no wallet", "", "on", "1", nil, core.CodeValidationFailed},
		{"ON is the response spelling", "wal_1", "ON", "1", nil, core.CodeValidationFailed},
		{"zero", "wal_1", "on", "0", nil, core.CodeValidationFailed},
		{"too precise", "wal_1", "on", "0.0000001", nil, core.CodeValidationFailed},
		// A body with both a bad field and a recognized vendor is a validation error first.
		{"bad field and vendor", "", "on", "1", p("transak"), core.CodeValidationFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseRequest(tc.wallet, tc.direction, tc.amount, tc.provider)
			if tc.code == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if !errors.Is(err, &core.Error{Code: tc.code}) {
				t.Fatalf("err = %v, want %s", err, tc.code)
			}
		})
	}
}

func TestLimits(t *testing.T) {
	l := Limits{PerTransaction: 100, PerTenantDaily: 250}
	if l.CheckAmount(100) != nil || !errors.Is(l.CheckAmount(101), &core.Error{Code: CodeRampAmountTooLarge}) {
		t.Error("per-transaction cap: at the cap passes, above it is refused")
	}
	if l.CheckDaily(150, 100) != nil || !errors.Is(l.CheckDaily(151, 100), &core.Error{Code: CodeRampDailyCap}) {
		t.Error("daily cap: filling it passes, passing it is refused")
	}
}
