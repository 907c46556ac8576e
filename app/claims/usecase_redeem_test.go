package claims

// Fast tests of claim redeem over ports/fake: a payment to a phone nobody verified opens a
// claim; the escrow funds it; the holder of the phone proves it through the texted link and
// code and redeems into its tenant. The three capabilities of "pay a phone number" are put
// together here as wiring puts them (recipients, then payments, then claims, with the one
// dependency that points back bound late).

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/app/offramps"
	"github.com/corridorhq/corridor/app/recipients"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// claimScreening clears every payment.
type claimScreening struct{}

func (claimScreening) Screen(context.Context, ports.ScreeningInput) ([]offramp.HoldReason, error) {
	return nil, nil
}

// claimSpend is a spend policy that never holds.
type claimSpend struct{}

func (claimSpend) SenderSpendHolds(context.Context, offramp.Payment) []offramp.HoldReason { return nil }

type claimWorld struct {
	store    *fake.Store
	sms      *fake.SMS
	escrow   *fake.ClaimEscrow
	clock    *fake.Clock
	svc      *Service
	payments *offramps.Service
	rec      *recipients.Service
	sender   auth.Principal
	redeemer auth.Principal
	dest     recipient.Destination
	phone    string
}

// newClaimWorld: a funded sender, and a tenant ready to receive (an ACTIVE credential and an
// ACTIVE SERVICE_BALANCE destination) that has not verified the phone the payment goes to.
func newClaimWorld(t *testing.T) *claimWorld {
	t.Helper()
	now := time.Date(2026, 8, 3, 9, 0, 0, 0, time.UTC)
	w := &claimWorld{store: fake.NewStore(), sms: &fake.SMS{}, clock: &fake.Clock{At: now}, phone: "+14155550188"}
	w.escrow = fake.NewClaimEscrow(time.Hour, w.clock.Now)
	w.sender = auth.Principal{Kind: auth.KindAPIKey, TenantID: core.NewID(core.PrefixTenant), Environment: core.EnvTest, Scopes: []auth.Scope{auth.ScopeRoot}}
	w.redeemer = auth.Principal{Kind: auth.KindAPIKey, TenantID: core.NewID(core.PrefixTenant), Environment: core.EnvTest, Scopes: []auth.Scope{auth.ScopeRoot}}
	w.dest = recipient.Destination{ID: core.NewID(core.PrefixDest), TenantID: w.redeemer.TenantID, Environment: core.EnvTest,
		Type: recipient.DestServiceBalance, Status: recipient.DestActive, Masked: "service balance", CreatedAt: now}
	err := w.store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		if err := tx.Recipients().PutCredential(ctx, recipient.Credential{TenantID: w.redeemer.TenantID, Environment: core.EnvTest,
			Type: recipient.CredentialBusinessIdentity, Status: recipient.CredentialActive, UpdatedAt: now}); err != nil {
			return err
		}
		if err := tx.Recipients().CreateDestination(ctx, w.dest); err != nil {
			return err
		}
		accs, err := tx.Ledger().OpenAccounts(ctx, now, ledger.World(core.EnvTest, kernel.ServiceAsset, "deposits"),
			ledger.TenantAvailable(core.EnvTest, kernel.ServiceAsset, w.sender.TenantID))
		if err != nil {
			return err
		}
		_, _, err = tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: "deposit:" + w.sender.TenantID, Type: ledger.TypePosted,
			Environment: core.EnvTest, Asset: kernel.ServiceAsset, Postings: ledger.Move(accs[0].ID, accs[1].ID, 100_000_000)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	store, jobs := w.store, fake.Jobs{Store: w.store}
	chains := kernel.SourceChains{core.EnvTest: {ChainID: 84532, USDC: "0x036CbD53842c5426634e7929541eC2318f3dCF7e"}}
	// Built in order, as wiring builds them: recipients raise recipient.Changed, payments raise
	// the claim events, and claims (built last) call payments; nothing points back.
	changed := &kernel.Subscribers[recipient.Changed]{}
	needed, canceled, settled := &kernel.Subscribers[offramp.ClaimNeeded]{}, &kernel.Subscribers[offramp.ClaimCanceled]{},
		&kernel.Subscribers[offramp.ClaimSettled]{}
	escrows := kernel.ClaimEscrows{core.EnvTest: w.escrow}
	rec, err := recipients.New(recipients.Deps{Store: store, Jobs: jobs, Clock: w.clock, Cipher: fake.Cipher{}, SMS: w.sms, Changed: changed})
	if err != nil {
		t.Fatal(err)
	}
	payments, err := offramps.New(offramps.Deps{Store: store, Jobs: jobs, Clock: w.clock, Screening: claimScreening{},
		SpendPolicy: claimSpend{}, Recipients: rec, RecipientChanged: changed, ClaimEscrows: escrows,
		ClaimNeeded: needed, ClaimCanceled: canceled, ClaimSettled: settled, SourceChains: chains,
		Payouts: map[string]ports.PayoutRail{"internal": {Rail: recipient.DestServiceBalance, Mode: ports.ModeMock,
			Terms: offramp.Terms{Provider: "internal"}, Provider: fake.NewPayout("internal")}}})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := New(Deps{Store: store, Jobs: jobs, Clock: w.clock, Cipher: fake.Cipher{}, SourceChains: chains,
		Escrows: escrows, Payments: payments, Recipients: rec, ClaimNeeded: needed, ClaimCanceled: canceled, ClaimSettled: settled})
	if err != nil {
		t.Fatal(err)
	}
	w.payments, w.rec = payments, rec
	w.svc = svc
	return w
}

// sendTexts runs the queued SMS jobs, as the outbox worker does after commit, once each.
func (w *claimWorld) sendTexts(t *testing.T, sent map[string]bool) {
	t.Helper()
	for _, j := range w.store.Jobs() {
		if a, ok := j.Args.(recipients.SMSSendArgs); ok && !sent[a.IdempotencyKey] {
			sent[a.IdempotencyKey] = true
			if err := w.rec.SendQueuedSMS(context.Background(), a); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// lastText is the newest text of a purpose.
func (w *claimWorld) lastText(t *testing.T, purpose string) string {
	t.Helper()
	texts := w.sms.Sent()
	for i := len(texts) - 1; i >= 0; i-- {
		if texts[i].Purpose == purpose {
			return texts[i].Body
		}
	}
	t.Fatalf("no %s text among %d", purpose, len(texts))
	return ""
}

// fundOnChain runs the escrow funding job and applies the escrow's FUNDED log, as the indexer
// does for each log it reads.
func (w *claimWorld) fundOnChain(t *testing.T, claimID string) {
	t.Helper()
	ctx := context.Background()
	if err := w.svc.RunClaimChain(ctx, claimID, claimActionFund); err != nil {
		t.Fatal(err)
	}
	logs, err := w.escrow.ClaimEscrowLogs(ctx, 1, 100)
	if err != nil || len(logs) == 0 || logs[len(logs)-1].Kind != claim.EventFunded {
		t.Fatalf("escrow logs %+v, %v", logs, err)
	}
	err = w.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		_, err := newEscrowIndexer(w.svc).applyEscrowLog(ctx, tx, core.EnvTest, 84532, logs[len(logs)-1], w.clock.Now())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (w *claimWorld) availableOf(reference string) int64 {
	book := w.store.Book()
	a, err := book.FindAccount(core.EnvTest, kernel.ServiceAsset, reference)
	if err != nil {
		return 0
	}
	b, _ := book.Balance(a.ID)
	return b.Available()
}

var (
	claimTokenInText = regexp.MustCompile(regexp.QuoteMeta(DefaultClaimLinkBase) + `(\S+)$`)
	claimCodeInText  = regexp.MustCompile(`code is (\d{6})\.`)
)

func wantClaimCode(t *testing.T, err error, code core.Code) {
	t.Helper()
	if !errors.Is(err, &core.Error{Code: code}) {
		t.Fatalf("err = %v, want %s", err, code)
	}
}

func TestClaims_Redeem(t *testing.T) {
	ctx := context.Background()
	w := newClaimWorld(t)
	sent := map[string]bool{}

	view, err := w.payments.CreatePayment(ctx, w.sender, offramps.CreatePaymentInput{Phone: w.phone, AmountUSD: "25"})
	if err != nil {
		t.Fatal(err)
	}
	pay := view.Payment
	if pay.Status != offramp.StatusPendingClaim || pay.ClaimID == "" || len(view.Quotes) != 0 {
		t.Fatalf("payment to an unknown phone %+v", pay)
	}
	if got := w.availableOf(ledger.TenantAvailableRef(w.sender.TenantID)); got != 75_000_000 {
		t.Fatalf("sender available after the claim's reservation: %d", got)
	}
	if err := w.svc.NotifyClaim(ctx, pay.ClaimID); err != nil {
		t.Fatal(err)
	}
	w.sendTexts(t, sent)
	m := claimTokenInText.FindStringSubmatch(w.lastText(t, "claim_link"))
	if m == nil {
		t.Fatalf("no link in %q", w.lastText(t, "claim_link"))
	}
	token := m[1]

	codeFor := func(t *testing.T) (string, string) {
		t.Helper()
		ch, err := w.svc.SendClaimPhoneCode(ctx, token, "198.51.100.7")
		if err != nil {
			t.Fatal(err)
		}
		w.sendTexts(t, sent)
		code := claimCodeInText.FindStringSubmatch(w.lastText(t, "claim_phone_code"))
		if code == nil {
			t.Fatalf("no code in %q", w.lastText(t, "claim_phone_code"))
		}
		return ch.ChallengeID, code[1]
	}

	t.Run("an unfunded claim cannot be redeemed", func(t *testing.T) {
		challengeID, code := codeFor(t)
		if _, err := w.svc.VerifyClaimPhoneCode(ctx, token, challengeID, code); err != nil {
			t.Fatal(err)
		}
		_, err := w.svc.RedeemClaim(ctx, w.redeemer, token, RedeemClaimInput{ChallengeID: challengeID, DestinationID: w.dest.ID})
		wantClaimCode(t, err, claim.CodeNotFunded)
	})
	w.fundOnChain(t, pay.ClaimID)
	if c, _ := w.store.Claim(pay.ClaimID); !c.Funded {
		t.Fatalf("claim after the FUNDED log %+v", c)
	}
	if got := w.availableOf(ledger.ClaimEscrowRef(pay.ClaimID)); got != 25_000_000 {
		t.Fatalf("claim escrow account holds %d", got)
	}

	t.Run("a wrong code does not verify, and the sender cannot redeem its own claim", func(t *testing.T) {
		challengeID, code := codeFor(t)
		wrong := "000000"
		if code == wrong {
			wrong = "111111"
		}
		if out, err := w.svc.VerifyClaimPhoneCode(ctx, token, challengeID, wrong); err == nil || out.Verified {
			t.Fatalf("a wrong code: %+v, %v", out, err)
		}
		_, err := w.svc.RedeemClaim(ctx, w.redeemer, token, RedeemClaimInput{ChallengeID: challengeID, DestinationID: w.dest.ID})
		wantClaimCode(t, err, claim.CodeChallengeNotUsable)
		if _, err := w.svc.VerifyClaimPhoneCode(ctx, token, challengeID, code); err != nil {
			t.Fatal(err)
		}
		_, err = w.svc.RedeemClaim(ctx, w.sender, token, RedeemClaimInput{ChallengeID: challengeID, DestinationID: w.dest.ID})
		wantClaimCode(t, err, offramp.CodeSelfPayment)
	})

	t.Run("a verified phone redeems into the tenant and the payment is quoted", func(t *testing.T) {
		challengeID, code := codeFor(t)
		if out, err := w.svc.VerifyClaimPhoneCode(ctx, token, challengeID, code); err != nil || !out.Verified {
			t.Fatalf("verify: %+v, %v", out, err)
		}
		// As the HTTP runner does: the redeem's screening is prepared before its unit.
		ctx := kernel.WithPrepared(ctx)
		if err := w.svc.PrepareRedeem(ctx, w.redeemer, token); err != nil {
			t.Fatal(err)
		}
		redeemed, err := w.svc.RedeemClaim(ctx, w.redeemer, token, RedeemClaimInput{ChallengeID: challengeID, DestinationID: w.dest.ID})
		if err != nil {
			t.Fatal(err)
		}
		p := redeemed.Payment
		if p.Status != offramp.StatusAwaitingRecipientConfirmation || p.RecipientTenantID != w.redeemer.TenantID ||
			p.RequestedDestinationID != w.dest.ID || len(redeemed.Quotes) != 1 || redeemed.Quotes[0].DestinationID != w.dest.ID {
			t.Fatalf("redeemed %+v, quotes %+v", p, redeemed.Quotes)
		}
		c, _ := w.store.Claim(pay.ClaimID)
		if c.RedeemedAt == nil || c.RecipientTenantID != w.redeemer.TenantID {
			t.Fatalf("claim after the redeem %+v", c)
		}
		// The phone is now the redeemer's verified alias.
		var alias recipient.Alias
		if err := w.store.Read(ctx, func(ctx context.Context, tx ports.Tx) (err error) {
			alias, err = tx.Recipients().FindVerifiedAlias(ctx, core.EnvTest, w.rec.PhoneHash(w.phone))
			return err
		}); err != nil || alias.TenantID != w.redeemer.TenantID {
			t.Fatalf("alias %+v, %v", alias, err)
		}
		locks := 0
		for _, j := range w.store.Jobs() {
			if a, ok := j.Args.(ClaimChainArgs); ok && a.Action == claimActionLock && a.ClaimID == c.ID {
				locks++
			}
		}
		if locks != 1 {
			t.Fatalf("%d escrow lock jobs", locks)
		}
		// The money stays in the claim's escrow until the recipient confirms.
		if got := w.availableOf(ledger.ClaimEscrowRef(pay.ClaimID)); got != 25_000_000 {
			t.Fatalf("claim escrow account holds %d after the redeem", got)
		}
	})

	t.Run("a used link redeems nothing more", func(t *testing.T) {
		_, err := w.svc.RedeemClaim(ctx, w.redeemer, token, RedeemClaimInput{ChallengeID: "chl_x", DestinationID: w.dest.ID})
		wantClaimCode(t, err, claim.CodeLinkUsed)
	})
}
