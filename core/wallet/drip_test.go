package wallet

import (
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

func TestParseDripRequest(t *testing.T) {
	ok := []struct {
		name          string
		asset, amount *string
		want          DripRequest
	}{
		{"defaults to 250 usdc", nil, nil, DripRequest{AssetUSDC, 250_000_000}},
		{"eth default", strp("eth"), nil, DripRequest{AssetETH, 20_000_000_000_000_000}},
		{"asset any case", strp(" USDC "), strp("1.5"), DripRequest{AssetUSDC, 1_500_000}},
		{"usdc max", nil, strp("1000"), DripRequest{AssetUSDC, 1_000_000_000}},
		{"smallest usdc", nil, strp("0.000001"), DripRequest{AssetUSDC, 1}},
		{"eth max", strp("eth"), strp("0.020000"), DripRequest{AssetETH, 20_000_000_000_000_000}},
		{"one wei", strp("eth"), strp("0.000000000000000001"), DripRequest{AssetETH, 1}},
	}
	for _, tc := range ok {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDripRequest(tc.asset, tc.amount)
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	bad := []struct {
		name          string
		asset, amount *string
		field         string
	}{
		{"unknown asset", strp("btc"), nil, "asset"},
		{"zero", nil, strp("0"), "amount"},
		{"negative", nil, strp("-1"), "amount"},
		{"above usdc max", nil, strp("1000.000001"), "amount"},
		{"seven usdc decimals", nil, strp("1.0000001"), "amount"},
		{"exponent", nil, strp("1e3"), "amount"},
		{"not a number", nil, strp("lots"), "amount"},
		{"empty", nil, strp(""), "amount"},
		{"above eth max", strp("eth"), strp("0.021"), "amount"},
		{"nineteen eth decimals", strp("eth"), strp("0.0000000000000000001"), "amount"},
		{"beyond int64", nil, strp("99999999999999999999999"), "amount"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDripRequest(tc.asset, tc.amount)
			var e *core.Error
			if !errors.As(err, &e) || e.Code != core.CodeValidationFailed {
				t.Fatalf("err = %v", err)
			}
			if _, ok := e.Details["fields"].(map[string]any)[tc.field]; !ok {
				t.Fatalf("field %s not named: %v", tc.field, e.Details)
			}
		})
	}
}

func TestFormatAmount(t *testing.T) {
	if got := FormatAmount(AssetUSDC, 250_000_000); got != "250" {
		t.Fatalf("usdc %s", got)
	}
	if got := FormatAmount(AssetETH, 20_000_000_000_000_000); got != "0.02" {
		t.Fatalf("eth %s", got)
	}
	huge, _ := new(big.Int).SetString("123456789000000000000000001", 10)
	if got := FormatBigAmount(AssetETH, huge); got != "123456789.000000000000000001" {
		t.Fatalf("big eth %s", got)
	}
	if got := FormatBigAmount(AssetUSDC, new(big.Int)); got != "0" {
		t.Fatalf("zero %s", got)
	}
}

// TestDrip_Transitions walks docs/api.md's drip table (SUBMITTED to CONFIRMED or FAILED) with the
// job's steps, and refuses everything else.
func TestDrip_Transitions(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	all := []DripStatus{DripSubmitted, DripConfirmed, DripFailed}
	triggers := []DripTrigger{DripSendStarted, DripSent, DripMined, DripFailedOnChain}
	for _, from := range all {
		for _, trig := range triggers {
			d := Drip{Status: from, SendStartedAt: &now, TxHash: "0xabc"}
			if trig == DripSendStarted {
				d.SendStartedAt = nil
			}
			if trig == DripSent {
				d.TxHash = ""
			}
			got, err := d.Apply(trig, now, "0xdef", 7, "why")
			to, allowed := dripTransitions[dripTransition{from, trig}]
			if !allowed {
				if !errors.Is(err, core.ErrInvalidState) || got.Status != from {
					t.Errorf("%s on %s: got %s, %v; want INVALID_STATE", from, trig, got.Status, err)
				}
				continue
			}
			if from != DripSubmitted || err != nil || got.Status != to {
				t.Errorf("%s on %s: got %s, %v; want %s", from, trig, got.Status, err, to)
			}
		}
	}

	d := Drip{ID: "drp_1", Status: DripSubmitted}
	if _, err := d.Apply(DripSent, now, "0x1", 0, ""); !errors.Is(err, core.ErrInvalidState) {
		t.Fatalf("a hash before the send started: %v", err)
	}
	if _, err := d.Apply(DripMined, now, "", 0, ""); !errors.Is(err, core.ErrInvalidState) {
		t.Fatalf("mined without a hash: %v", err)
	}
	d, _ = d.Apply(DripSendStarted, now, "", 42, "")
	if d.SendStartedAt == nil || d.SendFromBlock != 42 || d.Status != DripSubmitted {
		t.Fatalf("send started: %+v", d)
	}
	if _, err := d.Apply(DripSendStarted, now, "", 43, ""); !errors.Is(err, core.ErrInvalidState) {
		t.Fatalf("a second send started: %v", err)
	}
	d, _ = d.Apply(DripSent, now, "0x1", 0, "")
	if _, err := d.Apply(DripSent, now, "0x2", 0, ""); !errors.Is(err, core.ErrInvalidState) {
		t.Fatalf("a second hash: %v", err)
	}
	d, _ = d.Apply(DripMined, now, "", 0, "")
	if d.Status != DripConfirmed || d.TxHash != "0x1" || !d.Status.Terminal() {
		t.Fatalf("confirmed: %+v", d)
	}
	f, _ := Drip{Status: DripSubmitted}.Apply(DripFailedOnChain, now, "", 0, "reverted")
	if f.Status != DripFailed || f.FailureReason != "reverted" {
		t.Fatalf("failed: %+v", f)
	}
}

func TestFaucetLimits(t *testing.T) {
	l := FaucetLimits{PerWallet: 2}.WithDefaults()
	if l.PerWallet != 2 || l.PerTenant != 50 || l.Window != time.Hour {
		t.Fatalf("defaults %+v", l)
	}
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	e := l.QuotaExceeded("wallet", 2, now.Add(-59*time.Minute-30*time.Second), now)
	if e.Code != core.CodeRateLimited || e.Details["retryAfterSeconds"] != "30" || e.Details["scope"] != "wallet" {
		t.Fatalf("quota error %+v", e)
	}
	if e := l.QuotaExceeded("tenant", 50, now.Add(-2*time.Hour), now); e.Details["retryAfterSeconds"] != "1" {
		t.Fatalf("at least one second: %+v", e.Details)
	}
}

func TestParseHandle(t *testing.T) {
	for in, want := range map[string]string{"acme": "acme", "@Acme_Pay-1": "acme_pay-1", " abc ": "abc", "a2345678901234567890123456789012": "a2345678901234567890123456789012"} {
		if got, err := ParseHandle(in); err != nil || got != want {
			t.Errorf("%q: got %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "@", "ab", "a23456789012345678901234567890123", "_abc", "abc-", "a.bc", "ab c", "añb", "@@abc"} {
		if _, err := ParseHandle(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}
