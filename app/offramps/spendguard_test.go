package offramps

import (
	"context"
	"fmt"
	"testing"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/core/spend"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// recordingGuard is the spend guard with a double around it: it records the steps Decide runs
// and whether a call is inside Decide, so a test proves the service balance's spend policy is
// decided there and nowhere else.
type recordingGuard struct {
	real   *kernel.SpendGuard
	inside bool
	steps  []string
}

func (g *recordingGuard) Decide(ctx context.Context, tx kernel.SpendTx, req spend.Request, checks kernel.SpendChecks) (string, *core.Error, error) {
	g.inside = true
	defer func() { g.inside = false }()
	g.steps = append(g.steps, "decide")
	if policy := checks.Policy; policy != nil {
		checks.Policy = func(ctx context.Context) (*core.Error, error) {
			g.steps = append(g.steps, "policy")
			return policy(ctx)
		}
	}
	return g.real.Decide(ctx, tx, req, checks)
}

// insidePolicy is the sender's spend policy answering scripted reasons; it fails the test when
// it is asked outside the guard's Decide.
type insidePolicy struct {
	t     *testing.T
	guard *recordingGuard
	holds []offramp.HoldReason
	calls int
}

func (p *insidePolicy) SenderSpendHolds(context.Context, offramp.Payment) []offramp.HoldReason {
	p.calls++
	if !p.guard.inside {
		p.t.Error("the off-ramp spend policy was evaluated outside kernel.SpendGuard.Decide")
	}
	return p.holds
}

// guardedWorld is newCreateWorld with its service rebuilt around a recording guard and a
// scripted policy.
func guardedWorld(t *testing.T, holds ...offramp.HoldReason) (*createWorld, *recordingGuard, *insidePolicy) {
	t.Helper()
	w := newCreateWorld(t, 100_000_000)
	guard := &recordingGuard{real: kernel.NewSpendGuard(w.clock.Now)}
	pol := &insidePolicy{t: t, guard: guard, holds: holds}
	d := w.svc
	svc, err := New(Deps{Store: w.store, Jobs: d.jobs, Clock: w.clock, Recipients: d.recipients, RecipientChanged: &kernel.Subscribers[recipient.Changed]{},
		Screening: d.screening, SpendPolicy: pol, Payouts: d.payouts, SourceChains: d.sourceChains, Guard: guard})
	if err != nil {
		t.Fatal(err)
	}
	w.svc = svc
	return w, guard, pol
}

// TestOfframp_PolicyIsDecidedInsideTheSpendGuard: creating a payment decides the service
// balance's spend policy once, as the policy step of the guard's Decide, before anything is
// reserved; the composer applies that answer: an allow quotes, a deny cancels with nothing
// reserved, a policy outage holds the reserved payment. A re-evaluation decides again, inside
// Decide too.
func TestOfframp_PolicyIsDecidedInsideTheSpendGuard(t *testing.T) {
	for _, tc := range []struct {
		name     string
		holds    []offramp.HoldReason
		status   offramp.Status
		reserved int64
	}{
		{"an allow reserves and quotes", nil, offramp.StatusAwaitingRecipientConfirmation, 40_000_000},
		{"a deny reserves nothing and cancels", []offramp.HoldReason{offramp.RejectPolicyDenied}, offramp.StatusCanceled, 0},
		{"an outage holds the reserved payment", []offramp.HoldReason{offramp.HoldPolicySubsystemError}, offramp.StatusComplianceHold, 40_000_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, guard, pol := guardedWorld(t, tc.holds...)
			pay := w.create(t, "40").Payment
			if pay.Status != tc.status || fmt.Sprint(pay.HoldReasons) != fmt.Sprint(nonNil(tc.holds)) {
				t.Fatalf("payment %+v", pay)
			}
			// The unit of work runs again after its outside read (screening), so intake may
			// decide more than once; each run decides once, in Decide.
			if pol.calls == 0 || fmt.Sprint(guard.steps) != fmt.Sprint(repeat(pol.calls, "decide", "policy")) {
				t.Fatalf("policy calls %d, guard steps %v", pol.calls, guard.steps)
			}
			before := pol.calls
			if got := 100_000_000 - w.available(t, ledger.TenantAvailableRef(w.sender.TenantID)); got != tc.reserved {
				t.Fatalf("reserved %d, want %d", got, tc.reserved)
			}
			err := w.store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
				_, err := w.svc.Decide(ctx, tx, pay)
				return err
			})
			if err != nil || pol.calls <= before || fmt.Sprint(guard.steps) != fmt.Sprint(repeat(pol.calls, "decide", "policy")) {
				t.Fatalf("re-evaluation: %v, policy calls %d, guard steps %v", err, pol.calls, guard.steps)
			}
		})
	}
}

func nonNil(r []offramp.HoldReason) []offramp.HoldReason {
	if r == nil {
		return []offramp.HoldReason{}
	}
	return r
}

func repeat(n int, steps ...string) []string {
	var out []string
	for range n {
		out = append(out, steps...)
	}
	return out
}
