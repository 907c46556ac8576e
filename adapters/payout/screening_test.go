package payout

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ports"
)

// TestScreeningByEnvironment: TEST screens with the sandbox triggers; LIVE without a
// configured adapter fails closed with PROVIDER_UNAVAILABLE, even for an amount the sandbox
// would clear.
func TestScreeningByEnvironment(t *testing.T) {
	ctx := context.Background()
	s := ScreeningByEnvironment{core.EnvTest: SandboxScreening{}}
	got, err := s.Screen(ctx, ports.ScreeningInput{Environment: core.EnvTest, AmountBaseUnits: 10_000_091})
	if err != nil || !reflect.DeepEqual(got, []offramp.HoldReason{offramp.HoldTransactionMonitoringReview}) {
		t.Fatalf("TEST: %v %v", got, err)
	}
	for _, wired := range []ScreeningByEnvironment{s, {core.EnvTest: SandboxScreening{}, core.EnvLive: nil}} {
		_, err = wired.Screen(ctx, ports.ScreeningInput{Environment: core.EnvLive, AmountBaseUnits: 10_000_000})
		if !errors.Is(err, &core.Error{Code: core.CodeProviderUnavailable}) {
			t.Fatalf("LIVE without an adapter: %v, want PROVIDER_UNAVAILABLE", err)
		}
	}
}
