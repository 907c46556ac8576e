package payout

import (
	"context"
	"reflect"
	"testing"

	"github.com/corridorhq/corridor/ports"
)

func TestScript(t *testing.T) {
	cases := map[int64][]ports.PayoutState{
		10_000_000: {ports.PayoutPending, ports.PayoutSucceeded},
		10_000_003: {ports.PayoutBlocked, ports.PayoutFailed},
		10_000_007: {ports.PayoutSucceeded, ports.PayoutReturned},
		10_000_042: {ports.PayoutPending, ports.PayoutSucceeded},
		10_000_103: {ports.PayoutBlocked, ports.PayoutFailed},
	}
	slow := Script(10_000_005)
	if len(slow) != SlowSteps+1 || slow[0] != ports.PayoutPending || slow[SlowSteps-1] != ports.PayoutPending || slow[SlowSteps] != ports.PayoutSucceeded {
		t.Fatalf("05: %d steps, first %s, last %s", len(slow), slow[0], slow[len(slow)-1])
	}
	for amount, want := range cases {
		if got := Script(amount); !reflect.DeepEqual(got, want) {
			t.Fatalf("%d: %v, want %v", amount, got, want)
		}
	}
}

func TestInternal(t *testing.T) {
	ctx := context.Background()
	s, err := Internal{}.Submit(ctx, ports.PayoutRequest{IdempotencyKey: "ofp_1:attempt:1", AmountBaseUnits: 1})
	if err != nil || s.State != ports.PayoutSubmitted || s.Final {
		t.Fatalf("submit %+v %v", s, err)
	}
	again, _ := Internal{}.Submit(ctx, ports.PayoutRequest{IdempotencyKey: "ofp_1:attempt:1", AmountBaseUnits: 1})
	if again.Reference != s.Reference {
		t.Fatal("a retried submit got another reference")
	}
	p, err := Internal{}.Poll(ctx, s.Reference)
	if err != nil || p.State != ports.PayoutSucceeded || !p.Final {
		t.Fatalf("poll %+v %v", p, err)
	}
}

// TestMockSubmitRevoked: an amount ending in "09" is refused at submission with
// DESTINATION_REVOKED, without a reference, before anything is recorded (so retries agree).
func TestMockSubmitRevoked(t *testing.T) {
	m := &Mock{name: "wallet_a"} // no database: the refusal records nothing
	for range 2 {
		s, err := m.Submit(context.Background(), ports.PayoutRequest{IdempotencyKey: "ofp_1:attempt:1", AmountBaseUnits: 10_000_009})
		if err != nil || s.State != ports.PayoutDestinationRevoked || s.Reference != "" {
			t.Fatalf("submit of a 09 amount: %+v %v", s, err)
		}
	}
}
