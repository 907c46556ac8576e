package offramps

// Fast tests of off-ramp create and confirm (and the payout that follows) over ports/fake.
// Self-contained on purpose: this file moves with the payments capability when #28 part A
// splits app/offramps.

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// createScreening screens every payment with a scripted answer, counting the calls and failing
// the test when it is called inside a unit of work (it leaves the process in production).
type createScreening struct {
	t     *testing.T
	store *fake.Store
	holds []offramp.HoldReason
	calls int
}

func (s *createScreening) Screen(context.Context, ports.ScreeningInput) ([]offramp.HoldReason, error) {
	s.calls++
	if s.store.InUnit() {
		s.t.Error("screening was called inside a unit of work")
	}
	return s.holds, nil
}

// testRecipients is the recipients capability as payments see it: every phone hashed under one
// test purpose, destinations without an identifier (a service balance has none).
type testRecipients struct{ cipher fake.Cipher }

const testPhonePurpose = "phone"

func (testRecipients) Ready() error { return nil }
func (r testRecipients) PhoneHash(e164 string) string {
	return r.cipher.LookupHash(testPhonePurpose, e164)
}
func (testRecipients) DestinationIdentifier(recipient.Destination) (recipient.Identifier, error) {
	return recipient.Identifier{}, nil
}

// allowSpend is a spend policy that never holds.
type allowSpend struct{}

func (allowSpend) SenderSpendHolds(context.Context, offramp.Payment) []offramp.HoldReason { return nil }

type createWorld struct {
	store     *fake.Store
	screening *createScreening
	provider  *fake.Payout
	clock     *fake.Clock
	svc       *Service
	sender    auth.Principal
	recipient auth.Principal
	phone     string
	dest      recipient.Destination
}

// newCreateWorld: a sender with a funded service balance; a recipient who verified a phone,
// holds an ACTIVE credential and one ACTIVE SERVICE_BALANCE destination, paid by the fake
// "internal" provider.
func newCreateWorld(t *testing.T, senderBalance int64) *createWorld {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC)
	w := &createWorld{store: fake.NewStore(), provider: fake.NewPayout("internal"), clock: &fake.Clock{At: now}, phone: "+14155550123"}
	w.screening = &createScreening{t: t, store: w.store}
	w.sender = auth.Principal{Kind: auth.KindAPIKey, TenantID: core.NewID(core.PrefixTenant), Environment: core.EnvTest, Scopes: []auth.Scope{auth.ScopeRoot}}
	w.recipient = auth.Principal{Kind: auth.KindAPIKey, TenantID: core.NewID(core.PrefixTenant), Environment: core.EnvTest, Scopes: []auth.Scope{auth.ScopeRoot}}
	cipher := fake.Cipher{}
	verified := now.Add(-time.Hour)
	w.dest = recipient.Destination{ID: core.NewID(core.PrefixDest), TenantID: w.recipient.TenantID, Environment: core.EnvTest,
		Type: recipient.DestServiceBalance, Status: recipient.DestActive, Masked: "service balance", CreatedAt: now}
	err := w.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		r := tx.Recipients()
		if err := r.CreateAlias(ctx, recipient.Alias{ID: core.NewID("pha"), TenantID: w.recipient.TenantID, Environment: core.EnvTest,
			PhoneHash: cipher.LookupHash(testPhonePurpose, w.phone), Masked: recipient.MaskPhone(w.phone), Status: recipient.AliasVerified,
			VerifiedAt: &verified, CreatedAt: verified}); err != nil {
			return err
		}
		if err := r.PutCredential(ctx, recipient.Credential{TenantID: w.recipient.TenantID, Environment: core.EnvTest,
			Type: recipient.CredentialBusinessIdentity, Status: recipient.CredentialActive, UpdatedAt: verified}); err != nil {
			return err
		}
		if err := r.CreateDestination(ctx, w.dest); err != nil {
			return err
		}
		accs, err := tx.Ledger().OpenAccounts(ctx, verified, ledger.World(core.EnvTest, kernel.ServiceAsset, "deposits"),
			ledger.TenantAvailable(core.EnvTest, kernel.ServiceAsset, w.sender.TenantID))
		if err != nil || senderBalance == 0 {
			return err
		}
		_, _, err = tx.Ledger().Post(ctx, verified, ledger.TransferSpec{Reference: "deposit:" + w.sender.TenantID, Type: ledger.TypePosted,
			Environment: core.EnvTest, Asset: kernel.ServiceAsset, Postings: ledger.Move(accs[0].ID, accs[1].ID, senderBalance)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := New(Deps{Store: w.store, Jobs: fake.Jobs{Store: w.store}, Clock: w.clock,
		Recipients: testRecipients{cipher: cipher}, RecipientChanged: &kernel.Subscribers[recipient.Changed]{}, Screening: w.screening, SpendPolicy: allowSpend{},
		Payouts: map[string]ports.PayoutRail{"internal": {Rail: recipient.DestServiceBalance, Mode: ports.ModeMock,
			Terms: offramp.Terms{Provider: "internal", FeeBps: 100, EstimatedDeliverySeconds: 5}, Provider: w.provider}},
		SourceChains: kernel.SourceChains{core.EnvTest: {ChainID: 84532, USDC: "0x036CbD53842c5426634e7929541eC2318f3dCF7e"}}})
	if err != nil {
		t.Fatal(err)
	}
	w.svc = svc
	return w
}

// available is an account's available balance by reference (0 when it does not exist).
func (w *createWorld) available(t *testing.T, reference string) int64 {
	t.Helper()
	book := w.store.Book()
	a, err := book.FindAccount(core.EnvTest, kernel.ServiceAsset, reference)
	if err != nil {
		return 0
	}
	b, _ := book.Balance(a.ID)
	return b.Available()
}

func (w *createWorld) create(t *testing.T, amount string) PaymentView {
	t.Helper()
	view, err := w.svc.CreatePayment(context.Background(), w.sender, CreatePaymentInput{Phone: w.phone, AmountUSD: amount})
	if err != nil {
		t.Fatal(err)
	}
	return view
}

func wantOfframpCode(t *testing.T, err error, code core.Code) {
	t.Helper()
	if !errors.Is(err, &core.Error{Code: code}) {
		t.Fatalf("err = %v, want %s", err, code)
	}
}

func TestOfframp_CreateAndConfirm(t *testing.T) {
	ctx := context.Background()
	t.Run("create reserves the amount and quotes the recipient's destination", func(t *testing.T) {
		w := newCreateWorld(t, 100_000_000)
		view := w.create(t, "40")
		pay := view.Payment
		if pay.Status != offramp.StatusAwaitingRecipientConfirmation || pay.RecipientTenantID != w.recipient.TenantID || pay.HoldTransferID == "" {
			t.Fatalf("payment %+v", pay)
		}
		if len(view.Quotes) != 1 || view.Quotes[0].DestinationID != w.dest.ID || view.Quotes[0].DeliverBaseUnits+view.Quotes[0].FeeBaseUnits != 40_000_000 {
			t.Fatalf("quotes %+v", view.Quotes)
		}
		if got := w.available(t, ledger.TenantAvailableRef(w.sender.TenantID)); got != 60_000_000 {
			t.Fatalf("sender available after the reservation: %d", got)
		}
		if w.screening.calls == 0 {
			t.Fatal("the payment was not screened")
		}
		if stored, ok := w.store.OfframpPayment(pay.ID); !ok || stored.Status != pay.Status {
			t.Fatalf("stored %+v", stored)
		}
	})
	t.Run("a balance short of the amount reserves nothing and records nothing", func(t *testing.T) {
		w := newCreateWorld(t, 10_000_000)
		_, err := w.svc.CreatePayment(ctx, w.sender, CreatePaymentInput{Phone: w.phone, AmountUSD: "10.01"})
		wantOfframpCode(t, err, core.CodeInsufficientFunds)
		list, total, _ := w.svc.ListPayments(ctx, w.sender, ports.Page{Take: 10})
		if total != 0 || len(list) != 0 {
			t.Fatalf("a refused create recorded %+v", list)
		}
		if got := w.available(t, ledger.TenantAvailableRef(w.sender.TenantID)); got != 10_000_000 {
			t.Fatalf("sender available after a refusal: %d", got)
		}
	})
	t.Run("a screening hold keeps the reservation and offers no quote", func(t *testing.T) {
		w := newCreateWorld(t, 100_000_000)
		w.screening.holds = []offramp.HoldReason{offramp.HoldTransactionMonitoringReview}
		view := w.create(t, "5")
		if view.Payment.Status != offramp.StatusComplianceHold || len(view.Quotes) != 0 {
			t.Fatalf("held payment %+v, quotes %+v", view.Payment, view.Quotes)
		}
		if got := w.available(t, ledger.TenantAvailableRef(w.sender.TenantID)); got != 95_000_000 {
			t.Fatalf("sender available while held: %d", got)
		}
	})
	t.Run("confirm locks the funds, the payout is submitted once and delivers to the recipient", func(t *testing.T) {
		w := newCreateWorld(t, 100_000_000)
		view := w.create(t, "40")
		q := view.Quotes[0]
		if _, err := w.svc.ConfirmPayment(ctx, w.recipient, view.Payment.ID); err == nil {
			t.Fatal("a confirm before a route was selected went through")
		}
		if _, err := w.svc.SelectPayoutRoute(ctx, w.sender, view.Payment.ID, q.ID); err == nil {
			t.Fatal("the sender selected the recipient's route")
		}
		if _, err := w.svc.SelectPayoutRoute(ctx, w.recipient, view.Payment.ID, q.ID); err != nil {
			t.Fatal(err)
		}
		confirmed, err := w.svc.ConfirmPayment(ctx, w.recipient, view.Payment.ID)
		if err != nil {
			t.Fatal(err)
		}
		if confirmed.Status != offramp.StatusFundsLocked || confirmed.Attempt != 1 || confirmed.Provider != "internal" {
			t.Fatalf("confirmed %+v", confirmed)
		}
		if got := w.available(t, ledger.OfframpLockedRef(confirmed.ID)); got != 40_000_000 {
			t.Fatalf("locked account holds %d", got)
		}
		jobs := w.store.Jobs()
		if len(jobs) != 1 || jobs[0].Args.(SubmitPayoutArgs).PaymentID != confirmed.ID {
			t.Fatalf("jobs after confirm %+v", jobs)
		}
		if _, err := w.svc.ConfirmPayment(ctx, w.recipient, confirmed.ID); err == nil {
			t.Fatal("a second confirm went through")
		}
		// The submission job runs twice (a retry): the provider sees one payout.
		for range 2 {
			if err := newPayoutJobs(w.svc).RunSubmission(ctx, confirmed.ID); err != nil {
				t.Fatal(err)
			}
		}
		if reqs := w.provider.Requests(); len(reqs) != 1 || reqs[0].AmountBaseUnits != 40_000_000 || reqs[0].DeliverBaseUnits != q.DeliverBaseUnits {
			t.Fatalf("provider requests %+v", reqs)
		}
		submitted, _ := w.store.OfframpPayment(confirmed.ID)
		if submitted.Status != offramp.StatusProviderSubmitted || submitted.ProviderReference == "" {
			t.Fatalf("submitted %+v", submitted)
		}
		clearing := ledger.Share(ledger.ProviderClearing(core.EnvTest, kernel.ServiceAsset, "internal"), w.sender.TenantID).Reference
		if got := w.available(t, clearing); got != 40_000_000 {
			t.Fatalf("clearing holds %d", got)
		}
		for final := false; !final; {
			if final, err = newPayoutJobs(w.svc).PollPayment(ctx, confirmed.ID); err != nil {
				t.Fatal(err)
			}
		}
		delivered, _ := w.store.OfframpPayment(confirmed.ID)
		if delivered.Status != offramp.StatusDelivered || delivered.DeliveredAt == nil {
			t.Fatalf("after the final poll %+v", delivered)
		}
		if got := w.available(t, ledger.TenantAvailableRef(w.recipient.TenantID)); got != q.DeliverBaseUnits {
			t.Fatalf("recipient received %d, want %d", got, q.DeliverBaseUnits)
		}
		if got := w.available(t, ledger.Share(ledger.PlatformFees(core.EnvTest, kernel.ServiceAsset), w.sender.TenantID).Reference); got != q.FeeBaseUnits {
			t.Fatalf("fees %d, want %d", got, q.FeeBaseUnits)
		}
		if got := w.available(t, ledger.TenantAvailableRef(w.sender.TenantID)); got != 60_000_000 {
			t.Fatalf("sender available at the end: %d", got)
		}
		assertLegsOnce(ctx, t, w, q.DeliverBaseUnits)
		if problems := ledger.Audit(w.store.Book().AuditInput()); len(problems) != 0 {
			t.Fatalf("ledger audit: %v", problems)
		}
	})
	t.Run("an expired quote is requoted on confirm", func(t *testing.T) {
		w := newCreateWorld(t, 100_000_000)
		view := w.create(t, "1")
		if _, err := w.svc.SelectPayoutRoute(ctx, w.recipient, view.Payment.ID, view.Quotes[0].ID); err != nil {
			t.Fatal(err)
		}
		w.clock.Advance(time.Hour)
		// As the HTTP runner does: the confirm's screening is prepared before its unit.
		ctx := kernel.WithPrepared(ctx)
		if err := w.svc.PreparePaymentFor(ctx, w.recipient, view.Payment.ID); err != nil {
			t.Fatal(err)
		}
		_, err := w.svc.ConfirmPayment(ctx, w.recipient, view.Payment.ID)
		wantOfframpCode(t, err, offramp.CodeQuoteExpired)
		pay, _ := w.store.OfframpPayment(view.Payment.ID)
		if pay.Status != offramp.StatusAwaitingRecipientConfirmation || pay.QuoteSetVersion != 2 || pay.SelectedQuoteID != "" {
			t.Fatalf("after the requote %+v", pay)
		}
	})
}

// assertLegsOnce: a delivery into another tenant's balance was two legs through the
// between-tenants shares (the sender's +deliver, the recipient's -deliver), and the job the
// sender's unit enqueued, run again after the recipient's leg was posted, posts nothing more.
func assertLegsOnce(ctx context.Context, t *testing.T, w *createWorld, deliver int64) {
	t.Helper()
	var leg *ReceiveDeliveryArgs
	for _, j := range w.store.Jobs() {
		if a, ok := j.Args.(ReceiveDeliveryArgs); ok {
			leg = &a
		}
	}
	if leg == nil || leg.AmountBaseUnits != deliver || leg.RecipientTenantID != w.recipient.TenantID {
		t.Fatalf("the recipient leg's job: %+v", leg)
	}
	for range 2 {
		if err := (payoutLedger{w.svc}).receive(ctx, *leg); err != nil {
			t.Fatal(err)
		}
	}
	between := func(tenant string) int64 {
		return w.available(t, ledger.Share(ledger.BetweenTenants(core.EnvTest, kernel.ServiceAsset), tenant).Reference)
	}
	if s, r := between(w.sender.TenantID), between(w.recipient.TenantID); s != deliver || r != -deliver {
		t.Fatalf("between-tenants shares: sender %d, recipient %d; want %d and %d", s, r, deliver, -deliver)
	}
	if got := w.available(t, ledger.TenantAvailableRef(w.recipient.TenantID)); got != deliver {
		t.Fatalf("after the job ran twice the recipient holds %d, want %d", got, deliver)
	}
}
