package wiring

import (
	"corridor/adapters/http"
)

// ChainAddresses are the USDC token addresses per chain, from configuration.
type ChainAddresses struct {
	SandboxUSDC string // the sandbox chain's test USDC, known once deployed
	LiveUSDC    string // Base mainnet USDC
}

// Chain ids of SPEC.md: the sandbox (Base Sepolia id) and live (Base).
const (
	SandboxChainID = 84532
	LiveChainID    = 8453
)

// Features lists every capability of SPEC.md and whether this build serves it end to end.
// A feature flips to true only in the change that builds and tests it.
var Features = map[string]bool{
	"tenants":            true,
	"members":            true,
	"apiKeys":            true,
	"sessions":           true,
	"idempotency":        true,
	"ledger":             false,
	"balances":           false,
	"wallets":            false,
	"payments":           false,
	"faucet":             false,
	"handles":            false,
	"cards":              false,
	"agents":             false,
	"treasury":           false,
	"invoices":           false,
	"bills":              false,
	"ramps":              false,
	"policies":           false,
	"offrampPayments":    false,
	"phoneAliases":       false,
	"payoutDestinations": false,
	"pendingClaims":      false,
	"twoFactor":          false,
	"contacts":           false,
	"webhooks":           false,
}

// UnbuiltPrefixes maps the path prefixes of SPEC.md capabilities that this build does not
// serve to their feature name, so a partner calling them gets FEATURE_NOT_AVAILABLE rather
// than a bare 404.
var UnbuiltPrefixes = map[string]string{
	"/v1/wallets":             "wallets",
	"/v1/payments":            "payments",
	"/v1/faucet":              "faucet",
	"/v1/directory":           "handles",
	"/v1/cards":               "cards",
	"/v1/agents":              "agents",
	"/v1/treasury":            "treasury",
	"/v1/invoices":            "invoices",
	"/v1/bills":               "bills",
	"/v1/ramps":               "ramps",
	"/v1/policies":            "policies",
	"/v1/offramp":             "offrampPayments",
	"/v1/claims":              "pendingClaims",
	"/v1/phone-aliases":       "phoneAliases",
	"/v1/payout-destinations": "payoutDestinations",
	"/v1/credentials":         "payoutDestinations",
	"/v1/balances":            "balances",
	"/v1/ledger":              "ledger",
	"/v1/sandbox":             "balances",
	"/v1/providers":           "offrampPayments",
	"/v1/admin":               "offrampPayments",
}

// Capabilities builds the capabilities configuration the HTTP adapter serves.
func Capabilities(addrs ChainAddresses) http.CapabilitiesConfig {
	features := make(map[string]bool, len(Features))
	for k, v := range Features {
		features[k] = v
	}
	unbuilt := map[string]string{}
	for prefix, feature := range UnbuiltPrefixes {
		if !features[feature] {
			unbuilt[prefix] = feature
		}
	}
	return http.CapabilitiesConfig{
		Chains: []http.ChainInfo{
			{ChainID: SandboxChainID, Name: "base-sepolia-sandbox", ChainKey: "eip155:84532", Environment: "TEST",
				USDCAddress: optional(addrs.SandboxUSDC), Available: false},
			{ChainID: LiveChainID, Name: "base", ChainKey: "eip155:8453", Environment: "LIVE",
				USDCAddress: optional(addrs.LiveUSDC), Available: false},
		},
		Features:        features,
		UnbuiltPrefixes: unbuilt,
	}
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
