package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/ports"
)

// approvalRows counts the tenant's approvals, their events, and sums its cards' daily spend.
func approvalRows(t *testing.T, p pipeDB, tenantID string) (auths, events int, spent int64) {
	t.Helper()
	ctx := context.Background()
	err := p.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM card_authorizations WHERE tenant_id = ?),
        (SELECT count(*) FROM events WHERE tenant_id = ? AND type = 'card_authorization.approved'),
        (SELECT coalesce(sum(spent_daily), 0) FROM card_spend WHERE tenant_id = ?)`, tenantID, tenantID, tenantID).
		Scan(&auths, &events, &spent)
	if err != nil {
		t.Fatal(err)
	}
	return auths, events, spent
}

// TestPipeline_ApprovalsTravelWithTheBatchWrite: inside a batch, card approvals are held and
// written by one statement with the batch's COMMIT: a batch of six authorizations on six
// cards writes its approvals once, and every approval, event and spend is there after it.
// A unit that fails after its approval leaves none of it. A unit that runs a statement after
// earlier units' approvals were held sees them (they are written first), and when that unit
// is then rolled back, the earlier approvals are not lost with it: they are written again
// with the batch.
func TestPipeline_ApprovalsTravelWithTheBatchWrite(t *testing.T) {
	t.Parallel()
	p, f, s := cardPipe(t, 8, 1_000_000, 6)

	fns := make([]func(ctx context.Context, tx ports.Tx) error, 6)
	for i := range fns {
		fns[i] = f.authorize(i, fmt.Sprintf("six-%d", i), 100, nil)
	}
	if err := errors.Join(runBatch(s, fns...)...); err != nil {
		t.Fatal(err)
	}
	if st := s.PipelineStats(); st.ApprovalWrites != 1 || st.Retried != 0 {
		t.Errorf("a batch of six approvals on six cards: stats %+v, want one approval write and no unit run again", st)
	}
	if auths, events, spent := approvalRows(t, p, f.tenantID); auths != 6 || events != 6 || spent != 600 {
		t.Fatalf("after the batch: %d approvals, %d events, %d spent; want 6, 6, 600", auths, events, spent)
	}

	errFailed := errors.New("the unit fails after its approval")
	errRolledBack := errors.New("the unit fails after its statement")
	var seen int
	errs := submitInOrder(s,
		f.authorize(0, "kept-0", 100, nil),
		func(ctx context.Context, tx ports.Tx) error {
			if err := f.authorize(1, "failed", 100, nil)(ctx, tx); err != nil {
				return err
			}
			return errFailed
		},
		func(ctx context.Context, tx ports.Tx) error {
			btx, _ := postgres.TxFromContext(ctx)
			if err := btx.QueryRowContext(ctx, "SELECT count(*) FROM card_authorizations WHERE tenant_id = ?", f.tenantID).Scan(&seen); err != nil {
				return err
			}
			return errRolledBack
		},
		f.authorize(2, "kept-2", 100, nil),
		f.authorize(3, "kept-3", 100, nil),
		f.authorize(4, "kept-4", 100, nil))
	if errs[0] != nil || !errors.Is(errs[1], errFailed) || !errors.Is(errs[2], errRolledBack) || errors.Join(errs[3:]...) != nil {
		t.Fatalf("units answered %v", errs)
	}
	if seen != 7 {
		t.Errorf("a unit's statement after an approval was held saw %d approvals, want 7 (the six committed and the held one)", seen)
	}
	if auths, events, spent := approvalRows(t, p, f.tenantID); auths != 10 || events != 10 || spent != 1000 {
		t.Errorf("after the second batch: %d approvals, %d events, %d spent; want 10, 10, 1000 (the failed unit's approval gone, the rolled-back unit's statement losing none)", auths, events, spent)
	}
	if n := p.transfers(t, "hold-failed"); n != 0 {
		t.Errorf("the failed unit's hold: %d transfers, want 0", n)
	}
	p.verify(t)
}

// TestPipeline_HeldApprovalFailureIsItsUnits: an approval the batch's write refuses (here a
// second approval with an existing authorization's id) fails the batch's COMMIT, and every
// unit runs again alone: the refused one fails with its own error, the others are approved
// once.
func TestPipeline_HeldApprovalFailureIsItsUnits(t *testing.T) {
	t.Parallel()
	p, f, s := cardPipe(t, 4, 1_000_000, 3)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond)
	first := card.Authorization{ID: core.NewID(core.PrefixCardAuth), TenantID: f.tenantID, Environment: core.EnvTest,
		CardID: f.cards[3], Amount: 1, MCC: "5411", MerchantName: "Shop", Status: card.AuthApproved,
		Windows: card.WindowsAt(now), CreatedAt: now, UpdatedAt: now}
	approve := func(a card.Authorization) func(ctx context.Context, tx ports.Tx) error {
		return func(ctx context.Context, tx ports.Tx) error {
			return tx.Cards().CreateSpendingAuthorization(ports.WithLastWrite(ctx), a,
				event.New(a.TenantID, a.Environment, "card_authorization.approved", a.ID, map[string]any{}, a.CreatedAt))
		}
	}
	if err := p.direct.InTx(ctx, approve(first)); err != nil {
		t.Fatal(err)
	}
	twin := first
	twin.CardID = f.cards[2]
	errs := runBatch(s, f.authorize(0, "before", 100, nil), approve(twin), f.authorize(1, "after", 100, nil))
	if errs[0] != nil || errs[1] == nil || errs[2] != nil {
		t.Fatalf("units answered %v; want the twin's approval refused, the others approved", errs)
	}
	if st := s.PipelineStats(); st.Retried != 3 {
		t.Errorf("stats %+v: want the three units run again alone", st)
	}
	if auths, events, spent := approvalRows(t, p, f.tenantID); auths != 3 || events != 3 || spent != 201 {
		t.Errorf("%d approvals, %d events, %d spent; want 3, 3, 201", auths, events, spent)
	}
	for _, ref := range []string{"hold-before", "hold-after"} {
		if n := p.transfers(t, ref); n != 1 {
			t.Errorf("%s: %d transfers, want 1", ref, n)
		}
	}
	p.verify(t)
}

// TestPipeline_ClaimWritesApprovalsHeldBeforeIt: a unit that decides without the batch's claim
// (its request claimed no key) runs and ends before the claim, holding its approval; the
// claim, which reads the same card for a later unit, writes that approval first, so the later
// decision sees it: of two authorizations of 1,000 against a daily limit of 1,500, the second
// declines. Read without the held approval, both would be approved.
func TestPipeline_ClaimWritesApprovalsHeldBeforeIt(t *testing.T) {
	t.Parallel()
	p, f, s := cardPipe(t, 1, 1500, 2)
	unclaimed := func(ctx context.Context, tx ports.Tx) error {
		return f.decide(ctx, tx, 0, "unclaimed", 1000, time.Now().UTC().Truncate(time.Microsecond))
	}
	errs := runBatch(s, unclaimed, f.authorize(0, "claimed", 1000, nil))
	if errs[0] != nil || !errors.Is(errs[1], errDeclined) {
		t.Fatalf("units answered %v; want the first approved, the second declined past the limit", errs)
	}
	if st := s.PipelineStats(); st.Claims != 1 || st.Batches != 1 || st.ApprovalWrites != 1 {
		t.Errorf("stats %+v: want one batch, its claim, and one approval write (the claim's)", st)
	}
	if auths, _, spent := approvalRows(t, p, f.tenantID); auths != 1 || spent != 1000 {
		t.Errorf("%d approvals, %d spent; want 1 and 1000", auths, spent)
	}
	p.verify(t)
}
