package kernel

import (
	"errors"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ports"
)

type nopStore struct{ ports.Store }

func TestRequirePorts_NamesEveryMissingPort(t *testing.T) {
	var typedNil *nopStore
	err := RequirePorts("wallets", Port{"Store", typedNil}, Port{"Jobs", nil}, Port{"Clock", ports.SystemClock{}},
		Port{"Chains", map[core.Environment]ports.Chain(nil)})
	if err == nil || err.Error() != "wallets: missing required ports: Store, Jobs, Chains" {
		t.Fatalf("err = %v", err)
	}
	if err := RequirePorts("wallets", Port{"Store", &nopStore{}}); err != nil {
		t.Fatalf("a wired port is refused: %v", err)
	}
}

func TestClampPage(t *testing.T) {
	for _, tc := range []struct{ in, want ports.Page }{
		{ports.Page{Skip: -5, Take: 0}, ports.Page{Skip: 0, Take: ports.MaxTake}},
		{ports.Page{Skip: 3, Take: 10}, ports.Page{Skip: 3, Take: 10}},
		{ports.Page{Skip: 0, Take: ports.MaxTake + 1}, ports.Page{Skip: 0, Take: ports.MaxTake}},
		{ports.Page{Skip: ports.MaxSkip, Take: 1}, ports.Page{Skip: ports.MaxSkip, Take: 1}},
		{ports.Page{Skip: 1 << 40, Take: 1}, ports.Page{Skip: ports.MaxSkip, Take: 1}},
	} {
		if got := ClampPage(tc.in); got != tc.want {
			t.Errorf("ClampPage(%+v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestChains_MissingEnvironmentIsChainUnavailable(t *testing.T) {
	_, err := Chains{core.EnvTest: nil}.Chain(core.EnvTest)
	if !errors.Is(err, &core.Error{Code: core.CodeChainUnavailable}) || !strings.Contains(err.Error(), "TEST") {
		t.Fatalf("err = %v, want CHAIN_UNAVAILABLE naming the environment", err)
	}
}

func TestNewIdempotency_RefusesMissingStore(t *testing.T) {
	if _, err := NewIdempotency(IdempotencyDeps{}); err == nil || !strings.Contains(err.Error(), "Store") {
		t.Fatalf("err = %v", err)
	}
}

func TestValidateIdempotencyKey(t *testing.T) {
	for key, ok := range map[string]bool{"abc-123": true, "": false, "has space": false, strings.Repeat("k", 256): false} {
		if got := ValidateIdempotencyKey(key) == nil; got != ok {
			t.Errorf("ValidateIdempotencyKey(%q) ok = %v, want %v", key, got, ok)
		}
	}
}

// TestRequireSandbox: TEST passes; LIVE is SANDBOX_ONLY with the feature's message; the scope
// guard refuses a missing scope before the environment.
func TestRequireSandbox(t *testing.T) {
	test := auth.Principal{Kind: auth.KindAPIKey, TenantID: "ten_1", Environment: core.EnvTest, Scopes: []auth.Scope{auth.ScopeRampsWrite}}
	live := test
	live.Environment = core.EnvLive
	if err := RequireSandboxScope(test, "ramps are sandbox only", auth.ScopeRampsWrite); err != nil {
		t.Fatalf("TEST caller refused: %v", err)
	}
	err := RequireSandbox(live, "ramps are sandbox only")
	var e *core.Error
	if !errors.As(err, &e) || e.Code != core.CodeSandboxOnly || e.Message != "ramps are sandbox only" {
		t.Fatalf("LIVE caller: %v, want SANDBOX_ONLY with the message", err)
	}
	if err := RequireSandboxScope(live, "x", auth.ScopeTreasuryWrite); !core.HasCode(err, core.CodeInsufficientScope) {
		t.Fatalf("missing scope on LIVE: %v, want INSUFFICIENT_SCOPE first", err)
	}
}
