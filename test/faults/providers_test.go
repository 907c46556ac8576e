package faults

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

// usd is one USD in base units.
const usd = 1_000_000

// flaky is the package's payout provider decorator (wiring.PayoutConfig.Decorate).
var flaky = &flakyProvider{submitFailures: map[string]int{}, pollFailures: map[string]int{}, references: map[string]string{}}

// flakyProvider puts a provider's 5xx answers in front of the mock: a Submit it fails has
// reached the provider first (the payout is recorded there, then the answer is an HTTP 503),
// so a retry must not pay twice; a Poll it fails is answered 503 without stepping.
type flakyProvider struct {
	mu             sync.Mutex
	submitFailures map[string]int    // by payment id; negative: until heal
	pollFailures   map[string]int    // by payment id
	references     map[string]string // provider reference → payment id
}

type flakyRail struct {
	ports.PayoutProvider
	f *flakyProvider
}

func (f *flakyProvider) decorate(name string, p ports.PayoutProvider) ports.PayoutProvider {
	if name != "wallet_a" {
		return p
	}
	return flakyRail{PayoutProvider: p, f: f}
}

// fail makes the next submits and polls of a payment answer 503 (submits < 0: until heal).
func (f *flakyProvider) fail(paymentID string, submits, polls int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.submitFailures[paymentID], f.pollFailures[paymentID] = submits, polls
}

// heal lets the payment's calls through.
func (f *flakyProvider) heal(paymentID string) { f.fail(paymentID, 0, 0) }

// take reports whether this call of the payment fails, counting it down.
func take(failures map[string]int, paymentID string) bool {
	n := failures[paymentID]
	if n == 0 {
		return false
	}
	if n > 0 {
		failures[paymentID] = n - 1
	}
	return true
}

var errProvider5xx = core.E(core.CodeProviderUnavailable, "wallet_a answered HTTP 503")

func (r flakyRail) Submit(ctx context.Context, req ports.PayoutRequest) (ports.PayoutStatus, error) {
	st, err := r.PayoutProvider.Submit(ctx, req)
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	if err == nil && st.Reference != "" {
		r.f.references[st.Reference] = req.PaymentID
	}
	if err == nil && take(r.f.submitFailures, req.PaymentID) {
		return ports.PayoutStatus{}, errProvider5xx
	}
	return st, err
}

func (r flakyRail) Poll(ctx context.Context, reference string) (ports.PayoutStatus, error) {
	r.f.mu.Lock()
	failing := take(r.f.pollFailures, r.f.references[reference])
	r.f.mu.Unlock()
	if failing {
		return ports.PayoutStatus{}, errProvider5xx
	}
	return r.PayoutProvider.Poll(ctx, reference)
}

// offrampPair is a funded sender and an onboarded recipient with a verified phone and a
// wallet_a destination.
type offrampPair struct {
	sender, recipient *harness.Tenant
	phone             string
}

var sixDigits = regexp.MustCompile(`\b(\d{6})\b`)

func newOfframpPair(t *testing.T, fundUSD string) offrampPair {
	t.Helper()
	env := harness.Shared()
	p := offrampPair{sender: env.NewTenant(t), recipient: env.NewTenant(t), phone: harness.Phone("415")}
	p.sender.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": fundUSD}).Expect(t, 201)
	rc := p.recipient.Root
	rc.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	alias := rc.Post("/v1/phone-aliases", map[string]any{"phone": p.phone}).Expect(t, 201).JSON(t)
	msgs := rc.Get("/v1/sandbox/sms-messages?take=1").Expect(t, 200).JSON(t)["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatal("no SMS in the outbox")
	}
	code := sixDigits.FindStringSubmatch(msgs[0].(map[string]any)["body"].(string))
	if code == nil {
		t.Fatalf("no code in %v", msgs[0])
	}
	rc.Post("/v1/phone-aliases/"+alias["id"].(string)+"/verify", map[string]any{"code": code[1]}).Expect(t, 200)
	rc.Post("/v1/payout-destinations", map[string]any{"type": "APP_WALLET_A", "email": "recipient@example.com"}).Expect(t, 201)
	return p
}

// create starts a payment of amountUSD with an Idempotency-Key and returns its id.
func (p offrampPair) create(t *testing.T, amountUSD, key string) string {
	t.Helper()
	return p.sender.Root.With("Idempotency-Key", key).Post("/v1/offramp/payments",
		map[string]any{"phone": p.phone, "amountUsd": amountUSD}).Expect(t, 201).JSON(t)["paymentId"].(string)
}

// confirm selects the first route and confirms it (FUNDS_LOCKED: the submission job runs).
func (p offrampPair) confirm(t *testing.T, id string) {
	t.Helper()
	rc := p.recipient.Root
	routes := rc.Get("/v1/offramp/payments/"+id+"/routes").Expect(t, 200).JSON(t)["routes"].([]any)
	if len(routes) == 0 {
		t.Fatalf("no routes for %s", id)
	}
	rc.Post("/v1/offramp/payments/"+id+"/select-route", map[string]any{"routeQuoteId": routes[0].(map[string]any)["routeId"]}).Expect(t, 200)
	if c := rc.Post("/v1/offramp/payments/"+id+"/confirm", nil).Expect(t, 200).JSON(t); c["status"] != "FUNDS_LOCKED" {
		t.Fatalf("confirm: %v", c)
	}
}

func (p offrampPair) status(t *testing.T, id string) string {
	t.Helper()
	return p.sender.Root.Get("/v1/offramp/payments/"+id).Expect(t, 200).JSON(t)["status"].(string)
}

// providerPayouts counts the payouts the mock provider holds for a payment (any attempt) and
// returns the reference of the last.
func providerPayouts(t *testing.T, paymentID string) (int, string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, harness.Shared().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	var ref *string
	if err := conn.QueryRow(ctx, `SELECT count(*), max(reference) FROM payout_mock_transfers
		WHERE provider = 'wallet_a' AND idempotency_key LIKE $1 || ':attempt:%'`, paymentID).Scan(&n, &ref); err != nil {
		t.Fatal(err)
	}
	if ref == nil {
		return n, ""
	}
	return n, *ref
}

// signedWebhook posts a wallet_a webhook signed with secret now.
func signedWebhook(t *testing.T, body []byte, secret string) *harness.Response {
	t.Helper()
	return harness.Shared().ProviderWebhook(t, "wallet_a", body, secret, time.Now())
}

// waitOfframp polls the payment until done accepts its status, failing after the harness's
// bound.
func waitOfframp(t *testing.T, p offrampPair, id string, done func(status string) bool) string {
	t.Helper()
	got := harness.Poll(t, "payment "+id, func() map[string]any { return p.sender.Root.Get("/v1/offramp/payments/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return done(m["status"].(string)) })
	return got["status"].(string)
}

// expectPaidOnce asserts one payout at the provider, the sender debited exactly once and the
// payment's ledger unchanged by anything after DELIVERED.
func expectPaidOnce(t *testing.T, p offrampPair, id string, fundUSD, amountBaseUnits int64) {
	t.Helper()
	if n, _ := providerPayouts(t, id); n != 1 {
		t.Fatalf("the provider holds %d payouts for %s, want 1", n, id)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, fundUSD*usd-amountBaseUnits, 0)
}

// TestProviderFaults_5xxAfterActingThenSuccess: the provider records the payout and answers
// 503, then answers the retry (same idempotency key) with the same payout; its first poll
// answers 503 too. The payment is DELIVERED once, one payout at the provider, the sender
// debited once; a delayed duplicate webhook afterwards changes nothing.
func TestProviderFaults_5xxAfterActingThenSuccess(t *testing.T) {
	p := newOfframpPair(t, "20")
	id := p.create(t, "10", "flaky-"+p.sender.ID)
	flaky.fail(id, 1, 1)
	p.confirm(t, id)
	if got := waitOfframp(t, p, id, func(s string) bool { return s == "DELIVERED" || s == "FAILED" || s == "REFUNDED" }); got != "DELIVERED" {
		t.Fatalf("payment %s is %s, want DELIVERED", id, got)
	}
	expectPaidOnce(t, p, id, 20, 10*usd)
	ledger := harness.PaymentLedger(t, harness.Shared().DatabaseURL, id)

	// A webhook the provider sent before delivery, delayed until after it, changes nothing.
	_, ref := providerPayouts(t, id)
	signedWebhook(t, []byte(fmt.Sprintf(`{"eventId":"evt_%s_delayed","reference":%q}`, id, ref)), harness.WebhookSecret).Expect(t, 200)
	if s := p.status(t, id); s != "DELIVERED" {
		t.Fatalf("after a delayed webhook: %s", s)
	}
	if after := harness.PaymentLedger(t, harness.Shared().DatabaseURL, id); fmt.Sprint(after) != fmt.Sprint(ledger) {
		t.Fatalf("ledger moved after DELIVERED: %v then %v", ledger, after)
	}
	// The client's retry of the create replays it.
	if again := p.create(t, "10", "flaky-"+p.sender.ID); again != id {
		t.Fatalf("retried create made %s, not %s", again, id)
	}
	expectInvariants(t)
}

// rank orders the statuses a wallet_a payout passes after submission, to see a regression.
var rank = map[string]int{"FUNDS_LOCKED": 0, "PROVIDER_SUBMITTED": 1, "PROVIDER_PROCESSING": 2, "DELIVERED": 3}

// TestProviderFaults_DuplicatedReorderedAndBadlySignedWebhooks: once the provider holds the
// payout, its webhooks arrive at once, each event several times, out of order, mixed with
// badly signed copies. Badly signed ones are refused (401) and change nothing; the payment
// only moves forward, is DELIVERED once, and the provider holds one payout. (A webhook is a
// nudge: the service asks the provider for the payout's state, so order cannot matter; the
// poll job runs alongside, as it would.)
func TestProviderFaults_DuplicatedReorderedAndBadlySignedWebhooks(t *testing.T) {
	p := newOfframpPair(t, "20")
	id := p.create(t, "10", "webhooks-"+p.sender.ID)
	p.confirm(t, id)
	var ref string
	for range 600 {
		if _, ref = providerPayouts(t, id); ref != "" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if ref == "" {
		t.Fatal("the payout was never submitted")
	}
	waitOfframp(t, p, id, func(s string) bool { return s != "FUNDS_LOCKED" })

	type call struct {
		body   []byte
		secret string
	}
	var calls []call
	for copyN := range scale(3, 4) {
		for event := range 4 {
			body := []byte(fmt.Sprintf(`{"eventId":"evt_%s_%d","reference":%q}`, id, event, ref))
			calls = append(calls, call{body, harness.WebhookSecret})
			if copyN == 0 {
				calls = append(calls, call{body, "whsec_wrong"})
			}
		}
	}
	rand.Shuffle(len(calls), func(i, j int) { calls[i], calls[j] = calls[j], calls[i] })
	// One observer reads the status over and over while the webhooks arrive: its reads are
	// sequential, so their order is the payment's.
	stop := make(chan struct{})
	observed := make(chan []string)
	go func() {
		var seen []string
		for {
			select {
			case <-stop:
				observed <- seen
				return
			default:
				seen = append(seen, p.status(t, id))
			}
		}
	}()
	var wg sync.WaitGroup
	for _, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := signedWebhook(t, c.body, c.secret)
			switch {
			case c.secret != harness.WebhookSecret && r.Status != 401:
				t.Errorf("a badly signed webhook answered %d: %s", r.Status, r.Body)
			case c.secret == harness.WebhookSecret && r.Status != 200:
				t.Errorf("a signed webhook answered %d: %s", r.Status, r.Body)
			}
		}()
	}
	wg.Wait()
	close(stop)
	statuses := append(<-observed, p.status(t, id))
	for i := 1; i < len(statuses); i++ {
		if rank[statuses[i]] < rank[statuses[i-1]] {
			t.Fatalf("status went back from %s to %s: %v", statuses[i-1], statuses[i], statuses)
		}
	}
	// The provider's script ends after two reports: DELIVERED by now.
	if s := p.status(t, id); s != "DELIVERED" {
		t.Fatalf("after every webhook: %s", s)
	}
	expectPaidOnce(t, p, id, 20, 10*usd)
	expectInvariants(t)
}

// TestProviderFaults_StuckPaymentsReachTheOperator: a provider that keeps answering 503 at
// submission leaves the payment FUNDS_LOCKED (the money held, neither paid nor lost) and its
// submission job in the operator console's failing jobs, naming the payment; once the provider
// answers, the job's own retry delivers it with no operator action. A provider that never
// gives a final answer leaves its payment ACTION_REQUIRED (PROVIDER_UNRESPONSIVE), listed in
// the operator console's payments.
func TestProviderFaults_StuckPaymentsReachTheOperator(t *testing.T) {
	env := harness.Shared()
	p := newOfframpPair(t, "40")
	down := p.create(t, "10", "down-"+p.sender.ID)
	flaky.fail(down, -1, 0)
	defer flaky.heal(down)
	p.confirm(t, down)
	v := env.ConsoleVisitor(t)
	v.OperatorSignIn()
	if row := v.OperatorRow("operator-jobs", down); !strings.Contains(row, "PROVIDER_UNAVAILABLE") {
		t.Fatalf("the failing submission's row does not say why: %s", row)
	}
	if s := p.status(t, down); s != "FUNDS_LOCKED" {
		t.Fatalf("a payment the provider refuses is %s, want FUNDS_LOCKED", s)
	}
	if n, _ := providerPayouts(t, down); n != 1 {
		t.Fatalf("the provider holds %d payouts, want the one it took before answering 503", n)
	}
	flaky.heal(down) // the job's next retry delivers it

	slow := p.create(t, "10.000005", "slow-"+p.sender.ID) // the mock's "05": pending past the poll window
	p.confirm(t, slow)
	if got := waitOfframp(t, p, slow, func(s string) bool { return s == "ACTION_REQUIRED" || s == "DELIVERED" }); got != "ACTION_REQUIRED" {
		t.Fatalf("the unresponsive provider's payment is %s, want ACTION_REQUIRED", got)
	}
	if row := v.OperatorRow("operator-payments", slow); !strings.Contains(row, "PROVIDER_UNRESPONSIVE") {
		t.Fatalf("the operator's row does not say why: %s", row)
	}

	if got := waitOfframp(t, p, down, func(s string) bool { return s == "DELIVERED" || s == "FAILED" || s == "REFUNDED" }); got != "DELIVERED" {
		t.Fatalf("after the provider recovered the payment is %s", got)
	}
	if n, _ := providerPayouts(t, down); n != 1 {
		t.Fatalf("the provider holds %d payouts after recovery, want 1", n)
	}
	expectInvariants(t)
}
