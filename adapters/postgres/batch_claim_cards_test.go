package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// errDeclined is a card unit's decline past its card's daily limit (it writes nothing).
var errDeclined = errors.New("declined: daily limit")

// cardFixture is a tenant's funding-account cards, each with a daily limit and an account its
// approvals hold to from the world account.
type cardFixture struct {
	tenantID string
	world    ledger.Account
	cards    []string
	accounts []ledger.Account
}

// newCardFixture creates a tenant with n cards of daily limit limit, and their accounts.
func newCardFixture(t *testing.T, s *postgres.Store, n int, limit int64) cardFixture {
	t.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	tn := tenant.Tenant{ID: core.NewID(core.PrefixTenant), Slug: "cards", Name: "Cards", OwnerUserID: "usr_cards", CreatedAt: now}
	f := cardFixture{tenantID: tn.ID}
	h := card.Cardholder{ID: core.NewID(core.PrefixCardholder), TenantID: tn.ID, Environment: core.EnvTest, Name: "Ana", Email: "ana@example.com", CreatedAt: now}
	specs := []ledger.AccountSpec{ledger.World(core.EnvTest, ledger.AssetUSDC, "card-claim-bank")}
	err := s.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		if err := tx.Tenants().CreateTenant(ctx, tn); err != nil {
			return err
		}
		if err := tx.Cards().CreateCardholder(ctx, h); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			c := card.Card{ID: core.NewID(core.PrefixCard), TenantID: tn.ID, Environment: core.EnvTest, Funding: card.FundingAccount,
				CardholderID: h.ID, Issuer: "sandbox", IssuerCardID: fmt.Sprintf("ic_%d", i), Last4: "4242", Status: card.StatusActive,
				Limits: card.Limits{Daily: &limit, BlockedMCC: []string{}}, CreatedAt: now, UpdatedAt: now}
			if err := tx.Cards().CreateCard(ctx, c); err != nil {
				return err
			}
			f.cards = append(f.cards, c.ID)
			specs = append(specs, ledger.CardAuthorized(core.EnvTest, ledger.AssetUSDC, tn.ID, c.ID))
		}
		accts, err := tx.Ledger().OpenAccounts(ctx, now, specs...)
		f.world, f.accounts = accts[0], accts[1:]
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// cardPipe is a new database with a card fixture of n cards of daily limit limit, and a
// pipeline of one lane whose batches wait to hold maxBatch units.
func cardPipe(t *testing.T, n int, limit int64, maxBatch int) (pipeDB, cardFixture, *postgres.Store) {
	t.Helper()
	p := newPipeDB(t, 0)
	f := newCardFixture(t, p.direct, n, limit)
	return p, f, p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: maxBatch, MaxWait: time.Hour, AlwaysWait: true})
}

// authorize is a card authorization's unit as the use case runs it: the claim of its key with
// its intent (the world account, the card's account, the hold's reference, the card), between
// (nil: nothing) and then the card's decision: its lock read, the daily limit against the
// windows it read, the hold, the approval as the request's last write and the record.
func (f cardFixture) authorize(i int, key string, amount int64, between func(ctx context.Context, tx ports.Tx) error) func(ctx context.Context, tx ports.Tx) error {
	return func(ctx context.Context, tx ports.Tx) error {
		now := time.Now().UTC().Truncate(time.Microsecond)
		w, id := card.WindowsAt(now), f.cards[i]
		cctx := ports.WithLedgerIntent(ctx, ports.LedgerIntent{Environment: core.EnvTest,
			Accounts: []ledger.AccountSpec{f.world.Spec(), f.accounts[i].Spec()}, References: []string{"hold-" + key},
			Card: ports.CardIntent{TenantID: f.tenantID, CardID: id, Windows: w}})
		if _, stored, claimed, err := tx.Idempotency().Claim(cctx, claimScope, core.EnvTest, key, now); err != nil || stored || !claimed {
			return fmt.Errorf("claim %s: stored %v, claimed %v, %v", key, stored, claimed, err)
		}
		if between != nil {
			if err := between(ctx, tx); err != nil {
				return err
			}
		}
		return f.decide(ctx, tx, i, key, amount, now)
	}
}

// decide is a card authorization's decision on card i, as authorize runs it after the claim.
func (f cardFixture) decide(ctx context.Context, tx ports.Tx, i int, key string, amount int64, now time.Time) error {
	w, id := card.WindowsAt(now), f.cards[i]
	d, err := tx.Cards().LockCardForDecision(ctx, f.tenantID, core.EnvTest, id, w)
	if err != nil {
		return err
	}
	if d.Card.ID != id || d.Card.Limits.Daily == nil || d.PolicyAttached {
		return fmt.Errorf("decision rows %+v: not the card as created", d)
	}
	if d.Spent.Daily+amount > *d.Card.Limits.Daily {
		return errDeclined
	}
	if _, _, err := tx.Ledger().Post(ctx, now, move("hold-"+key, f.world.ID, f.accounts[i].ID, amount)); err != nil {
		return err
	}
	a := card.Authorization{ID: core.NewID(core.PrefixCardAuth), TenantID: f.tenantID, Environment: core.EnvTest, CardID: id,
		Amount: amount, MCC: "5411", MerchantName: "Shop", Status: card.AuthApproved, Windows: w, CreatedAt: now, UpdatedAt: now}
	announce := event.New(f.tenantID, core.EnvTest, "card_authorization.approved", a.ID, map[string]any{}, now)
	if err := tx.Cards().CreateSpendingAuthorization(ports.WithLastWrite(ctx), a, announce); err != nil {
		return err
	}
	return tx.Idempotency().Save(ctx, ports.IdempotencyRecord{Scope: claimScope, Environment: core.EnvTest, Key: key,
		Fingerprint: "f", StatusCode: 201, Body: []byte(key), ContentType: "text/plain", CreatedAt: now, ExpiresAt: now.Add(time.Hour)})
}

// TestPipeline_BatchClaimReadsKnownCards: a batch of N card authorizations whose requests named
// their cards costs two exchanges with PostgreSQL, the batch's claim (which also locks each
// card after its balance rows and reads its windows) with BEGIN and the write with COMMIT,
// where each card's own lock read cost one more exchange per authorization. Decisions stay
// exact: four authorizations on one card in one batch against a limit for two approve two
// (the later ones read the card after the earlier approvals), and a unit that adds to a card's
// windows after the claim read the card makes that card's decision read it again (declined
// past its limit).
func TestPipeline_BatchClaimReadsKnownCards(t *testing.T) {
	t.Parallel()
	direct, writes := postgres.ExchangeStore(t)
	const n = 6
	f := newCardFixture(t, direct, n+2, 2500)
	s := direct.WithPipeline(postgres.PipelineOptions{Lanes: 1, MaxBatch: n, MaxWait: time.Hour, AlwaysWait: true})
	t.Cleanup(s.Close)
	filled := 0
	batch := func(fns ...func(ctx context.Context, tx ports.Tx) error) ([]error, int64) {
		for i := len(fns); i < n; i++ { // fills the batch, on cards 1 to 5
			filled++
			fns = append(fns, f.authorize(1+i%5, fmt.Sprintf("filler-%d", filled), 1, nil))
		}
		before := writes.Load()
		errs := runBatch(s, fns...)
		return errs, writes.Load() - before
	}
	round := func(name string) int64 {
		t.Helper()
		fns := make([]func(ctx context.Context, tx ports.Tx) error, n)
		for i := range fns {
			fns[i] = f.authorize(i, fmt.Sprintf("%s-%d", name, i), 100, nil)
		}
		errs, w := batch(fns...)
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		return w
	}
	round("warm") // the connection prepares each statement on its first use
	if got := round("measured"); got != 2 {
		t.Errorf("a batch of %d known cards' authorizations: %d exchanges, want 2 (the batch's claim with BEGIN, its write with COMMIT)", n, got)
	}

	// One card, four authorizations of 1,000 against a daily limit of 2,500 (200 spent): two approve.
	same := make([]func(ctx context.Context, tx ports.Tx) error, 4)
	for i := range same {
		same[i] = f.authorize(0, fmt.Sprintf("same-%d", i), 1000, nil)
	}
	errs, _ := batch(same...)
	approved, declined := 0, 0
	for _, err := range errs[:len(same)] {
		switch {
		case err == nil:
			approved++
		case errors.Is(err, errDeclined):
			declined++
		default:
			t.Fatal(err)
		}
	}
	if approved != 2 || declined != 2 {
		t.Errorf("four authorizations on one card in a batch: %d approved, %d declined; want 2 and 2", approved, declined)
	}

	// A unit that adds 2,000 to card n's windows after the claim read it: card n's
	// authorization of 1,000 then sees 2,000 spent and declines.
	spend := func(ctx context.Context, tx ports.Tx) error {
		return tx.Cards().AddWindowSpend(ctx, f.tenantID, f.cards[n], card.WindowsAt(time.Now().UTC()), 2000)
	}
	errs, _ = batch(f.authorize(n+1, "toucher", 100, spend), f.authorize(n, "touched", 1000, nil))
	if errs[0] != nil || !errors.Is(errs[1], errDeclined) || errors.Join(errs[2:]...) != nil {
		t.Errorf("an authorization after another unit spent on its card in the batch: %v; want the first approved, the second declined", errs)
	}
}

// TestPipeline_BatchClaimSkipsHeldCards: the batch's claim never waits for a card another
// transaction holds. The unit whose card is held reads it itself, meets the lock, gives up its
// place and runs again first in the next batch (where it may wait) and is approved once the
// card is free; the other unit's authorization commits in the first batch meanwhile.
func TestPipeline_BatchClaimSkipsHeldCards(t *testing.T) {
	t.Parallel()
	p, f, s := cardPipe(t, 3, 2500, 2)
	ctx := context.Background()
	holder := holdRows(t, p, "SELECT 1 FROM cards WHERE id = ? FOR UPDATE", f.cards[0])
	submit := func(fn func(ctx context.Context, tx ports.Tx) error) chan error { return submitStarted(ctx, s, fn) }
	held := submit(f.authorize(0, "held", 100, nil))
	free := submit(f.authorize(1, "free", 100, nil))
	select {
	case err := <-free:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the free card's authorization was not answered while another transaction held the other card")
	}
	if p.transfers(t, "hold-held") != 0 {
		t.Fatal("the held card's authorization applied while another transaction held its card")
	}
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	filler := submit(f.authorize(2, "filler", 100, nil)) // fills the next batch
	if err := errors.Join(<-held, <-filler); err != nil {
		t.Fatal(err)
	}
	if st := s.PipelineStats(); st.Conflicts != 1 || st.Batches != 2 {
		t.Errorf("stats %+v: want one conflict (the held card's unit, carried), two batches", st)
	}
	for _, ref := range []string{"hold-held", "hold-free", "hold-filler"} {
		if n := p.transfers(t, ref); n != 1 {
			t.Errorf("%s: %d transfers, want 1", ref, n)
		}
	}
	p.verify(t)
}

// TestPipeline_BatchClaimRereadsAfterAnAttachment: a policy attached within the batch, after
// the batch's claim read a card's decision rows, makes that card's decision read them again,
// so it sees the attachment (the card's authorization here refuses a card with a policy
// attached). Taking the claim's read would decide as if no policy were attached.
func TestPipeline_BatchClaimRereadsAfterAnAttachment(t *testing.T) {
	t.Parallel()
	p, f, s := cardPipe(t, 2, 2500, 2)
	now := time.Now().UTC().Truncate(time.Microsecond)
	raw := []byte(`{"schemaVersion":1,"limits":{"dailyUsd":"50"}}`)
	doc, err := policy.ParseDocument("document", raw)
	if err != nil {
		t.Fatal(err)
	}
	pol := policy.Policy{ID: core.NewID(core.PrefixPolicy), TenantID: f.tenantID, Environment: core.EnvTest, Name: "cap",
		Status: policy.StatusActive, CreatedAt: now}
	v := policy.NewVersion(core.NewID(core.PrefixVersion), pol.ID, 1, doc, raw, now)
	pol.ActiveVersionID, pol.ActiveVersion = v.ID, 1
	if err := p.direct.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		return tx.Policies().CreatePolicy(ctx, pol, v)
	}); err != nil {
		t.Fatal(err)
	}
	attach := func(ctx context.Context, tx ports.Tx) error {
		return tx.Policies().CreateAttachment(ctx, policy.Attachment{ID: core.NewID(core.PrefixAttachmnt), TenantID: f.tenantID,
			Environment: core.EnvTest, PolicyID: pol.ID, SubjectType: policy.SubjectCard, SubjectID: f.cards[1], AttachedAt: now})
	}
	errs := runBatch(s, f.authorize(0, "attacher", 100, attach), f.authorize(1, "attached", 100, nil))
	if errs[0] != nil {
		t.Fatalf("the attaching unit: %v", errs[0])
	}
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "not the card as created") {
		t.Errorf("the card's decision after a policy was attached to it in the batch: %v; want it to read the attachment", errs[1])
	}
}

// TestPipeline_BatchClaimRereadsOtherWindows: a decision on windows other than those its
// request named (the period rolled over between the request's intent and its decision) reads
// its card itself: it sees today's spend, not the named windows' (here nothing), and declines
// past the card's limit.
func TestPipeline_BatchClaimRereadsOtherWindows(t *testing.T) {
	t.Parallel()
	p, f, s := cardPipe(t, 1, 2500, 1)
	today := card.WindowsAt(time.Now().UTC())
	earlier := card.WindowsAt(time.Now().UTC().AddDate(0, -2, 0)) // another day, week and month
	if err := p.direct.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		return tx.Cards().AddWindowSpend(ctx, f.tenantID, f.cards[0], today, 2000)
	}); err != nil {
		t.Fatal(err)
	}
	var spent int64 = -1
	errs := runBatch(s, func(ctx context.Context, tx ports.Tx) error {
		now := time.Now().UTC()
		cctx := ports.WithLedgerIntent(ctx, ports.LedgerIntent{Environment: core.EnvTest,
			Accounts: []ledger.AccountSpec{f.world.Spec(), f.accounts[0].Spec()}, References: []string{"hold-rolled"},
			Card: ports.CardIntent{TenantID: f.tenantID, CardID: f.cards[0], Windows: earlier}})
		if _, stored, claimed, err := tx.Idempotency().Claim(cctx, claimScope, core.EnvTest, "rolled", now); err != nil || stored || !claimed {
			return fmt.Errorf("claim: stored %v, claimed %v, %v", stored, claimed, err)
		}
		d, err := tx.Cards().LockCardForDecision(ctx, f.tenantID, core.EnvTest, f.cards[0], today)
		spent = d.Spent.Daily
		return err
	})
	if errs[0] != nil {
		t.Fatal(errs[0])
	}
	if spent != 2000 {
		t.Errorf("the decision on today's windows read %d spent today, want 2000 (its own read, not the claim's of other windows)", spent)
	}
}
