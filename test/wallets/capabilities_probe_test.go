package wallets

import (
	"sort"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// probe exercises one feature with a request a partner would send: setup prepares what the
// environment allows (a sandbox credential, a sandbox deposit), then call sends the request.
type probe struct {
	setup func(t *testing.T, c *harness.Client, live bool)
	call  func(t *testing.T, c *harness.Client) *harness.Response
}

// lackOfFeature are the codes that say a feature is not there for the caller's environment.
var lackOfFeature = map[string]bool{
	"FEATURE_NOT_AVAILABLE": true, "CHAIN_UNAVAILABLE": true, "PROVIDER_UNAVAILABLE": true,
	"SANDBOX_ONLY": true, "CREDENTIAL_REQUIRED": true,
}

func get(path string) func(*testing.T, *harness.Client) *harness.Response {
	return func(_ *testing.T, c *harness.Client) *harness.Response { return c.Get(path) }
}

func post(path string, body func(t *testing.T) any) func(*testing.T, *harness.Client) *harness.Response {
	return func(t *testing.T, c *harness.Client) *harness.Response { return c.Post(path, body(t)) }
}

func fixed(body any) func(*testing.T) any { return func(*testing.T) any { return body } }

// featureProbes has one probe per capabilities feature; a feature without one fails the test,
// so a new feature cannot be reported without being exercised.
func featureProbes() map[string]probe {
	anAddress := func(t *testing.T) string { _, a := owners(t, 1); return a[0] }
	unknownPhone := func(t *testing.T) any {
		return map[string]any{"phone": harness.Phone("629"), "amountUsd": "1"}
	}
	activeCredential := func(t *testing.T, c *harness.Client, live bool) {
		if !live {
			c.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
		}
	}
	funded := func(t *testing.T, c *harness.Client, live bool) {
		if !live {
			c.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "5"}).Expect(t, 201)
		}
	}
	return map[string]probe{
		"tenants":              {call: get("/v1/tenants/current")},
		"members":              {call: get("/v1/tenants/members")},
		"apiKeys":              {call: get("/v1/api-keys")},
		"sessions":             {call: get("/v1/tenants/current")},
		"idempotency":          {call: post("/v1/policies", fixed(map[string]any{"name": "probe", "document": map[string]any{"schemaVersion": 1}}))},
		"ledger":               {call: get("/v1/ledger/accounts")},
		"ledgerReconciliation": {call: get("/v1/ledger/reconciliation")},
		"balances":             {call: get("/v1/balances")},
		"wallets": {call: post("/v1/wallets", func(t *testing.T) any {
			return walletBody("probe", []string{anAddress(t)}, 1)
		})},
		"payments": {call: post("/v1/payments", func(t *testing.T) any {
			return map[string]any{"sourceWalletId": "wal_06h1ymvyv1s8faeg1ekrjqegdr",
				"destination": map[string]any{"type": "address", "address": anAddress(t)}, "amount": map[string]any{"value": "1"}}
		})},
		"faucet": {call: post("/v1/wallets/wal_06h1ymvyv1s8faeg1ekrjqegdr/fund", fixed(map[string]any{}))},
		"handles": {call: func(t *testing.T, c *harness.Client) *harness.Response {
			return c.Do("PUT", "/v1/directory/handle", map[string]any{"handle": "probe", "walletId": "wal_06h1ymvyv1s8faeg1ekrjqegdr"})
		}},
		"cards":    {call: post("/v1/cardholders", fixed(map[string]any{"name": "Probe", "email": "probe@example.com"}))},
		"agents":   {call: post("/v1/agents", fixed(map[string]any{"name": "probe"}))},
		"treasury": {call: get("/v1/treasury/accounts")},
		"invoices": {call: post("/v1/invoices", func(t *testing.T) any {
			return map[string]any{"amountUsd": "1", "payerAddress": anAddress(t), "payeeAddress": anAddress(t)}
		})},
		"bills":              {call: get("/v1/bills/inbound")},
		"ramps":              {call: get("/v1/ramps")},
		"policies":           {call: get("/v1/policies")},
		"offrampPayments":    {setup: funded, call: post("/v1/offramp/payments", unknownPhone)},
		"pendingClaims":      {setup: funded, call: post("/v1/offramp/payments", unknownPhone)},
		"phoneAliases":       {call: post("/v1/phone-aliases", func(*testing.T) any { return map[string]any{"phone": harness.Phone("628")} })},
		"payoutDestinations": {setup: activeCredential, call: post("/v1/payout-destinations", fixed(map[string]any{"type": "SERVICE_BALANCE"}))},
		"operatorReview": {call: func(t *testing.T, _ *harness.Client) *harness.Response {
			return env().Client(t).With("X-Operator-Token", harness.OperatorToken).
				Post("/v1/admin/offramp/payments/ofp_06h1ymvyv1s8faeg1ekrjqegdr/approve-review", nil)
		}},
		"twoFactor": {call: get("/v1/twofactor/settings")},
		"contacts": {call: post("/v1/contacts", func(t *testing.T) any {
			return map[string]any{"address": anAddress(t), "label": "probe"}
		})},
		"webhooks": {call: get("/v1/webhook-endpoints")},
		"checkout": {call: post("/v1/payments", fixed(map[string]any{"amount": 5, "currency": "USD", "cryptocurrency": "USDC", "description": "probe"}))},
	}
}

// TestCapabilities_EveryReportedFeatureAnswers: for each environment, every feature the
// capabilities document reports true is exercised by a request in that environment, which
// must not answer 501 or 503, nor a code that says the feature is missing there
// (FEATURE_NOT_AVAILABLE, CHAIN_UNAVAILABLE, PROVIDER_UNAVAILABLE, SANDBOX_ONLY,
// CREDENTIAL_REQUIRED). LIVE has no chain in this deployment, so it is the environment where
// overclaiming shows.
func TestCapabilities_EveryReportedFeatureAnswers(t *testing.T) {
	t.Parallel()
	probes := featureProbes()
	for _, envName := range []string{"TEST", "LIVE"} {
		t.Run(envName, func(t *testing.T) {
			t.Parallel()
			ten := env().NewTenant(t)
			c, live := ten.Root, envName == "LIVE"
			if live {
				c = liveClient(t, ten)
			}
			f := features(t, c, envName)
			names := make([]string, 0, len(f))
			for name := range f {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				p, ok := probes[name]
				if !ok {
					t.Errorf("feature %s has no probe: add one to featureProbes", name)
					continue
				}
				if f[name] != true {
					continue
				}
				if p.setup != nil {
					p.setup(t, c, live)
				}
				r := p.call(t, c)
				code := ""
				if r.Status >= 400 {
					code, _ = r.JSON(t)["code"].(string)
				}
				if r.Status == 501 || r.Status == 503 || lackOfFeature[code] {
					t.Errorf("%s reports %s true, but its probe answered %d %s: %s", envName, name, r.Status, code, r.Body)
				}
			}
		})
	}
}
