package claimexpiry

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// A verified phone challenge proves the phone only until it expires: a redeem that presents
// an expired one is refused (TWOFA_CHALLENGE_EXPIRED) and changes nothing; a fresh code
// redeems.
func TestClaimExpiry_RedeemRefusesExpiredChallenge(t *testing.T) {
	clk := newClock(chainAtMost())
	srv := harness.NewServer(t, func(c *wiring.Config) {
		c.Clock = clk
		c.ClaimLifetime = time.Hour // the claim outlives the challenge
	})
	sender := fundedOn(t, srv, "40")
	created := sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": harness.Phone("628"), "amountUsd": "10"}).Expect(t, 201).JSON(t)
	payID, claimID := created["paymentId"].(string), created["claimId"].(string)
	harness.WaitClaim(t, sender.Root, claimID, "funded", func(c map[string]any) bool { return c["funded"] == true })

	token := harness.ClaimLinkToken(t, harness.SMSBody(t, sender.Root, "claim_link", nil))
	anon := srv.Client(t)
	ch := anon.Post("/v1/claims/"+token+"/phone-code", nil).Expect(t, 201).JSON(t)
	code := harness.SMSCode(t, harness.SMSBody(t, sender.Root, "claim_phone_code", nil))
	anon.Post("/v1/claims/"+token+"/phone-code/verify", map[string]any{"challengeId": ch["challengeId"], "code": code}).Expect(t, 200)

	clk.Advance(claim.ChallengeLifetime + time.Minute)
	recipient, dest := onboardedOn(t, srv)
	recipient.Root.Post("/v1/claims/"+token+"/redeem", map[string]any{"challengeId": ch["challengeId"], "destinationId": dest}).
		ExpectError(t, 403, "TWOFA_CHALLENGE_EXPIRED")
	if c := getClaim(t, sender.Root, claimID); c["redeemed"] != false || c["status"] != "OPEN" {
		t.Fatalf("a refused redeem changed the claim: %v", c)
	}
	if p := getPayment(t, sender.Root, payID); p["status"] != "PENDING_CLAIM" {
		t.Fatalf("a refused redeem changed the payment: %v", p)
	}

	// A fresh code, verified now, redeems.
	fresh := anon.Post("/v1/claims/"+token+"/phone-code", nil).Expect(t, 201).JSON(t)
	msgs := sender.Root.Get("/v1/sandbox/sms-messages?take=1").Expect(t, 200).JSON(t)["messages"].([]any)
	code = harness.SMSCode(t, msgs[0].(map[string]any)["body"].(string))
	anon.Post("/v1/claims/"+token+"/phone-code/verify", map[string]any{"challengeId": fresh["challengeId"], "code": code}).Expect(t, 200)
	red := recipient.Root.Post("/v1/claims/"+token+"/redeem", map[string]any{"challengeId": fresh["challengeId"], "destinationId": dest}).
		Expect(t, 200).JSON(t)
	if red["paymentId"] != payID {
		t.Fatalf("redeem %v", red)
	}
}
