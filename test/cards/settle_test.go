package cards

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/adapters/issuer"
	"github.com/corridorhq/corridor/app/cards"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/ports"
)

// scriptedModule is the real module's reads with a scripted SettleCardSpend.
type scriptedModule struct {
	ports.CardSpendModule
	settle func() (common.Hash, error)
}

func (m scriptedModule) SettleCardSpend(context.Context, common.Address, *big.Int, [32]byte) (common.Hash, error) {
	return m.settle()
}

// recordedJobs keeps the capture's settlement jobs from the shared worker (the test runs the
// settlement step itself) and records them.
type recordedJobs struct {
	mu   sync.Mutex
	auth []string
}

func (j *recordedJobs) Enqueue(_ context.Context, args ports.JobArgs, _ ports.JobOptions) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if a, ok := args.(cards.SettleArgs); ok {
		j.auth = append(j.auth, a.AuthorizationID)
	}
	return nil
}

// TestCards_SettlementFailuresAreRecorded: a node error is recorded on the authorization and
// returned (River retries it); a refusal by the module is FAILED with its reason and not retried.
func TestCards_SettlementFailuresAreRecorded(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 10)
	var script func() (common.Hash, error)
	jobs := &recordedJobs{}
	svc, err := cards.New(cards.Deps{Store: env().Service.Store, Jobs: jobs, Issuer: issuer.NewSandbox(),
		PolicyGate: env().Service.Policy, Chains: map[core.Environment]ports.Chain{core.EnvTest: env().Chain},
		Modules: map[core.Environment]ports.CardSpendModule{core.EnvTest: scriptedModule{CardSpendModule: env().Chain,
			settle: func() (common.Hash, error) { return script() }}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p := auth.Principal{Kind: auth.KindAPIKey, TenantID: ten.ID, Environment: core.EnvTest, Scopes: []auth.Scope{auth.ScopeRoot}}
	read, err := svc.ReadIssue(ctx, p, w.ID, cards.IssueInput{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := svc.Issue(ctx, p, read)
	if err != nil {
		t.Fatal(err)
	}
	a, err := svc.Authorize(ctx, p, c.ID, cards.AuthorizeInput{AmountUsd: "3", MCC: "5411", MerchantName: "shop"})
	if err != nil || a.Status != card.AuthApproved {
		t.Fatalf("authorize: %+v %v", a, err)
	}
	if a, err = svc.Capture(ctx, p, a.ID, cards.CaptureInput{}); err != nil || a.SettlementStatus != card.SettlementPending {
		t.Fatalf("capture: %+v %v", a, err)
	}
	stored := func() card.Authorization {
		list, _, err := svc.ListAuthorizations(ctx, p, c.ID, ports.Page{Take: 10})
		if err != nil || len(list) != 1 {
			t.Fatalf("list: %v %v", list, err)
		}
		return list[0]
	}

	script = func() (common.Hash, error) { return common.Hash{}, errors.New("node: connection refused") }
	if _, err := svc.RunSettlement(ctx, a.TenantID, a.ID); err == nil {
		t.Fatal("a node error must be returned for River to retry")
	}
	if got := stored(); got.SettlementStatus != card.SettlementPending || got.SettlementError != "node: connection refused" {
		t.Fatalf("after a node error: %+v", got)
	}

	// A settlement left PENDING (its job out of attempts) is enqueued again by the sweep once
	// stale.
	if _, err := env().Service.Store.DB().ExecContext(ctx,
		"UPDATE card_authorizations SET updated_at = now() - interval '1 hour' WHERE id = ?", a.ID); err != nil {
		t.Fatal(err)
	}
	before := len(jobs.auth)
	if _, err := svc.SweepSettlements(ctx); err != nil || !slices.Contains(jobs.auth[before:], a.ID) {
		t.Fatalf("sweep: %v %v", jobs.auth, err)
	}

	script = func() (common.Hash, error) {
		return common.Hash{}, &ports.RevertError{Reason: "GS104", Meaning: "module not enabled"}
	}
	if _, err := svc.RunSettlement(ctx, a.TenantID, a.ID); err != nil {
		t.Fatalf("a refusal is recorded, not retried: %v", err)
	}
	got := stored()
	if got.SettlementStatus != card.SettlementFailed || got.SettlementError == "" {
		t.Fatalf("after a refusal: %+v", got)
	}
	if m := ten.Root.Get("/v1/cards/"+c.ID+"/authorizations").Expect(t, 200).JSON(t)["authorizations"].([]any)[0].(map[string]any); m["settlementStatus"] != "FAILED" || m["settlementError"] == nil {
		t.Fatalf("visible over HTTP: %v", m)
	}
	// A failed settlement stays failed: the job does nothing more.
	script = func() (common.Hash, error) { t.Fatal("settled after FAILED"); return common.Hash{}, nil }
	if _, err := svc.RunSettlement(ctx, a.TenantID, a.ID); err != nil {
		t.Fatal(err)
	}
	// The refusal is announced once; the node errors (PENDING to PENDING) announced nothing.
	if failed := ten.Root.OneEventOf(t, "card_authorization.settlement_failed", a.ID); failed["settlementStatus"] != "FAILED" ||
		failed["status"] != "CAPTURED" || failed["settlementError"] == nil || failed["amount"] != "3" {
		t.Fatalf("settlement_failed: %v", failed)
	}
	if n := len(ten.Root.EventsOf(t, "card_authorization.settlement_submitted", a.ID)); n != 0 {
		t.Fatalf("%d settlement_submitted events for a settlement never sent", n)
	}
}
