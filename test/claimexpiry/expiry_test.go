package claimexpiry

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

// A recipient redeems and never confirms: the claim is LOCKED on chain and its payment waits
// in AWAITING_RECIPIENT_CONFIRMATION. Expiry alone refunds nothing (funds win over expiry);
// only after expiry plus the grace period does the expiry pass move the payment to
// REFUND_PENDING, and the contract accepts the refund only once its own clock has passed the
// grace too. Then the claim is REFUNDED and the sender has its money back.
func TestClaimExpiry_StuckRedeemedClaimRefundedAfterGrace(t *testing.T) {
	clk := newClock(chainAtMost())
	srv := clockServer(t, clk)
	sender := fundedOn(t, srv, "100")

	created := sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": harness.Phone("628"), "amountUsd": "25"}).Expect(t, 201).JSON(t)
	if created["status"] != "PENDING_CLAIM" || created["claimId"] == nil {
		t.Fatalf("unknown phone: %v", created)
	}
	payID, claimID := created["paymentId"].(string), created["claimId"].(string)
	cl := harness.WaitClaim(t, sender.Root, claimID, "funded", func(c map[string]any) bool { return c["funded"] == true })
	expiresAt := timeOf(t, cl, "expiresAt")
	if got := expiresAt.Sub(timeOf(t, cl, "createdAt")); got != lifetime {
		t.Fatalf("the claim lives %s on this server, want %s: %v", got, lifetime, cl)
	}

	// Phone proof and redeem into an onboarded recipient, who never confirms.
	token := harness.ClaimLinkToken(t, harness.SMSBody(t, sender.Root, "claim_link", nil))
	anon := srv.Client(t)
	ch := anon.Post("/v1/claims/"+token+"/phone-code", nil).Expect(t, 201).JSON(t)
	code := harness.SMSCode(t, harness.SMSBody(t, sender.Root, "claim_phone_code", nil))
	if v := anon.Post("/v1/claims/"+token+"/phone-code/verify", map[string]any{"challengeId": ch["challengeId"], "code": code}).
		Expect(t, 200).JSON(t); v["verified"] != true {
		t.Fatalf("verify %v", v)
	}
	recipient, dest := onboardedOn(t, srv)
	red := recipient.Root.Post("/v1/claims/"+token+"/redeem", map[string]any{"challengeId": ch["challengeId"], "destinationId": dest}).
		Expect(t, 200).JSON(t)
	if red["paymentId"] != payID || red["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("redeem %v", red)
	}
	locked := harness.WaitClaim(t, sender.Root, claimID, "locked", func(c map[string]any) bool { return c["status"] == "LOCKED" })
	if locked["lockTxHash"] == nil || locked["redeemed"] != true {
		t.Fatalf("locked claim %v", locked)
	}
	escrowID := locked["escrowClaimId"].(string)
	if s := onchainState(t, escrowID); s != ports.EscrowLocked {
		t.Fatalf("on-chain claim %s, want LOCKED", s)
	}
	harness.ExpectServiceBalance(t, sender.Root, 75_000_000, 0)

	t.Run("refund request before expiry", func(t *testing.T) {
		sender.Root.Post("/v1/offramp/claims/"+claimID+"/refund-request", nil).ExpectError(t, 409, "CLAIM_NOT_EXPIRED")
	})

	// Past expiry, within the grace period: nothing changes, whoever asks.
	clk.Advance(2 * time.Minute)
	if !clk.Now().After(expiresAt) {
		t.Fatalf("app clock %s is not past the expiry %s", clk.Now(), expiresAt)
	}
	expireDue(t, srv)
	r := sender.Root.Post("/v1/offramp/claims/"+claimID+"/refund-request", nil).Expect(t, 200).JSON(t)
	if r["claimStatus"] != "LOCKED" || r["paymentStatus"] != "AWAITING_RECIPIENT_CONFIRMATION" || r["refundTxHash"] != nil {
		t.Fatalf("refund request within the grace period %v", r)
	}
	expireDue(t, srv)
	if p := getPayment(t, sender.Root, payID); p["status"] != "AWAITING_RECIPIENT_CONFIRMATION" || p["failureReason"] != nil {
		t.Fatalf("within the grace period the payment must wait: %v", p)
	}
	if c := getClaim(t, sender.Root, claimID); c["status"] != "LOCKED" || c["refundTxHash"] != nil {
		t.Fatalf("within the grace period the claim stays LOCKED: %v", c)
	}
	if s := onchainState(t, escrowID); s != ports.EscrowLocked {
		t.Fatalf("on-chain claim %s within the grace period, want LOCKED", s)
	}
	harness.ExpectServiceBalance(t, sender.Root, 75_000_000, 0)

	// Past expiry + grace on the app clock, not yet on the chain's: the payment goes to
	// REFUND_PENDING, but the contract refuses the refund (CE:grace) and River retries the job.
	clk.Advance(claim.DefaultGracePeriod + 5*time.Minute)
	expireDue(t, srv)
	if p := getPayment(t, sender.Root, payID); p["status"] != "REFUND_PENDING" || p["failureReason"] != "CLAIM_EXPIRED" {
		t.Fatalf("past expiry + grace: %v", p)
	}
	if c := getClaim(t, sender.Root, claimID); c["status"] != "LOCKED" || c["refundTxHash"] != nil || c["paymentStatus"] != "REFUND_PENDING" {
		t.Fatalf("the claim is LOCKED until the refund is indexed: %v", c)
	}
	waitRefundRefused(t, claimID)
	expireDue(t, srv) // a second pass changes nothing
	if p := getPayment(t, sender.Root, payID); p["status"] != "REFUND_PENDING" {
		t.Fatalf("second expiry pass: %v", p)
	}
	if c := getClaim(t, sender.Root, claimID); c["status"] != "LOCKED" || c["refundTxHash"] != nil {
		t.Fatalf("a refused refund changes nothing: %v", c)
	}
	if s := onchainState(t, escrowID); s != ports.EscrowLocked {
		t.Fatalf("the contract refunded a locked claim before expiry + grace on its clock: %s", s)
	}

	// The chain's clock passes expiry + grace too: the retried refund lands and is indexed.
	advanceChainTo(t, expiresAt.Add(claim.DefaultGracePeriod+5*time.Minute))
	done := harness.WaitClaim(t, sender.Root, claimID, "refunded", func(c map[string]any) bool { return c["status"] == "REFUNDED" })
	if done["refundTxHash"] == nil || done["releaseTxHash"] != nil || done["paymentStatus"] != "REFUNDED" {
		t.Fatalf("refunded claim %v", done)
	}
	if p := harness.WaitOfframpPayment(t, sender.Root, payID, "REFUNDED"); p["failureReason"] != "CLAIM_EXPIRED" {
		t.Fatalf("refunded payment %v", p)
	}
	if s := onchainState(t, escrowID); s != ports.EscrowRefunded {
		t.Fatalf("on-chain claim %s, want REFUNDED", s)
	}
	harness.ExpectServiceBalance(t, sender.Root, 100_000_000, 0)
	harness.ExpectServiceBalance(t, recipient.Root, 0, 0)
	if l := harness.PaymentLedger(t, env().DatabaseURL, payID); len(l) != 0 {
		t.Fatalf("a refunded claim leaves nothing behind: %v", l)
	}
	recipient.Root.Post("/v1/offramp/payments/"+payID+"/confirm", nil).ExpectError(t, 409, "INVALID_STATE")
	for i := 0; i < 2; i++ {
		r := sender.Root.Post("/v1/offramp/claims/"+claimID+"/refund-request", nil).Expect(t, 200).JSON(t)
		if r["claimStatus"] != "REFUNDED" || r["paymentStatus"] != "REFUNDED" || r["refundTxHash"] != done["refundTxHash"] {
			t.Fatalf("refund request after the refund %v", r)
		}
	}
}

// A claim whose expiry is already in the chain's past cannot be funded (the contract's fund
// reverts CE:expired; the fund job retries harmlessly). At expiry the service cancels the
// escrow id on chain, the indexed ClaimCanceled ends claim and payment CANCELED, and the
// sender's hold is voided.
func TestClaimExpiry_UnfundedClaimCanceled(t *testing.T) {
	clk := newClock(chainAtMost())
	srv := clockServer(t, clk)
	sender := fundedOn(t, srv, "50")

	// The chain runs well past the expiry of any claim opened now.
	advanceChainTo(t, clk.Now().Add(lifetime+10*time.Minute))
	created := sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": harness.Phone("628"), "amountUsd": "20"}).Expect(t, 201).JSON(t)
	if created["status"] != "PENDING_CLAIM" || created["claimId"] == nil {
		t.Fatalf("unknown phone: %v", created)
	}
	payID, claimID := created["paymentId"].(string), created["claimId"].(string)
	var cl map[string]any
	for end := time.Now().Add(2500 * time.Millisecond); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		cl = getClaim(t, sender.Root, claimID)
		if cl["funded"] != false || cl["status"] != "OPEN" || cl["fundTxHash"] != nil {
			t.Fatalf("a claim expiring in the chain's past was funded: %v", cl)
		}
	}
	if s := onchainState(t, cl["escrowClaimId"].(string)); s != ports.EscrowNone {
		t.Fatalf("on-chain claim %s, want NONE", s)
	}
	harness.ExpectServiceBalance(t, sender.Root, 30_000_000, 20_000_000)
	if p := getPayment(t, sender.Root, payID); p["status"] != "PENDING_CLAIM" {
		t.Fatalf("payment before expiry %v", p)
	}

	clk.Advance(2 * time.Minute)
	if !clk.Now().After(timeOf(t, cl, "expiresAt")) {
		t.Fatalf("app clock %s is not past the expiry %v", clk.Now(), cl["expiresAt"])
	}
	expireDue(t, srv)
	if c := getClaim(t, sender.Root, claimID); c["status"] != "EXPIRED" && c["status"] != "CANCELED" {
		t.Fatalf("after the expiry pass %v", c)
	}
	done := harness.WaitClaim(t, sender.Root, claimID, "canceled", func(c map[string]any) bool { return c["status"] == "CANCELED" })
	if done["cancelTxHash"] == nil || done["refundTxHash"] != nil || done["fundTxHash"] != nil || done["funded"] != false ||
		done["paymentStatus"] != "CANCELED" {
		t.Fatalf("canceled claim %v", done)
	}
	if p := harness.WaitOfframpPayment(t, sender.Root, payID, "CANCELED"); p["failureReason"] != "CLAIM_EXPIRED" {
		t.Fatalf("canceled payment %v", p)
	}
	if s := onchainState(t, done["escrowClaimId"].(string)); s != ports.EscrowCanceled {
		t.Fatalf("on-chain claim %s, want CANCELED", s)
	}
	harness.ExpectServiceBalance(t, sender.Root, 50_000_000, 0)
	if l := harness.PaymentLedger(t, env().DatabaseURL, payID); len(l) != 0 {
		t.Fatalf("a canceled claim leaves nothing behind: %v", l)
	}
	for i := 0; i < 2; i++ {
		r := sender.Root.Post("/v1/offramp/claims/"+claimID+"/refund-request", nil).Expect(t, 200).JSON(t)
		if r["claimStatus"] != "CANCELED" || r["paymentStatus"] != "CANCELED" || r["refundTxHash"] != nil {
			t.Fatalf("refund request after the cancel %v", r)
		}
	}
}

func timeOf(t *testing.T, m map[string]any, field string) time.Time {
	t.Helper()
	s, _ := m[field].(string)
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("%s %q: %v", field, s, err)
	}
	return at
}
