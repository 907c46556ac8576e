package offramp

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

const usd = 1_000_000

func TestOfframp_IntakeOutcomes(t *testing.T) {
	t.Parallel()
	p := newPair(t, "100")
	dest := destination(t, p.recipient.Root, serviceBalance)

	// 1. Onboarded recipient with a usable destination: quotes, masked phone only.
	resp := p.create(t, "10", nil).Expect(t, 201)
	noPhone(t, p.phone, resp.Body)
	m := resp.JSON(t)
	if m["status"] != "AWAITING_RECIPIENT_CONFIRMATION" || m["recipientTenantId"] != p.recipient.ID ||
		m["sourceAmountBaseUnits"] != "10000000" || m["sourceFundingMode"] != "INTERNAL_BALANCE" ||
		m["sourceChainKey"] != "eip155:84532" || !strings.HasPrefix(m["recipientPhoneMasked"].(string), "+1 ") {
		t.Fatalf("create: %v", m)
	}
	quotes := m["quotes"].([]any)
	q := quotes[0].(map[string]any)
	if len(quotes) != 1 || q["destinationId"] != dest || q["provider"] != "internal" || q["destinationAmountMinor"] != "10000000" ||
		q["destinationCurrency"] != "USDC" || q["status"] != "ACTIVE" || q["fees"].(map[string]any)["providerFeeMinor"] != "0" {
		t.Fatalf("quotes: %v", quotes)
	}
	g := get(t, p.sender.Root, m["paymentId"].(string))
	if _, ok := g["quotes"]; ok {
		t.Fatalf("get carries quotes: %v", g)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, 90*usd, 10*usd)

	// Unknown phone: a pending claim needs the claim escrow; this server has no chain, so the
	// payment is refused and nothing is reserved (test/claims covers the claim itself).
	p.sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": harness.Phone("415"), "amountUsd": "1"}).ExpectError(t, 503, "CHAIN_UNAVAILABLE")
	// Funding modes other than INTERNAL_BALANCE.
	for _, mode := range []string{"ONCHAIN_DEPOSIT", "SAFE_PROPOSAL"} {
		p.create(t, "1", map[string]any{"fundingMode": mode}).ExpectError(t, 400, "FUNDING_MODE_NOT_AVAILABLE")
	}
	// A destination that is not the recipient's.
	other := onboarded(t)
	foreign := destination(t, other.Root, serviceBalance)
	p.create(t, "1", map[string]any{"requestedDestinationId": foreign}).ExpectError(t, 403, "DESTINATION_NOT_ELIGIBLE")
	p.create(t, "1", map[string]any{"requestedDestinationId": "dst_nope"}).ExpectError(t, 403, "DESTINATION_NOT_ELIGIBLE")
	ok := p.create(t, "1", map[string]any{"requestedDestinationId": dest}).Expect(t, 201).JSON(t)
	if ok["requestedDestinationId"] != dest || ok["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("requested destination: %v", ok)
	}
	// Validation: more than 6 fraction digits, a bad speed preference.
	harness.Field(p.create(t, "1.0000001", nil).ExpectError(t, 400, "VALIDATION_FAILED"), "amountUsd")
	p.create(t, "1", map[string]any{"speedPreference": "SLOW"}).ExpectError(t, 400, "VALIDATION_FAILED")
	// Short balance: a clear refusal, nothing reserved.
	p.create(t, "1000", nil).ExpectError(t, 422, "INSUFFICIENT_FUNDS")
	harness.ExpectServiceBalance(t, p.sender.Root, 89*usd, 11*usd)
	// Paying one's own number.
	selfPhone := harness.Phone("415")
	verifiedAlias(t, p.sender.Root, selfPhone)
	p.sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": selfPhone, "amountUsd": "1"}).ExpectError(t, 422, "SELF_PAYMENT_NOT_ALLOWED")
	trialBalanceZero(t, p.sender, p.recipient)
}

func TestOfframp_HoldsAndRejections(t *testing.T) {
	t.Parallel()
	// 3. Onboarded, no usable destination (only a non-routable one).
	p := newPair(t, "100")
	destination(t, p.recipient.Root, map[string]any{"type": "SEPA", "iban": "DE89370400440532013000"})
	m := p.create(t, "10", nil).Expect(t, 201).JSON(t)
	if m["status"] != "PAYOUT_SELECTION_REQUIRED" || fmt.Sprint(m["holdReasons"]) != "[PAYOUT_DESTINATION_NOT_SELECTED]" || len(m["quotes"].([]any)) != 0 {
		t.Fatalf("no destination: %v", m)
	}
	held := m["paymentId"].(string)
	// Adding a destination clears the hold: the composer runs again and quotes.
	destination(t, p.recipient.Root, serviceBalance)
	if g := get(t, p.sender.Root, held); g["status"] != "AWAITING_RECIPIENT_CONFIRMATION" || len(g["holdReasons"].([]any)) != 0 {
		t.Fatalf("after adding a destination: %v", g)
	}

	// 4. Policy holds: screening (amount ending 91) and a recipient without a credential.
	m = p.create(t, "5.000091", nil).Expect(t, 201).JSON(t)
	if m["status"] != "COMPLIANCE_HOLD" || fmt.Sprint(m["holdReasons"]) != "[TRANSACTION_MONITORING_REVIEW]" {
		t.Fatalf("monitoring hold: %v", m)
	}
	fresh := pair{sender: p.sender, recipient: env().NewTenant(t), phone: harness.Phone("415")}
	verifiedAlias(t, fresh.recipient.Root, fresh.phone)
	m = fresh.create(t, "1", nil).Expect(t, 201).JSON(t)
	if m["status"] != "COMPLIANCE_HOLD" || !strings.Contains(fmt.Sprint(m["holdReasons"]), "RECIPIENT_NOT_ONBOARDED") {
		t.Fatalf("not onboarded: %v", m)
	}

	// 5. Policy REJECT while unfunded (sanctions, amount ending 92): CANCELED, the hold voided.
	before, beforeHeld := harness.ServiceBalance(t, p.sender.Root)
	m = p.create(t, "2.000092", nil).Expect(t, 201).JSON(t)
	if m["status"] != "CANCELED" || fmt.Sprint(m["holdReasons"]) != "[SANCTIONS_REVIEW_REQUIRED]" || m["failureReason"] != "SANCTIONS_REVIEW_REQUIRED" {
		t.Fatalf("reject: %v", m)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, before, beforeHeld)
	if l := harness.PaymentLedger(t, env().DatabaseURL, m["paymentId"].(string)); len(l) != 0 {
		t.Fatalf("a rejected payment moved money: %v", l)
	}
	trialBalanceZero(t, p.sender)
}

func TestOfframp_InternalDelivered(t *testing.T) {
	t.Parallel()
	p := newPair(t, "50")
	destination(t, p.recipient.Root, serviceBalance)
	id := p.create(t, "12.5", nil).Expect(t, 201).JSON(t)["paymentId"].(string)
	selectAndConfirm(t, p, id)
	d := waitStatus(t, p.recipient.Root, id, "DELIVERED")
	if d["deliveredAt"] == nil {
		t.Fatalf("delivered: %v", d)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, 37_500_000, 0)
	harness.WaitServiceBalance(t, p.recipient.Root, 12_500_000, 0)
	l := harness.PaymentLedger(t, env().DatabaseURL, id)
	if l["tenant:"+p.sender.ID+":available"] != -12_500_000 || l["tenant:"+p.recipient.ID+":available"] != 12_500_000 || len(l) != 2 {
		t.Fatalf("ledger %v", l)
	}
	trialBalanceZero(t, p.sender, p.recipient)
}

// TestOfframp_MockOutcomes runs the mock's scripts over APP_WALLET_A: 00 delivered, 03
// blocked then failed and refunded, 07 delivered then returned (DELIVERED stays).
func TestOfframp_MockOutcomes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		amount      string
		final       string
		senderAvail int64
	}{
		// 1% fee; cents delivered, the sub-cent remainder is fee.
		{"10", "DELIVERED", 10 * usd},
		{"10.000003", "REFUNDED", 20 * usd},
		{"10.000007", "DELIVERED", 20*usd - 10_000_007 + 9_900_000},
	}
	for _, c := range cases {
		t.Run(c.amount, func(t *testing.T) {
			t.Parallel()
			p := newPair(t, "20")
			destination(t, p.recipient.Root, walletA)
			m := p.create(t, c.amount, nil).Expect(t, 201).JSON(t)
			q := m["quotes"].([]any)[0].(map[string]any)
			if q["provider"] != "wallet_a" || q["destinationCurrency"] != "USD" || q["destinationAmountMinor"] != "990" || q["requiresConversion"] != true {
				t.Fatalf("quote %v", q)
			}
			id := m["paymentId"].(string)
			selectAndConfirm(t, p, id)
			final := waitStatus(t, p.sender.Root, id, c.final)
			l := harness.PaymentLedger(t, env().DatabaseURL, id)
			switch c.final {
			case "DELIVERED":
				if final["deliveredAt"] == nil {
					t.Fatalf("%v", final)
				}
			case "REFUNDED":
				if final["failureReason"] != "PROVIDER_FAILED" || final["deliveredAt"] != nil || len(l) != 0 {
					t.Fatalf("refunded %v ledger %v", final, l)
				}
			}
			if c.amount == "10.000007" {
				// The return is booked once, after DELIVERED, with its own transfer.
				waitLedger(t, id, "tenant:"+p.sender.ID+":available", -(10_000_007 - 9_900_000))
				if g := get(t, p.sender.Root, id); g["status"] != "DELIVERED" {
					t.Fatalf("return changed the status: %v", g)
				}
				l = harness.PaymentLedger(t, env().DatabaseURL, id)
				if l["world:APP_WALLET_A"] != 0 || l["platform:fees"] != 100_007 {
					t.Fatalf("ledger after return %v", l)
				}
			}
			if c.amount == "10" && (l["world:APP_WALLET_A"] != 9_900_000 || l["tenant:"+p.sender.ID+":available"] != -10*usd) {
				t.Fatalf("ledger %v", l)
			}
			harness.ExpectServiceBalance(t, p.sender.Root, c.senderAvail, 0)
			trialBalanceZero(t, p.sender, p.recipient)
		})
	}
}

func waitLedger(t *testing.T, id, ref string, want int64) {
	t.Helper()
	harness.Eventually(t, fmt.Sprintf("reached %d on %s of %s", want, ref, id), func() bool {
		return harness.PaymentLedger(t, env().DatabaseURL, id)[ref] == want
	})
}

func TestOfframp_Roles(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	m := p.create(t, "5", nil).Expect(t, 201).JSON(t)
	id := m["paymentId"].(string)
	rid := m["quotes"].([]any)[0].(map[string]any)["routeId"].(string)
	path := "/v1/offramp/payments/" + id
	p.sender.Root.Post(path+"/select-route", map[string]any{"routeQuoteId": rid}).ExpectError(t, 403, "RECIPIENT_CONSENT_REQUIRED")
	p.sender.Root.Post(path+"/confirm", nil).ExpectError(t, 403, "RECIPIENT_CONSENT_REQUIRED")
	p.recipient.Root.Post(path+"/cancel", nil).ExpectError(t, 403, "SENDER_ONLY")
	third := env().NewTenant(t)
	third.Root.Get(path).ExpectError(t, 404, "OFFRAMP_PAYMENT_NOT_FOUND")
	third.Root.Get(path+"/routes").ExpectError(t, 404, "OFFRAMP_PAYMENT_NOT_FOUND")
	third.Root.Post(path+"/confirm", nil).ExpectError(t, 404, "OFFRAMP_PAYMENT_NOT_FOUND")
	third.Root.Post(path+"/cancel", nil).ExpectError(t, 404, "OFFRAMP_PAYMENT_NOT_FOUND")
	// Confirm before selecting.
	p.recipient.Root.Post(path+"/confirm", nil).ExpectError(t, 409, "ROUTE_NOT_SELECTED")
	// Both parties list it; the third does not.
	for _, c := range []*harness.Client{p.sender.Root, p.recipient.Root} {
		l := c.Get("/v1/offramp/payments").Expect(t, 200).JSON(t)
		if l["total"] != float64(1) || l["payments"].([]any)[0].(map[string]any)["paymentId"] != id {
			t.Fatalf("list %v", l)
		}
	}
	if l := third.Root.Get("/v1/offramp/payments").Expect(t, 200).JSON(t); l["total"] != float64(0) {
		t.Fatalf("third list %v", l)
	}
	// Scopes.
	reader := harness.Shared().NewKey(t, p.sender.Session, map[string]any{"name": "r", "scopes": []string{"ramps:read"}})
	env().Client(t).WithKey(reader).Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "1"}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	env().Client(t).WithKey(reader).Get(path).Expect(t, 200)

	// Two racing confirms lock once.
	p.recipient.Root.Post(path+"/select-route", map[string]any{"routeQuoteId": rid}).Expect(t, 200)
	var wg sync.WaitGroup
	statuses := make([]int, 4)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = p.recipient.Root.Post(path+"/confirm", nil).Status
		}()
	}
	wg.Wait()
	okN := 0
	for _, s := range statuses {
		switch s {
		case 200:
			okN++
		case 409:
		default:
			t.Fatalf("confirm statuses %v", statuses)
		}
	}
	if okN != 1 {
		t.Fatalf("confirm statuses %v", statuses)
	}
	// Funded: the sender can no longer cancel.
	p.sender.Root.Post(path+"/cancel", nil).ExpectError(t, 409, "INVALID_STATE")
	waitStatus(t, p.sender.Root, id, "DELIVERED")
	l := harness.PaymentLedger(t, env().DatabaseURL, id)
	if l["tenant:"+p.sender.ID+":available"] != -5*usd {
		t.Fatalf("locked more than once: %v", l)
	}
	p.sender.Root.Post(path+"/cancel", nil).ExpectError(t, 409, "INVALID_STATE")
}

// TestOfframp_ExpiredQuote: the sandbox helper does what time passing would: the set expires,
// the payment goes back through POLICY_CHECK and has a fresh set at once (the selection is
// cleared); a quote of the expired set is refused QUOTE_EXPIRED without requoting again, and the
// fresh set pays out.
func TestOfframp_ExpiredQuote(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	m := p.create(t, "3", nil).Expect(t, 201).JSON(t)
	id := m["paymentId"].(string)
	old := m["quotes"].([]any)[0].(map[string]any)["routeId"].(string)
	path := "/v1/offramp/payments/" + id
	p.recipient.Root.Post(path+"/select-route", map[string]any{"routeQuoteId": old}).Expect(t, 200)
	expired := p.sender.Root.Post("/v1/sandbox/offramp/payments/"+id+"/expire-quotes", nil).Expect(t, 200).JSON(t)
	if expired["status"] != "AWAITING_RECIPIENT_CONFIRMATION" || expired["selectedRouteQuoteId"] != nil {
		t.Fatalf("after the helper: %v", expired)
	}
	routes := p.recipient.Root.Get(path+"/routes").Expect(t, 200).JSON(t)["routes"].([]any)
	if len(routes) != 1 || routes[0].(map[string]any)["routeId"] == old {
		t.Fatalf("want a fresh set of one route, got %v", routes)
	}
	fresh := routes[0].(map[string]any)["routeId"].(string)
	// Nothing is selected any more; the expired quote can be neither confirmed nor selected,
	// and refusing it leaves the fresh set in place.
	p.recipient.Root.Post(path+"/confirm", nil).Expect(t, 409)
	e := p.recipient.Root.Post(path+"/select-route", map[string]any{"routeQuoteId": old}).ExpectError(t, 409, "QUOTE_EXPIRED")
	if e["details"].(map[string]any)["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("expired: %v", e)
	}
	if r := p.recipient.Root.Get(path+"/routes").Expect(t, 200).JSON(t)["routes"].([]any); len(r) != 1 || r[0].(map[string]any)["routeId"] != fresh {
		t.Fatalf("refusing an old quote requoted: %v", r)
	}
	p.recipient.Root.Post(path+"/select-route", map[string]any{"routeQuoteId": "rq_nope"}).ExpectError(t, 404, "ROUTE_QUOTE_NOT_FOUND")
	harness.ExpectServiceBalance(t, p.sender.Root, 17*usd, 3*usd)
	selectAndConfirm(t, p, id)
	waitStatus(t, p.sender.Root, id, "DELIVERED")
	harness.ExpectServiceBalance(t, p.sender.Root, 17*usd, 0)
	trialBalanceZero(t, p.sender, p.recipient)
	// A payment past confirmation has no set to expire: 409, nothing changes.
	p.sender.Root.Post("/v1/sandbox/offramp/payments/"+id+"/expire-quotes", nil).ExpectError(t, 409, "INVALID_STATE")
	if g := get(t, p.sender.Root, id); g["status"] != "DELIVERED" {
		t.Fatalf("after a refused helper: %v", g)
	}
}

// TestOfframp_ExpiredQuoteHolds: when the composer would hold the payment by the time its quotes
// expire (the recipient's credential was suspended meanwhile), the helper leaves it held, as
// time would: no routes, the reservation kept; reinstating the credential requotes.
func TestOfframp_ExpiredQuoteHolds(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	id := p.create(t, "4", nil).Expect(t, 201).JSON(t)["paymentId"].(string)
	p.recipient.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "SUSPENDED"}).Expect(t, 200)
	held := p.recipient.Root.Post("/v1/sandbox/offramp/payments/"+id+"/expire-quotes", nil).Expect(t, 200).JSON(t)
	if held["status"] != "COMPLIANCE_HOLD" || fmt.Sprint(held["holdReasons"]) != "[CREDENTIAL_SUSPENDED]" {
		t.Fatalf("after the helper: %v", held)
	}
	if r := p.recipient.Root.Get("/v1/offramp/payments/"+id+"/routes").Expect(t, 200).JSON(t)["routes"].([]any); len(r) != 0 {
		t.Fatalf("a held payment lists routes: %v", r)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, 16*usd, 4*usd)
	p.recipient.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	if g := get(t, p.sender.Root, id); g["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("after reinstating: %v", g)
	}
	selectAndConfirm(t, p, id)
	waitStatus(t, p.sender.Root, id, "DELIVERED")
	trialBalanceZero(t, p.sender, p.recipient)
}

func TestOfframp_Cancel(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	id := p.create(t, "4", nil).Expect(t, 201).JSON(t)["paymentId"].(string)
	harness.ExpectServiceBalance(t, p.sender.Root, 16*usd, 4*usd)
	c := p.sender.Root.Post("/v1/offramp/payments/"+id+"/cancel", nil).Expect(t, 200).JSON(t)
	if c["status"] != "CANCELED" {
		t.Fatalf("cancel %v", c)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, 20*usd, 0)
	p.sender.Root.Post("/v1/offramp/payments/"+id+"/cancel", nil).ExpectError(t, 409, "INVALID_STATE")
	p.recipient.Root.Post("/v1/offramp/payments/"+id+"/confirm", nil).ExpectError(t, 409, "INVALID_STATE")
	if l := harness.PaymentLedger(t, env().DatabaseURL, id); len(l) != 0 {
		t.Fatalf("ledger %v", l)
	}
	// A held payment is unfunded too.
	p2 := newPair(t, "20")
	id2 := p2.create(t, "4", nil).Expect(t, 201).JSON(t)["paymentId"].(string)
	if c := p2.sender.Root.Post("/v1/offramp/payments/"+id2+"/cancel", nil).Expect(t, 200).JSON(t); c["status"] != "CANCELED" {
		t.Fatalf("cancel held %v", c)
	}
	harness.ExpectServiceBalance(t, p2.sender.Root, 20*usd, 0)
	trialBalanceZero(t, p.sender, p2.sender)
}

// TestOfframp_ParallelCreatesNeverOverdraw: 12 creates of 10 on a balance of 50: five fit,
// the rest are refused cleanly.
func TestOfframp_ParallelCreatesNeverOverdraw(t *testing.T) {
	t.Parallel()
	p := newPair(t, "50")
	destination(t, p.recipient.Root, serviceBalance)
	var wg sync.WaitGroup
	statuses := make([]int, 12)
	codes := make([]string, 12)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := p.create(t, "10", nil)
			statuses[i] = r.Status
			if r.Status != 201 {
				m := map[string]any{}
				_ = jsonUnmarshal(r.Body, &m)
				codes[i], _ = m["code"].(string)
			}
		}()
	}
	wg.Wait()
	created := 0
	for i, s := range statuses {
		switch {
		case s == 201:
			created++
		case s == 422 && codes[i] == "INSUFFICIENT_FUNDS":
		default:
			t.Fatalf("statuses %v codes %v", statuses, codes)
		}
	}
	if created != 5 {
		t.Fatalf("%d creates fit, want 5: %v", created, statuses)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, 0, 50*usd)
	trialBalanceZero(t, p.sender)
}

func TestOfframp_IdempotentCreate(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	c := p.sender.Root.With("Idempotency-Key", "offramp-create-"+p.sender.ID)
	body := map[string]any{"phone": p.phone, "amountUsd": "2"}
	var wg sync.WaitGroup
	ids := make([]string, 5)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := c.Post("/v1/offramp/payments", body)
			if r.Status == 201 {
				m := map[string]any{}
				_ = jsonUnmarshal(r.Body, &m)
				ids[i], _ = m["paymentId"].(string)
			}
		}()
	}
	wg.Wait()
	again := c.Post("/v1/offramp/payments", body).Expect(t, 201)
	want := again.JSON(t)["paymentId"].(string)
	if again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatal("not replayed")
	}
	for _, id := range ids {
		if id != "" && id != want {
			t.Fatalf("ids %v, want %s", ids, want)
		}
	}
	if l := p.sender.Root.Get("/v1/offramp/payments").Expect(t, 200).JSON(t); l["total"] != float64(1) {
		t.Fatalf("list %v", l)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, 18*usd, 2*usd)
	c.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "3"}).ExpectError(t, 422, "IDEMPOTENCY_KEY_REUSED")
}

// TestOfframp_PreSubmissionRecheck: a recipient whose credential is suspended after quoting
// can still confirm, but the re-check before submission fails: the funds unlock, a new
// reservation is taken and the composer holds the payment. Reinstating the credential clears
// the hold with a fresh set.
func TestOfframp_PreSubmissionRecheck(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	id := p.create(t, "6", nil).Expect(t, 201).JSON(t)["paymentId"].(string)
	p.recipient.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "SUSPENDED"}).Expect(t, 200)
	if g := get(t, p.sender.Root, id); g["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("awaiting payments are not re-evaluated: %v", g)
	}
	selectAndConfirm(t, p, id)
	held := waitStatus(t, p.sender.Root, id, "COMPLIANCE_HOLD")
	if fmt.Sprint(held["holdReasons"]) != "[CREDENTIAL_SUSPENDED]" || held["selectedRouteQuoteId"] != nil || held["requoteReason"] != "POLICY_CHANGED" {
		t.Fatalf("after the failed re-check: %v", held)
	}
	expectRequoteEvent(t, p.sender.Root, id, "offramp_payment.compliance_hold", "POLICY_CHANGED")
	harness.ExpectServiceBalance(t, p.sender.Root, 14*usd, 6*usd)
	if l := harness.PaymentLedger(t, env().DatabaseURL, id); len(l) != 0 {
		t.Fatalf("lock and unlock should net to nothing: %v", l)
	}
	p.recipient.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	if g := get(t, p.sender.Root, id); g["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("after reinstating: %v", g)
	}
	selectAndConfirm(t, p, id)
	if d := waitStatus(t, p.sender.Root, id, "DELIVERED"); d["requoteReason"] != nil {
		t.Fatalf("the reason outlived the recipient's new confirmation: %v", d)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, 14*usd, 0)
	harness.WaitServiceBalance(t, p.recipient.Root, 6*usd, 0)
	trialBalanceZero(t, p.sender, p.recipient)
}

// expectRequoteEvent finds the payment's event of type eventType and checks it carries the
// requote reason.
func expectRequoteEvent(t *testing.T, c *harness.Client, paymentID, eventType, reason string) {
	t.Helper()
	events := c.Get("/v1/events?type="+eventType).Expect(t, 200).JSON(t)["events"].([]any)
	for _, e := range events {
		ev := e.(map[string]any)
		data, _ := ev["data"].(map[string]any)
		if data["id"] == paymentID || ev["resourceId"] == paymentID {
			if data["requoteReason"] != reason {
				t.Fatalf("event %v, want requoteReason %s", ev, reason)
			}
			return
		}
	}
	t.Fatalf("no %s event of %s among %v", eventType, paymentID, events)
}
