package outside_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/outside"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ports"
)

type openTx struct{}

// inUnit stands in for postgres.InUnitOfWork: a context marked openTx carries a transaction.
func inUnit(ctx context.Context) bool { return ctx.Value(openTx{}) != nil }

type calls struct{ n int }

func (c *calls) Name() string { return "fake" }
func (c *calls) IssueCard(context.Context, ports.IssueCardInput) (ports.IssuedCard, error) {
	c.n++
	return ports.IssuedCard{IssuerCardID: "ic_1", Last4: "4242"}, nil
}
func (c *calls) SetCardStatus(context.Context, string, bool) error { c.n++; return nil }
func (c *calls) CreateEphemeralKey(context.Context, ports.EphemeralKeyInput) (ports.EphemeralKey, error) {
	c.n++
	return ports.EphemeralKey{}, nil
}
func (c *calls) Send(context.Context, ports.SMSMessage, time.Time) error { c.n++; return nil }
func (c *calls) Screen(context.Context, ports.ScreeningInput) ([]offramp.HoldReason, error) {
	c.n++
	return nil, nil
}
func (c *calls) Submit(context.Context, ports.PayoutRequest) (ports.PayoutStatus, error) {
	c.n++
	return ports.PayoutStatus{}, nil
}
func (c *calls) Poll(context.Context, string) (ports.PayoutStatus, error) {
	c.n++
	return ports.PayoutStatus{}, nil
}

type networked struct{ *calls }

func (networked) Network(core.Environment) (string, bool) { return "eip155:84532", true }

// TestGuard_RefusesCallsInsideAUnitOfWork: every guarded port refuses a call whose context
// carries an open transaction, without reaching the adapter, and the guard names each call;
// the same calls outside a transaction go through.
func TestGuard_RefusesCallsInsideAUnitOfWork(t *testing.T) {
	g := outside.Enforce(inUnit)
	fake := &calls{}
	issuer, sms, screening, payout := outside.Issuer{CardIssuer: fake}, outside.SMS{SMS: fake}, outside.Screening{Screening: fake}, outside.WrapPayout(fake)
	run := func(ctx context.Context) []error {
		_, e1 := issuer.IssueCard(ctx, ports.IssueCardInput{})
		e2 := issuer.SetCardStatus(ctx, "ic_1", false)
		_, e3 := issuer.CreateEphemeralKey(ctx, ports.EphemeralKeyInput{})
		e4 := sms.Send(ctx, ports.SMSMessage{}, time.Now())
		_, e5 := screening.Screen(ctx, ports.ScreeningInput{})
		_, e6 := payout.Submit(ctx, ports.PayoutRequest{})
		_, e7 := payout.Poll(ctx, "ref")
		return []error{e1, e2, e3, e4, e5, e6, e7}
	}
	for i, err := range run(context.Background()) {
		if err != nil {
			t.Fatalf("call %d outside a transaction refused: %v", i, err)
		}
	}
	if fake.n != 7 || g.Err() != nil {
		t.Fatalf("outside a transaction: %d calls reached the adapter, guard %v", fake.n, g.Err())
	}
	for i, err := range run(context.WithValue(context.Background(), openTx{}, true)) {
		var ce *core.Error
		if !errors.As(err, &ce) || ce.Code != core.CodeInternal {
			t.Fatalf("call %d inside a transaction answered %v, want INTERNAL", i, err)
		}
	}
	want := []string{"CardIssuer.IssueCard", "CardIssuer.SetCardStatus", "CardIssuer.CreateEphemeralKey", "SMS.Send",
		"Screening.Screen", "PayoutProvider.Submit", "PayoutProvider.Poll"}
	got := g.Violations()
	if fake.n != 7 || len(got) != len(want) {
		t.Fatalf("inside a transaction: %d calls reached the adapter, violations %v", fake.n, got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("violations %v, want %v", got, want)
		}
	}
	if outside.Check(context.WithValue(context.Background(), openTx{}, true), "Chain.send") == nil {
		t.Fatal("the chain's send point was not refused")
	}
}

// TestGuard_WrapPayoutKeepsTheNetwork: the decorator keeps a provider's NetworkPayout side
// (rail selection asks it), and adds none to a provider without one.
func TestGuard_WrapPayoutKeepsTheNetwork(t *testing.T) {
	if _, ok := outside.WrapPayout(networked{&calls{}}).(ports.NetworkPayout); !ok {
		t.Fatal("a networked provider lost its network")
	}
	if _, ok := outside.WrapPayout(&calls{}).(ports.NetworkPayout); ok {
		t.Fatal("a provider without a network gained one")
	}
}
