package http

import (
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safepay"
)

// TestSecondaryCode: the canonical codes the secondary surface names map onto its five codes;
// a VALIDATION_FAILED naming an address field is invalid_address; anything else answers the
// canonical code in lower case.
func TestSecondaryCode(t *testing.T) {
	for _, c := range []struct {
		err  *core.Error
		want string
	}{
		{core.E(core.CodeUnauthenticated, "x"), "invalid_api_key"},
		{core.E(core.CodeInsufficientFunds, "x"), "insufficient_funds"},
		{core.E(core.CodeRateLimited, "x"), "rate_limit_exceeded"},
		{core.E(core.CodeWalletNotFound, "x"), "wallet_not_found"},
		{core.E(safepay.CodeDestinationNotResolved, "x"), "invalid_address"},
		{core.Invalid("destination", "bad").(*core.Error), "invalid_address"},
		{core.Invalid("owner_address", "bad").(*core.Error), "invalid_address"},
		{core.Invalid("amount", "bad").(*core.Error), "validation_failed"},
		{core.E(core.CodeInsufficientScope, "x"), "insufficient_scope"},
		{core.E(core.CodeChainUnavailable, "x"), "chain_unavailable"},
	} {
		if got := secondaryCode(c.err); got != c.want {
			t.Errorf("%s %v: %s, want %s", c.err.Code, c.err.Details, got, c.want)
		}
	}
	e := toSecondaryError(core.Invalid("amount", "bad").(*core.Error), "req_1")
	if e.Error.Details["canonical_code"] != "VALIDATION_FAILED" || e.Error.Details["request_id"] != "req_1" || e.Error.Details["fields"] == nil {
		t.Errorf("details %v", e.Error.Details)
	}
}

// TestIsSecondaryWalletBody: the body's shape selects the surface of POST /v1/wallets.
func TestIsSecondaryWalletBody(t *testing.T) {
	for body, want := range map[string]bool{
		`{"customer_id":"c","currencies":["USDC"]}`: true,
		`{"currencies":[]}`:                         true,
		`{"owner_address":"0x"}`:                    true,
		`{"name":"w","owners":[]}`:                  false,
		`{}`:                                        false,
		``:                                          false,
		`not json`:                                  false,
		`["customer_id"]`:                           false,
	} {
		if got := isSecondaryWalletBody([]byte(body)); got != want {
			t.Errorf("%q: %v, want %v", body, got, want)
		}
	}
}

// TestSecondaryRouteMatches: the path match that marks a secondary route before routing.
func TestSecondaryRouteMatches(t *testing.T) {
	r := secondaryRoute{method: "GET", segments: []string{"", "v1", "wallets", "{id}", "balance"}}
	for _, c := range []struct {
		method, path string
		want         bool
	}{
		{"GET", "/v1/wallets/wal_1/balance", true},
		{"POST", "/v1/wallets/wal_1/balance", false},
		{"GET", "/v1/wallets/wal_1", false},
		{"GET", "/v1/wallets/wal_1/balance/x", false},
		{"GET", "/v1/payments/wal_1/balance", false},
	} {
		if got := r.matches(c.method, c.path); got != c.want {
			t.Errorf("%s %s: %v", c.method, c.path, got)
		}
	}
}
