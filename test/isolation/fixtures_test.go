package isolation

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/pquerna/otp/totp"

	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/test/harness"
)

// fixture makes one object of a resource for the victim tenant and says how another tenant
// (or the victim's other environment) is refused it. bearer marks a path parameter that is a
// capability token (a claim link): whoever holds it may use it from any tenant by design, so
// it is exempt from the cross-tenant checks, and only the credential and scope checks apply.
// tenantWide marks a resource of the tenant rather than of one environment (a member acts in
// both), so the other-environment check does not apply.
type fixture struct {
	notFound   string
	bearer     bool
	tenantWide bool
	make       func(t *testing.T, w *world) string
}

// fixtures is keyed by x-corridor-resource. An operation whose path names a resource missing
// here fails the matrix: a new resource brings its fixture.
var fixtures = map[string]fixture{
	"tenants/members": {notFound: "MEMBER_NOT_FOUND", tenantWide: true, make: func(t *testing.T, w *world) string {
		return w.victim.Session.Post("/v1/tenants/members", map[string]any{"email": "matrix@example.com"}).Expect(t, 201).JSON(t)["id"].(string)
	}},
	// A request log entry is written off the request path: the fixture waits for the victim's
	// request to be listed.
	"request-logs": {notFound: "REQUEST_LOG_NOT_FOUND", make: func(t *testing.T, w *world) string {
		w.victim.Root.Get("/v1/wallets").Expect(t, 200)
		return harness.Until(t, "the victim's request in its log", func() string {
			list := w.victim.Root.Get("/v1/request-logs?route=%2Fv1%2Fwallets").Expect(t, 200).JSON(t)["requestLogs"].([]any)
			if len(list) == 0 {
				return ""
			}
			return list[0].(map[string]any)["id"].(string)
		}, func(id string) bool { return id != "" })
	}},
	"api-keys": {notFound: "API_KEY_NOT_FOUND", make: func(t *testing.T, w *world) string {
		return w.victim.Session.Post("/v1/api-keys", map[string]any{"name": "victim"}).Expect(t, 201).JSON(t)["id"].(string)
	}},
	"ledger/accounts": {notFound: "ACCOUNT_NOT_FOUND", make: func(t *testing.T, w *world) string {
		w.deposit(t)
		accounts := w.victim.Root.Get("/v1/ledger/accounts").Expect(t, 200).JSON(t)["accounts"].([]any)
		if len(accounts) == 0 {
			t.Fatal("the funded victim has no ledger account")
		}
		return accounts[0].(map[string]any)["id"].(string)
	}},
	"phone-aliases": {notFound: "PHONE_ALIAS_NOT_FOUND", make: func(t *testing.T, w *world) string {
		return w.victim.Root.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("628")}).Expect(t, 201).JSON(t)["id"].(string)
	}},
	"payout-destinations": {notFound: "PAYOUT_DESTINATION_NOT_FOUND", make: func(t *testing.T, w *world) string {
		w.victim.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
		return w.victim.Root.Post("/v1/payout-destinations", map[string]any{"type": "SERVICE_BALANCE"}).Expect(t, 201).JSON(t)["id"].(string)
	}},
	"offramp/payments": {notFound: "OFFRAMP_PAYMENT_NOT_FOUND", make: func(t *testing.T, w *world) string {
		return w.claimPayment(t)["paymentId"].(string)
	}},
	// A payout provider is the platform's, not a tenant's: only the operator route names it,
	// and the matrix checks that tenant credentials are refused there.
	"payout-providers": {notFound: "PAYOUT_PROVIDER_NOT_FOUND", tenantWide: true, make: func(*testing.T, *world) string {
		return "wallet_a"
	}},
	"offramp/claims": {notFound: "CLAIM_NOT_FOUND", make: func(t *testing.T, w *world) string {
		return w.claimPayment(t)["claimId"].(string)
	}},
	"claims": {bearer: true, make: func(t *testing.T, w *world) string {
		w.claimPayment(t)
		return harness.ClaimLinkToken(t, harness.SMSBody(t, w.victim.Root, "claim_link", nil))
	}},
	"agents": {notFound: "AGENT_NOT_FOUND", make: func(t *testing.T, w *world) string {
		return w.victim.Root.Post("/v1/agents", map[string]any{"name": "victim agent"}).Expect(t, 201).JSON(t)["id"].(string)
	}},
	"wallets": {notFound: "WALLET_NOT_FOUND", make: func(t *testing.T, w *world) string { return w.wallet(t) }},
	"faucet/drips": {notFound: "DRIP_NOT_FOUND", make: func(t *testing.T, w *world) string {
		return w.victim.Root.Post("/v1/wallets/"+w.wallet(t)+"/fund", map[string]any{"amount": "1"}).Expect(t, 201).JSON(t)["id"].(string)
	}},
	"payments": {notFound: "PAYMENT_NOT_FOUND", make: func(t *testing.T, w *world) string {
		return w.victim.Root.Post("/v1/payments", map[string]any{
			"sourceWalletId": w.wallet(t),
			"destination":    map[string]any{"type": "address", "address": newAddress(t), "chainId": wallet.SandboxChainID},
			"amount":         map[string]any{"value": "1", "asset": "usdc"},
		}).Expect(t, 201).JSON(t)["id"].(string)
	}},
	"cards": {notFound: "CARD_NOT_FOUND", make: func(t *testing.T, w *world) string { return w.card(t) }},
	"card-authorizations": {notFound: "CARD_AUTHORIZATION_NOT_FOUND", make: func(t *testing.T, w *world) string {
		return w.victim.Root.Post("/v1/sandbox/cards/"+w.card(t)+"/authorizations",
			map[string]any{"amountUsd": "1", "mcc": "5411", "merchantName": "matrix"}).Expect(t, 201).JSON(t)["authorizationId"].(string)
	}},
	"ramps": {notFound: "RAMP_NOT_FOUND", make: func(t *testing.T, w *world) string {
		return w.victim.Root.Post("/v1/ramps", map[string]any{"walletId": w.wallet(t), "direction": "on", "amount": "1"}).
			Expect(t, 201).JSON(t)["rampId"].(string)
	}},
	"policies": {notFound: "POLICY_NOT_FOUND", make: func(t *testing.T, w *world) string { return w.policy(t) }},
	"policies/attachments": {notFound: "ATTACHMENT_NOT_FOUND", make: func(t *testing.T, w *world) string {
		return w.victim.Root.Post("/v1/policies/"+w.policy(t)+"/attachments", map[string]any{"subjectType": "wallet", "subjectId": w.wallet(t)}).
			Expect(t, 201).JSON(t)["attachmentId"].(string)
	}},
	"treasury/accounts": {notFound: "TREASURY_ACCOUNT_NOT_FOUND", make: func(t *testing.T, w *world) string {
		return w.treasuryAccount(t)["accountId"].(string)
	}},
	"treasury/rules": {notFound: "TREASURY_RULE_NOT_FOUND", make: func(t *testing.T, w *world) string {
		id := w.treasuryAccount(t)["accountId"].(string)
		return w.victim.Root.Post("/v1/treasury/accounts/"+id+"/rules", map[string]any{"type": "REBALANCE_TO_TARGET"}).
			Expect(t, 201).JSON(t)["ruleId"].(string)
	}},
	"contacts": {notFound: "CONTACT_NOT_FOUND", make: func(t *testing.T, w *world) string {
		return w.victim.Root.Post("/v1/contacts", map[string]any{"address": newAddress(t), "label": "matrix"}).Expect(t, 201).JSON(t)["id"].(string)
	}},
	"twofactor/factors": {notFound: "TWOFA_FACTOR_NOT_FOUND", make: func(t *testing.T, w *world) string {
		return w.victim.Root.Post("/v1/twofactor/factors", map[string]any{"label": "matrix"}).Expect(t, 201).JSON(t)["id"].(string)
	}},
	// A challenge: approval above 50 USD (the payments fixture pays 1) with an active factor.
	"twofactor/challenges": {notFound: "TWOFA_CHALLENGE_NOT_FOUND", make: func(t *testing.T, w *world) string {
		w.victim.Root.Do("PUT", "/v1/twofactor/settings", map[string]any{"approvalAboveUsd": "50"}).Expect(t, 200)
		f := w.victim.Root.Post("/v1/twofactor/factors", map[string]any{"label": "matrix approver"}).Expect(t, 201).JSON(t)
		code, err := totp.GenerateCode(f["secret"].(string), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		w.victim.Root.Post("/v1/twofactor/factors/"+f["id"].(string)+"/verify", map[string]any{"code": code}).Expect(t, 200)
		e := w.victim.Root.Post("/v1/payments", map[string]any{
			"sourceWalletId": w.wallet(t),
			"destination":    map[string]any{"type": "address", "address": newAddress(t), "chainId": wallet.SandboxChainID},
			"amount":         map[string]any{"value": "60"},
		}).ExpectError(t, 403, "TWOFA_REQUIRED")
		return e["details"].(map[string]any)["challengeId"].(string)
	}},
	"invoices": {notFound: "INVOICE_NOT_FOUND", make: func(t *testing.T, w *world) string {
		return w.victim.Root.Post("/v1/invoices", map[string]any{"amountUsd": "5", "payerAddress": newAddress(t),
			"payeeAddress": newAddress(t)}).Expect(t, 201).JSON(t)["invoiceId"].(string)
	}},
	// A bill the other tenant sent the victim (FAILED: its signature is made up); the sender
	// is the other tenant, which still cannot read it.
	"bills/inbound": {notFound: "BILL_NOT_FOUND", make: func(t *testing.T, w *world) string {
		to := w.victim.Root.Get("/v1/wallets/"+w.wallet(t)).Expect(t, 200).JSON(t)["address"]
		return w.other.Root.Post("/v1/bills", map[string]any{"toAddress": to, "amountUsd": "5", "payeeAddress": newAddress(t),
			"senderAddress": newAddress(t), "signature": "0x" + strings.Repeat("11", 64) + "1b", "sigNonce": "1",
			"sigExpiresAt": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}).Expect(t, 201).JSON(t)["invoiceId"].(string)
	}},
	// Events: an agent suspended is one.
	"events": {notFound: "EVENT_NOT_FOUND", make: func(t *testing.T, w *world) string {
		w.suspendedAgent(t)
		return w.victim.Root.Get("/v1/events?type=agent.suspended").Expect(t, 200).JSON(t)["events"].([]any)[0].(map[string]any)["id"].(string)
	}},
	"webhook-endpoints": {notFound: "WEBHOOK_ENDPOINT_NOT_FOUND", make: func(t *testing.T, w *world) string {
		return w.webhookEndpoint(t)
	}},
	// A delivery: the endpoint subscribes to agent.suspended (a documentation address that
	// never answers; its attempts time out in the background).
	"webhook-deliveries": {notFound: "WEBHOOK_DELIVERY_NOT_FOUND", make: func(t *testing.T, w *world) string {
		ep := w.webhookEndpoint(t)
		w.suspendedAgent(t)
		deadline := time.Now().Add(30 * time.Second)
		for {
			ds := w.victim.Root.Get("/v1/webhook-endpoints/"+ep+"/deliveries").Expect(t, 200).JSON(t)["deliveries"].([]any)
			if len(ds) > 0 {
				return ds[0].(map[string]any)["id"].(string)
			}
			if time.Now().After(deadline) {
				t.Fatal("no webhook delivery was made")
			}
			time.Sleep(100 * time.Millisecond)
		}
	}},
}

// suspendedAgent makes (once) an agent of the victim and suspends it: an agent.suspended event.
func (w *world) suspendedAgent(t *testing.T) {
	w.agentEvent.Do(func() {
		id := w.victim.Root.Post("/v1/agents", map[string]any{"name": "matrix events"}).Expect(t, 201).JSON(t)["id"].(string)
		w.victim.Root.Post("/v1/agents/"+id+"/suspend", nil).Expect(t, 200)
	})
}

// webhookEndpoint is the victim's endpoint, made once.
func (w *world) webhookEndpoint(t *testing.T) string {
	if w.endpointID == "" {
		w.endpointID = w.victim.Root.Post("/v1/webhook-endpoints", map[string]any{"url": "http://127.0.0.1:9/matrix",
			"events": []string{"agent.suspended"}}).Expect(t, 201).JSON(t)["id"].(string)
	}
	return w.endpointID
}

// treasuryAccount is a new two-bucket treasury account of the victim.
func (w *world) treasuryAccount(t *testing.T) map[string]any {
	owner := newAddress(t)
	return w.victim.Root.Post("/v1/treasury/accounts", map[string]any{"name": "matrix",
		"owners": []any{map[string]any{"address": owner, "role": "FINANCE_OWNER"}},
		"buckets": []any{map[string]any{"name": "a", "kind": "OPERATING", "targetBps": 5000},
			map[string]any{"name": "b", "kind": "RESERVE", "targetBps": 5000}}}).Expect(t, 202).JSON(t)
}

// world is the victim tenant (TEST) with one object of each resource, made on first use, and
// the attackers: another tenant, and the victim's own LIVE key.
type world struct {
	victim, other *harness.Tenant
	live          *harness.Client

	mu       sync.Mutex
	ids      map[string]string
	deposits sync.Once
	walletID string
	policyID string
	cardID   string
	claimPay map[string]any

	agentEvent sync.Once
	endpointID string
}

func newWorld(t *testing.T) *world {
	w := &world{victim: env().NewTenant(t), other: env().NewTenant(t), ids: map[string]string{}}
	live := env().NewKey(t, w.victim.Session, map[string]any{"name": "live root", "environment": "live", "scopes": []string{"*"}})
	w.live = env().Client(t).WithKey(live)
	return w
}

// id is the victim's object of a resource, made once.
func (w *world) id(t *testing.T, resource string) (string, fixture) {
	t.Helper()
	f, ok := fixtures[resource]
	if !ok {
		t.Fatalf("no fixture for the resource %q: add one to fixtures so the matrix covers its operations", resource)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if id, ok := w.ids[resource]; ok {
		return id, f
	}
	id := f.make(t, w)
	w.ids[resource] = id
	return id, f
}

func (w *world) deposit(t *testing.T) {
	w.deposits.Do(func() {
		w.victim.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "100"}).Expect(t, 201)
	})
}

// claimPayment is an off-ramp payment to a number nobody verified: it opens a claim.
func (w *world) claimPayment(t *testing.T) map[string]any {
	if w.claimPay == nil {
		w.deposit(t)
		w.claimPay = w.victim.Root.Post("/v1/offramp/payments", map[string]any{"phone": harness.Phone("628"), "amountUsd": "3"}).Expect(t, 201).JSON(t)
		if w.claimPay["claimId"] == nil {
			t.Fatalf("the payment opened no claim: %v", w.claimPay)
		}
	}
	return w.claimPay
}

// wallet is a DEPLOYED wallet of the victim.
func (w *world) wallet(t *testing.T) string {
	if w.walletID != "" {
		return w.walletID
	}
	id := w.victim.Root.Post("/v1/wallets", map[string]any{"name": "matrix",
		"owners": []map[string]any{{"address": newAddress(t), "role": "FINANCE_OWNER"}}}).Expect(t, 201).JSON(t)["id"].(string)
	harness.Poll(t, "the wallet deploys", func() map[string]any { return w.victim.Root.Get("/v1/wallets/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "DEPLOYED" })
	w.walletID = id
	return id
}

// card is a card of the victim issued from its DEPLOYED wallet.
func (w *world) card(t *testing.T) string {
	if w.cardID == "" {
		w.cardID = w.victim.Root.Post("/v1/wallets/"+w.wallet(t)+"/cards", map[string]any{}).Expect(t, 201).JSON(t)["cardId"].(string)
	}
	return w.cardID
}

func (w *world) policy(t *testing.T) string {
	if w.policyID == "" {
		w.policyID = w.victim.Root.Post("/v1/policies", map[string]any{"name": "matrix",
			"document": map[string]any{"schemaVersion": 1, "limits": map[string]any{"perTransactionUsd": "100"}}}).
			Expect(t, 201).JSON(t)["policyId"].(string)
	}
	return w.policyID
}

func newAddress(t *testing.T) string {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return crypto.PubkeyToAddress(key.PublicKey).Hex()
}
