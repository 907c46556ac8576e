package claims

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

// openClaim pays amount to a fresh unknown phone and waits until the escrow funding is indexed.
func openClaim(t *testing.T, sender *harness.Tenant, amount string) (phone string, payment, cl map[string]any) {
	t.Helper()
	phone = harness.Phone("628")
	payment = sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": phone, "amountUsd": amount}).Expect(t, 201).JSON(t)
	if payment["status"] != "PENDING_CLAIM" || payment["claimId"] == nil || len(payment["quotes"].([]any)) != 0 {
		t.Fatalf("unknown phone: %v", payment)
	}
	cl = harness.WaitClaim(t, sender.Root, payment["claimId"].(string), "funded", func(c map[string]any) bool { return c["funded"] == true })
	return phone, payment, cl
}

func TestClaim_UnknownPhoneToDeliveredThroughRedeem(t *testing.T) {
	t.Parallel()
	logs := &harness.SyncBuffer{}
	srv := harness.NewServerWithLog(t, logs)
	var texts []string
	seen := func(r *harness.Response) *harness.Response { texts = append(texts, string(r.Body)); return r }

	sender := funded(t, "100")
	sender.Root = srv.Client(t).WithKey(sender.RootKey)
	phone := harness.Phone("628")
	created := seen(sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": phone, "amountUsd": "25"})).Expect(t, 201).JSON(t)
	if created["status"] != "PENDING_CLAIM" || created["recipientTenantId"] != nil {
		t.Fatalf("created %v", created)
	}
	payID, claimID := created["paymentId"].(string), created["claimId"].(string)
	// The claim's opening is an event of the sender's, recorded with it (never the phone).
	opened := sender.Root.Get("/v1/events?type=claim.open").Expect(t, 200)
	if evs := opened.JSON(t)["events"].([]any); len(evs) != 1 || strings.Contains(string(opened.Body), phone) {
		t.Fatalf("claim.open events: %s", opened.Body)
	}
	if a, h := harness.ServiceBalance(t, sender.Root); a != 75_000_000 || (h != 25_000_000 && h != 0) {
		t.Fatalf("reserved towards the escrow: available %d held %d", a, h)
	}

	cl := harness.WaitClaim(t, sender.Root, claimID, "funded", func(c map[string]any) bool { return c["funded"] == true })
	if cl["status"] != "OPEN" || cl["fundTxHash"] == nil || len(cl["escrowClaimId"].(string)) != 66 {
		t.Fatalf("funded claim %v", cl)
	}
	if cl["metadataHash"] != claim.MetadataHash(cl["escrowClaimId"].(string), payID) {
		t.Fatalf("metadata hash must cover only the claim id and payment id: %v", cl)
	}
	harness.ExpectServiceBalance(t, sender.Root, 75_000_000, 0) // funded: moved into the claim's escrow account
	if l := harness.PaymentLedger(t, env().DatabaseURL, payID); l["claim:"+claimID+":escrow"] != 25_000_000 {
		t.Fatalf("escrow account after funding: %v", l)
	}

	// The link texted to the phone, and its public view.
	linkSMS := harness.SMSBody(t, sender.Root, "claim_link", nil)
	token := harness.ClaimLinkToken(t, linkSMS)
	pub := seen(srv.Client(t).Get("/v1/claims/"+token)).Expect(t, 200)
	if pub.Header.Get("Referrer-Policy") != "no-referrer" || pub.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("public view headers %v", pub.Header)
	}
	view := pub.JSON(t)
	if view["amountUsd"] != "25" || view["status"] != "OPEN" || view["chainKey"] != "eip155:84532" ||
		!strings.HasSuffix(view["phoneMasked"].(string), phone[len(phone)-2:]) || len(view) != 6 {
		t.Fatalf("public view %v", view)
	}

	// Phone proof: five wrong codes cancel the challenge.
	anon := srv.Client(t)
	ch := seen(anon.Post("/v1/claims/"+token+"/phone-code", nil)).Expect(t, 201).JSON(t)
	code := harness.SMSCode(t, harness.SMSBody(t, sender.Root, "claim_phone_code", nil))
	wrong := fmt.Sprintf("%06d", (atoi(code)+1)%1_000_000)
	for left := 4; left >= 1; left-- {
		e := seen(anon.Post("/v1/claims/"+token+"/phone-code/verify", map[string]any{"challengeId": ch["challengeId"], "code": wrong})).
			ExpectError(t, 400, "TWOFA_INVALID_CODE")
		if e["details"].(map[string]any)["attemptsRemaining"] != float64(left) {
			t.Fatalf("attempts %v", e)
		}
	}
	anon.Post("/v1/claims/"+token+"/phone-code/verify", map[string]any{"challengeId": ch["challengeId"], "code": wrong}).ExpectError(t, 403, "TWOFA_TOO_MANY_ATTEMPTS")
	anon.Post("/v1/claims/"+token+"/phone-code/verify", map[string]any{"challengeId": ch["challengeId"], "code": code}).ExpectError(t, 403, "TWOFA_TOO_MANY_ATTEMPTS")

	// A new challenge verifies.
	ch2 := anon.Post("/v1/claims/"+token+"/phone-code", nil).Expect(t, 201).JSON(t)
	code2 := harness.SMSCode(t, harness.SMSBody(t, sender.Root, "claim_phone_code", map[string]bool{"": true, smsBodyWith(code): true}))
	ok := seen(anon.Post("/v1/claims/"+token+"/phone-code/verify", map[string]any{"challengeId": ch2["challengeId"], "code": code2})).Expect(t, 200).JSON(t)
	if ok["verified"] != true || ok["challengeId"] != ch2["challengeId"] {
		t.Fatalf("verify %v", ok)
	}

	// The recipient onboards, adds a destination and redeems.
	recipient, dest := onboarded(t)
	recipient.Root = srv.Client(t).WithKey(recipient.RootKey)
	recipient.Root.Post("/v1/claims/"+token+"/redeem", map[string]any{"challengeId": ch["challengeId"], "destinationId": dest}).
		ExpectError(t, 403, "TWOFA_CHALLENGE_NOT_REDEEMABLE")
	sender.Root.Post("/v1/claims/"+token+"/redeem", map[string]any{"challengeId": ch2["challengeId"], "destinationId": dest}).
		ExpectError(t, 422, "SELF_PAYMENT_NOT_ALLOWED")
	red := seen(recipient.Root.Post("/v1/claims/"+token+"/redeem", map[string]any{"challengeId": ch2["challengeId"], "destinationId": dest})).Expect(t, 200).JSON(t)
	if red["paymentId"] != payID || red["status"] != "AWAITING_RECIPIENT_CONFIRMATION" || len(red["quotes"].([]any)) == 0 || len(red["holdReasons"].([]any)) != 0 {
		t.Fatalf("redeem %v", red)
	}
	// The link is used up; the phone is now the recipient's verified alias.
	srv.Client(t).Get("/v1/claims/"+token).ExpectError(t, 409, "CLAIM_LINK_USED")
	recipient.Root.Post("/v1/claims/"+token+"/redeem", map[string]any{"challengeId": ch2["challengeId"], "destinationId": dest}).ExpectError(t, 409, "CLAIM_LINK_USED")
	aliases := seen(recipient.Root.Get("/v1/phone-aliases")).Expect(t, 200).JSON(t)["phoneAliases"].([]any)
	if len(aliases) != 1 || aliases[0].(map[string]any)["status"] != "VERIFIED" {
		t.Fatalf("aliases %v", aliases)
	}
	harness.WaitClaim(t, sender.Root, claimID, "locked", func(c map[string]any) bool { return c["status"] == "LOCKED" && c["lockTxHash"] != nil })

	// Part 1's flow: select, confirm, provider, DELIVERED; the escrow is released on chain.
	rid := red["quotes"].([]any)[0].(map[string]any)["routeId"].(string)
	recipient.Root.Post("/v1/offramp/payments/"+payID+"/select-route", map[string]any{"routeQuoteId": rid}).Expect(t, 200)
	conf := seen(recipient.Root.Post("/v1/offramp/payments/"+payID+"/confirm", nil)).Expect(t, 200).JSON(t)
	if conf["status"] != "FUNDS_LOCKED" {
		t.Fatalf("confirm %v", conf)
	}
	harness.WaitOfframpPayment(t, sender.Root, payID, "DELIVERED")
	released := harness.WaitClaim(t, sender.Root, claimID, "released", func(c map[string]any) bool { return c["status"] == "RELEASED" })
	if released["releaseTxHash"] == nil || released["decisionHash"] == nil || released["refundTxHash"] != nil {
		t.Fatalf("released claim %v", released)
	}
	onchain, err := env().Chain.EscrowClaim(context.Background(), mustBytes32(t, released["escrowClaimId"].(string)))
	if err != nil || onchain.State != ports.EscrowReleased {
		t.Fatalf("on-chain claim %+v %v", onchain, err)
	}

	harness.ExpectServiceBalance(t, sender.Root, 75_000_000, 0)
	harness.WaitServiceBalance(t, recipient.Root, 25_000_000, 0)
	l := harness.PaymentLedger(t, env().DatabaseURL, payID)
	if l["claim:"+claimID+":escrow"] != 0 || len(l) != 2 {
		t.Fatalf("ledger after delivery %v", l)
	}
	for _, r := range []*harness.Response{sender.Root.Get("/v1/offramp/claims/" + claimID), sender.Root.Get("/v1/offramp/payments/" + payID),
		recipient.Root.Get("/v1/offramp/payments/" + payID), sender.Root.Get("/v1/sandbox/sms-messages")} {
		seen(r)
	}
	noPhone(t, phone, texts...)
	noPhone(t, phone, logs.String())
	if !strings.Contains(logs.String(), `"route":"/v1/claims/{claimToken}"`) || strings.Contains(logs.String(), token) {
		t.Fatalf("logs must name the route template, never the token")
	}
}

func smsBodyWith(code string) string {
	return "Your Corridor claim code is " + code + ". It expires in 10 minutes."
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}

func mustBytes32(t *testing.T, s string) [32]byte {
	t.Helper()
	b, err := claim.Bytes32(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestClaim_ExpiryRefundsTheSender(t *testing.T) {
	t.Parallel()
	sender := funded(t, "100")
	_, pay, cl := openClaim(t, sender, "10")
	claimID, payID := cl["claimId"].(string), pay["paymentId"].(string)
	token := harness.ClaimLinkToken(t, harness.SMSBody(t, sender.Root, "claim_link", nil))

	sender.Root.Post("/v1/offramp/claims/"+claimID+"/refund-request", nil).ExpectError(t, 409, "CLAIM_NOT_EXPIRED")
	exp := sender.Root.Post("/v1/sandbox/offramp/claims/"+claimID+"/expire", nil).Expect(t, 200).JSON(t)
	if exp["claimStatus"] != "EXPIRED" || exp["paymentStatus"] != "REFUND_PENDING" {
		t.Fatalf("expire %v", exp)
	}
	env().Client(t).Get("/v1/claims/"+token).ExpectError(t, 409, "CLAIM_LINK_EXPIRED")
	env().Client(t).Post("/v1/claims/"+token+"/phone-code", nil).ExpectError(t, 409, "CLAIM_LINK_EXPIRED")

	done := harness.WaitClaim(t, sender.Root, claimID, "refunded", func(c map[string]any) bool { return c["status"] == "REFUNDED" })
	if done["refundTxHash"] == nil || done["releaseTxHash"] != nil || done["paymentStatus"] != "REFUNDED" {
		t.Fatalf("refunded claim %v", done)
	}
	harness.WaitOfframpPayment(t, sender.Root, payID, "REFUNDED")
	harness.ExpectServiceBalance(t, sender.Root, 100_000_000, 0)
	if l := harness.PaymentLedger(t, env().DatabaseURL, payID); len(l) != 0 {
		t.Fatalf("a refunded claim leaves nothing behind: %v", l)
	}
	onchain, err := env().Chain.EscrowClaim(context.Background(), mustBytes32(t, done["escrowClaimId"].(string)))
	if err != nil || onchain.State != ports.EscrowRefunded {
		t.Fatalf("on-chain claim %+v %v", onchain, err)
	}
	// The refund request is idempotent once expired.
	for i := 0; i < 2; i++ {
		r := sender.Root.Post("/v1/offramp/claims/"+claimID+"/refund-request", nil).Expect(t, 200).JSON(t)
		if r["claimStatus"] != "REFUNDED" || r["paymentStatus"] != "REFUNDED" || r["refundTxHash"] != done["refundTxHash"] {
			t.Fatalf("refund request %v", r)
		}
	}
	// The expiry and the refund job each announced their statuses once, to the sender; the
	// repeated refund requests announced nothing more.
	for _, st := range []string{"open", "expired", "refunded"} {
		if d := sender.Root.OneEventOf(t, "claim."+st, claimID); d["amount"] != "10" || d["paymentId"] != payID {
			t.Fatalf("claim.%s: %v", st, d)
		}
	}
	for _, st := range []string{"refund_pending", "refunded"} {
		sender.Root.OneEventOf(t, "offramp_payment."+st, payID)
	}
}

func TestClaim_SenderOnlyOperationsAndResendBudget(t *testing.T) {
	t.Parallel()
	sender := funded(t, "50")
	_, _, cl := openClaim(t, sender, "5")
	claimID := cl["claimId"].(string)
	first := harness.SMSBody(t, sender.Root, "claim_link", nil)
	other := env().NewTenant(t)
	other.Root.Get("/v1/offramp/claims/"+claimID).ExpectError(t, 404, "CLAIM_NOT_FOUND")
	other.Root.Post("/v1/offramp/claims/"+claimID+"/resend", nil).ExpectError(t, 404, "CLAIM_NOT_FOUND")
	other.Root.Post("/v1/offramp/claims/"+claimID+"/refund-request", nil).ExpectError(t, 404, "CLAIM_NOT_FOUND")
	other.Root.Post("/v1/sandbox/offramp/claims/"+claimID+"/expire", nil).ExpectError(t, 404, "CLAIM_NOT_FOUND")
	sender.Root.Post("/v1/offramp/payments/"+cl["paymentId"].(string)+"/cancel", nil).ExpectError(t, 409, "CLAIM_ALREADY_FUNDED")

	seen := map[string]bool{first: true}
	prev := harness.ClaimLinkToken(t, first)
	for i := 0; i < claim.MaxResends; i++ {
		r := sender.Root.Post("/v1/offramp/claims/"+claimID+"/resend", nil).Expect(t, 200).JSON(t)
		if r["expiresAt"] != cl["expiresAt"] {
			t.Fatalf("resend %v", r)
		}
		body := harness.SMSBody(t, sender.Root, "claim_link", seen)
		seen[body] = true
		next := harness.ClaimLinkToken(t, body)
		env().Client(t).Get("/v1/claims/"+prev).ExpectError(t, 404, "CLAIM_NOT_FOUND")
		env().Client(t).Get("/v1/claims/"+next).Expect(t, 200)
		prev = next
	}
	e := sender.Root.Post("/v1/offramp/claims/"+claimID+"/resend", nil).ExpectError(t, 429, "CLAIM_RESEND_LIMIT")
	if e["details"].(map[string]any)["retryAfterSeconds"] == nil {
		t.Fatalf("resend limit %v", e)
	}
	for _, bad := range []string{"nope", strings.Repeat("A", 43), "%00"} {
		r := env().Client(t).Get("/v1/claims/" + bad)
		if r.Status != 404 && r.Status != 400 {
			t.Fatalf("token %q: %d %s", bad, r.Status, r.Body)
		}
	}
}

func TestClaim_PhoneCodeBudgetPerPhone(t *testing.T) {
	t.Parallel()
	sender := funded(t, "10")
	_, _, _ = openClaim(t, sender, "1")
	token := harness.ClaimLinkToken(t, harness.SMSBody(t, sender.Root, "claim_link", nil))
	for i := 0; i < claim.MaxCodesPerPhone; i++ {
		env().Client(t).Post("/v1/claims/"+token+"/phone-code", nil).Expect(t, 201)
	}
	r := env().Client(t).Post("/v1/claims/"+token+"/phone-code", nil)
	e := r.ExpectError(t, 429, "RATE_LIMITED")
	if e["details"].(map[string]any)["scope"] != "phone" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("budget %v, Retry-After %q", e, r.Header.Get("Retry-After"))
	}
}

func TestClaim_CreateGuards(t *testing.T) {
	t.Parallel()
	poor := funded(t, "1")
	poor.Root.Post("/v1/offramp/payments", map[string]any{"phone": harness.Phone("628"), "amountUsd": "2"}).ExpectError(t, 422, "INSUFFICIENT_FUNDS")
	harness.ExpectServiceBalance(t, poor.Root, 1_000_000, 0)
	if n := len(poor.Root.Get("/v1/offramp/payments").Expect(t, 200).JSON(t)["payments"].([]any)); n != 0 {
		t.Fatalf("a refused create leaves no payment: %d", n)
	}
	poor.Root.Post("/v1/offramp/payments", map[string]any{"phone": harness.Phone("628"), "amountUsd": "1", "requestedDestinationId": "dst_x"}).
		ExpectError(t, 403, "DESTINATION_NOT_ELIGIBLE")

	// One Idempotency-Key, parallel retries: one payment, one claim, one reservation.
	sender := funded(t, "10")
	phone := harness.Phone("628")
	var wg sync.WaitGroup
	ids := make([]string, 8)
	for i := range ids {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := sender.Root.With("Idempotency-Key", "claim-create-"+sender.ID).Post("/v1/offramp/payments", map[string]any{"phone": phone, "amountUsd": "3"})
			if r.Status == 201 {
				ids[i] = r.JSON(t)["claimId"].(string)
			}
		}(i)
	}
	wg.Wait()
	claims := map[string]bool{}
	for _, id := range ids {
		if id != "" {
			claims[id] = true
		}
	}
	if len(claims) != 1 {
		t.Fatalf("one key must open one claim: %v", ids)
	}
	harness.ExpectServiceBalance(t, sender.Root, 7_000_000, 3_000_000)
}

func TestClaim_CapabilitiesAndOpenAPI(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	caps := ten.Root.Get("/v1/capabilities").Expect(t, 200).JSON(t)
	if caps["features"].(map[string]any)["pendingClaims"] != true {
		t.Fatalf("with a claim escrow pendingClaims is on: %v", caps["features"])
	}
	doc := env().Client(t).Get("/v1/openapi.json").Expect(t, 200).JSON(t)
	paths := doc["paths"].(map[string]any)
	for _, p := range []string{"/v1/claims/{claimToken}", "/v1/claims/{claimToken}/phone-code", "/v1/claims/{claimToken}/phone-code/verify",
		"/v1/claims/{claimToken}/redeem", "/v1/offramp/claims/{claimId}", "/v1/offramp/claims/{claimId}/resend",
		"/v1/offramp/claims/{claimId}/refund-request", "/v1/sandbox/offramp/claims/{claimId}/expire"} {
		if paths[p] == nil {
			t.Fatalf("OpenAPI lacks %s", p)
		}
	}
}

// Re-delivered escrow logs (the indexer's cursor moved back, as after a crash between reading
// and saving) change nothing: every event is recorded once by (chain, tx, log index).
func TestClaim_ReindexedLogsChangeNothing(t *testing.T) {
	sender := funded(t, "20")
	_, pay, cl := openClaim(t, sender, "4")
	claimID, payID := cl["claimId"].(string), pay["paymentId"].(string)
	sender.Root.Post("/v1/sandbox/offramp/claims/"+claimID+"/expire", nil).Expect(t, 200)
	harness.WaitClaim(t, sender.Root, claimID, "refunded", func(c map[string]any) bool { return c["status"] == "REFUNDED" })
	before := harness.PaymentLedger(t, env().DatabaseURL, payID)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var events int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM offramp_escrow_events WHERE claim_id = $1`, claimID).Scan(&events); err != nil || events < 2 {
		t.Fatalf("escrow events %d %v", events, err)
	}
	if _, err := conn.Exec(ctx, `UPDATE offramp_escrow_cursors SET next_block = 0`); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the indexer runs again", func() bool {
		var next int64
		if err := conn.QueryRow(ctx, `SELECT max(next_block) FROM offramp_escrow_cursors`).Scan(&next); err != nil {
			t.Fatal(err)
		}
		return next > 0
	})
	var after int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM offramp_escrow_events WHERE claim_id = $1`, claimID).Scan(&after); err != nil || after != events {
		t.Fatalf("re-indexing recorded events again: %d, was %d", after, events)
	}
	if got := harness.PaymentLedger(t, env().DatabaseURL, payID); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("re-indexing moved money: %v, was %v", got, before)
	}
	harness.ExpectServiceBalance(t, sender.Root, 20_000_000, 0)
	if p := sender.Root.Get("/v1/offramp/payments/"+payID).Expect(t, 200).JSON(t); p["status"] != "REFUNDED" {
		t.Fatalf("payment %v", p)
	}
}

// TestClaim_SandboxExpireOfARedeemedClaimSaysSo: the sandbox helper does not end a redeemed
// claim's lifetime early; its 409 CLAIM_NOT_EXPIRED says the claim was redeemed (details
// redeemedAt) instead of only pointing the sender at a refund after expiresAt, and the claim
// and its payment are unchanged.
func TestClaim_SandboxExpireOfARedeemedClaimSaysSo(t *testing.T) {
	t.Parallel()
	sender := funded(t, "20")
	_, payment, cl := openClaim(t, sender, "5")
	claimID, payID := cl["claimId"].(string), payment["paymentId"].(string)
	token := harness.ClaimLinkToken(t, harness.SMSBody(t, sender.Root, "claim_link", nil))
	anon := env().Client(t)
	ch := anon.Post("/v1/claims/"+token+"/phone-code", nil).Expect(t, 201).JSON(t)
	code := harness.SMSCode(t, harness.SMSBody(t, sender.Root, "claim_phone_code", nil))
	anon.Post("/v1/claims/"+token+"/phone-code/verify", map[string]any{"challengeId": ch["challengeId"], "code": code}).Expect(t, 200)
	recipient, dest := onboarded(t)
	recipient.Root.Post("/v1/claims/"+token+"/redeem", map[string]any{"challengeId": ch["challengeId"], "destinationId": dest}).Expect(t, 200)

	e := sender.Root.Post("/v1/sandbox/offramp/claims/"+claimID+"/expire", nil).ExpectError(t, 409, "CLAIM_NOT_EXPIRED")
	details, _ := e["details"].(map[string]any)
	if details["redeemedAt"] == nil || !strings.Contains(e["message"].(string), "redeemed") {
		t.Fatalf("the refusal does not say the claim was redeemed: %v", e)
	}
	got := sender.Root.Get("/v1/offramp/claims/"+claimID).Expect(t, 200).JSON(t)
	if got["expiresAt"] != cl["expiresAt"] || got["redeemed"] != true || got["paymentStatus"] == "REFUND_PENDING" {
		t.Fatalf("the claim changed: %v", got)
	}
	if p := sender.Root.Get("/v1/offramp/payments/"+payID).Expect(t, 200).JSON(t); p["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("the payment changed: %v", p)
	}
}
