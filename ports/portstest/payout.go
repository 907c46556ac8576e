package portstest

import (
	"context"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// PayoutProvider is the contract of ports.PayoutProvider for a provider in its default,
// successful script (an amount ending in "00" for the mock): Submit is idempotent per key and
// reports SUBMITTED with a reference; each Poll moves the payout one step, PENDING then a
// final SUCCEEDED that stays final; distinct keys are distinct payouts; an unknown reference
// and an empty key are refused.
func PayoutProvider(t *testing.T, newProvider func(t *testing.T) ports.PayoutProvider) {
	ctx := context.Background()
	request := func() ports.PayoutRequest {
		id := core.NewID(core.PrefixOffRamp)
		return ports.PayoutRequest{IdempotencyKey: id + ":attempt:1", PaymentID: id, Environment: core.EnvTest,
			AmountBaseUnits: 10_000_000, DeliverBaseUnits: 9_900_000, DestinationAmountMinor: 990, DestinationCurrency: "USD"}
	}
	t.Run("Submit is idempotent per key", func(t *testing.T) {
		p := newProvider(t)
		if p.Name() == "" {
			t.Fatal("a provider has a name")
		}
		r := request()
		first, err := p.Submit(ctx, r)
		if err != nil || first.State != ports.PayoutSubmitted || first.Reference == "" || first.Final {
			t.Fatalf("Submit = %+v, %v", first, err)
		}
		again, err := p.Submit(ctx, r)
		if err != nil || again.Reference != first.Reference {
			t.Fatalf("a retried Submit = %+v, %v; want reference %s", again, err, first.Reference)
		}
		other, err := p.Submit(ctx, request())
		if err != nil || other.Reference == first.Reference {
			t.Fatalf("another key got %+v, %v", other, err)
		}
	})
	t.Run("Poll steps to a final state and stays there", func(t *testing.T) {
		p := newProvider(t)
		s, err := p.Submit(ctx, request())
		if err != nil {
			t.Fatal(err)
		}
		want := []ports.PayoutStatus{{Reference: s.Reference, State: ports.PayoutPending}, {Reference: s.Reference, State: ports.PayoutSucceeded, Final: true},
			{Reference: s.Reference, State: ports.PayoutSucceeded, Final: true}}
		for i, w := range want {
			got, err := p.Poll(ctx, s.Reference)
			if err != nil || got != w {
				t.Fatalf("poll %d = %+v, %v; want %+v", i+1, got, err, w)
			}
		}
	})
	t.Run("an unknown reference and an empty key are refused", func(t *testing.T) {
		p := newProvider(t)
		if _, err := p.Poll(ctx, "unknown_"+core.RandomToken(8)); err == nil {
			t.Fatal("Poll of an unknown reference answered")
		}
		r := request()
		r.IdempotencyKey = ""
		if _, err := p.Submit(ctx, r); err == nil {
			t.Fatal("Submit without an idempotency key answered")
		}
	})
}
