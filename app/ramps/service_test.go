package ramps

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

type nopStore struct{ ports.Store }

type nopCredits struct{}

func (nopCredits) CreditFromPool(context.Context, auth.Principal, string, int64) (wallet.Drip, error) {
	return wallet.Drip{}, nil
}

func (nopCredits) RunDrip(context.Context, string, string) (time.Duration, error) { return 0, nil }

type nopPayments struct{}

func (nopPayments) ReadRampPayment(context.Context, auth.Principal, safepay.Request) (PaymentRead, error) {
	return func(context.Context, auth.Principal) (safepay.Payment, error) { return safepay.Payment{}, nil }, nil
}

const devLiquidation = "0x000000000000000000000000000000000000dEaD"

// TestNew_NamesMissingPorts: wiring that forgets a port fails at start-up, naming it.
func TestNew_NamesMissingPorts(t *testing.T) {
	_, err := New(Deps{LiquidationAddress: devLiquidation})
	if err == nil || !strings.Contains(err.Error(), "Store") || !strings.Contains(err.Error(), "Credits") || !strings.Contains(err.Error(), "Payments") {
		t.Fatalf("New = %v, want the missing ports named", err)
	}
}

// TestNew_RefusesABadLiquidationAddress: off-ramps must have somewhere to pay.
func TestNew_RefusesABadLiquidationAddress(t *testing.T) {
	for _, addr := range []string{"", "0x123", "dead", "0x000000000000000000000000000000000000dEaZ"} {
		if _, err := New(Deps{Store: nopStore{}, Credits: nopCredits{}, Payments: nopPayments{}, LiquidationAddress: addr}); err == nil {
			t.Errorf("liquidation address %q accepted", addr)
		}
	}
	s, err := New(Deps{Store: nopStore{}, Credits: nopCredits{}, Payments: nopPayments{}, LiquidationAddress: devLiquidation})
	if err != nil || s.limits != DefaultLimits {
		t.Fatalf("New = %v, want the default limits", err)
	}
}

// TestRamps_SandboxOnly: a LIVE principal is refused before anything is read.
func TestRamps_SandboxOnly(t *testing.T) {
	s, err := New(Deps{Store: nopStore{}, Credits: nopCredits{}, Payments: nopPayments{}, LiquidationAddress: devLiquidation})
	if err != nil {
		t.Fatal(err)
	}
	live := auth.Principal{Kind: auth.KindAPIKey, TenantID: "ten_1", Environment: core.EnvLive, Scopes: []auth.Scope{auth.ScopeRoot}}
	sandboxOnly := &core.Error{Code: core.CodeSandboxOnly}
	if _, err := s.ReadRamp(context.Background(), live, Input{}); !errors.Is(err, sandboxOnly) {
		t.Errorf("ReadRamp: %v", err)
	}
	if _, err := s.GetRamp(context.Background(), live, "rmp_x"); !errors.Is(err, sandboxOnly) {
		t.Errorf("GetRamp: %v", err)
	}
	if _, _, err := s.ListRamps(context.Background(), live, "", ports.Page{}); !errors.Is(err, sandboxOnly) {
		t.Errorf("ListRamps: %v", err)
	}
}
