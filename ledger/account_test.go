package ledger

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

func TestWellKnownAccounts(t *testing.T) {
	tests := []struct {
		name            string
		spec            AccountSpec
		wantReference   string
		wantKind        string
		wantNonNegative bool
	}{
		{"tenant available", TenantAvailable(core.EnvTest, AssetUSDC, "ten_1"), "tenant:ten_1:available", KindTenantAvailable, true},
		{"offramp reserved", OfframpReserved(core.EnvTest, AssetUSDC, "ten_1", "ofp_1"), "offramp:ofp_1:reserved", KindOfframpReserved, true},
		{"offramp locked", OfframpLocked(core.EnvTest, AssetUSDC, "ten_1", "ofp_1"), "offramp:ofp_1:locked", KindOfframpLocked, true},
		{"claim escrow", ClaimEscrow(core.EnvTest, AssetUSDC, "ten_1", "clm_1"), "claim:clm_1:escrow", KindClaimEscrow, true},
		{"wallet onchain", WalletOnchain(core.EnvLive, AssetUSDC, "ten_1", "wal_1"), "wallet:wal_1:onchain", KindWalletOnchain, true},
		{"treasury yield", TreasuryYield(core.EnvLive, AssetUSDC, "ten_1", "bkt_1"), "treasury:bkt_1:yield", KindTreasuryYield, true},
		{"provider clearing", ProviderClearing(core.EnvLive, AssetUSDC, "mock"), "provider:mock:clearing", KindProviderClearing, true},
		{"platform fees", PlatformFees(core.EnvLive, AssetUSDC), "platform:fees", KindPlatformFees, true},
		{"sandbox pool goes negative", PlatformSandboxPool(core.EnvTest, AssetUSDC), "platform:sandbox_pool", KindPlatformSandboxPool, false},
		{"sandbox yield goes negative", PlatformSandboxYield(core.EnvTest, AssetUSDC), "platform:sandbox_yield", KindPlatformSandboxYield, false},
		{"world goes negative", World(core.EnvLive, AssetUSD, "ach"), "world:ach", KindWorld, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAccount(core.NewID(core.PrefixAccount), tc.spec, t0)
			if err != nil {
				t.Fatal(err)
			}
			if a.Reference != tc.wantReference || a.Kind != tc.wantKind || a.NonNegative != tc.wantNonNegative {
				t.Fatalf("account = %+v", a)
			}
			if a.Spec() != tc.spec {
				t.Fatalf("Spec() = %+v, want %+v", a.Spec(), tc.spec)
			}
		})
	}
}

func TestNewAccount(t *testing.T) {
	good := TenantAvailable(core.EnvTest, AssetUSDC, "ten_1")
	tests := []struct {
		name     string
		id       string
		spec     AccountSpec
		at       time.Time
		wantCode core.Code
	}{
		{"valid", core.NewID(core.PrefixAccount), good, t0, ""},
		{"id must be an account id", core.NewID(core.PrefixTransfer), good, t0, core.CodeValidationFailed},
		{"environment is required", core.NewID(core.PrefixAccount), AccountSpec{Asset: AssetUSDC, Kind: "k", Reference: "r"}, t0, core.CodeValidationFailed},
		{"asset must be upper case", core.NewID(core.PrefixAccount), withSpecAsset(good, "usdc"), t0, core.CodeValidationFailed},
		{"kind must be snake case", core.NewID(core.PrefixAccount), withSpecKind(good, "Tenant-Available"), t0, core.CodeValidationFailed},
		{"a new kind is accepted", core.NewID(core.PrefixAccount), withSpecKind(good, "card_authorizations"), t0, ""},
		{"reference refuses spaces", core.NewID(core.PrefixAccount), withSpecReference(good, "tenant: x"), t0, core.CodeValidationFailed},
		{"the sandbox pool is TEST only", core.NewID(core.PrefixAccount), PlatformSandboxPool(core.EnvLive, AssetUSDC), t0, core.CodeValidationFailed},
		{"sandbox yield is TEST only", core.NewID(core.PrefixAccount), PlatformSandboxYield(core.EnvLive, AssetUSDC), t0, core.CodeValidationFailed},
		{"creation time is required", core.NewID(core.PrefixAccount), good, time.Time{}, core.CodeValidationFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAccount(tc.id, tc.spec, tc.at)
			if got := codeOf(t, err); got != tc.wantCode {
				t.Fatalf("code = %q, want %q (err %v)", got, tc.wantCode, err)
			}
			if err == nil && (a.CreatedAt.Location() != time.UTC || a.CreatedAt.Nanosecond()%1000 != 0) {
				t.Fatalf("createdAt %v is not UTC microseconds", a.CreatedAt)
			}
		})
	}
}

func withSpecAsset(s AccountSpec, v string) AccountSpec     { s.Asset = v; return s }
func withSpecKind(s AccountSpec, v string) AccountSpec      { s.Kind = v; return s }
func withSpecReference(s AccountSpec, v string) AccountSpec { s.Reference = v; return s }
