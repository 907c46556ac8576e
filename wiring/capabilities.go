package wiring

import (
	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// ChainAddresses are the USDC token addresses per chain, from configuration.
type ChainAddresses struct {
	SandboxUSDC string // the sandbox chain's test USDC, known once deployed
	LiveUSDC    string // Base mainnet USDC
}

// Chain ids of docs/api.md: the sandbox (Base Sepolia id) and live (Base).
const (
	SandboxChainID = 84532
	LiveChainID    = 8453
)

// Features lists every capability of docs/api.md and whether this build serves it end to end.
// A feature flips to true only in the change that builds and tests it.
var Features = map[string]bool{
	"tenants":            true,
	"members":            true,
	"apiKeys":            true,
	"sessions":           true,
	"idempotency":        true,
	"ledger":             true,
	"balances":           true,
	"wallets":            true,
	"payments":           true,
	"faucet":             true,
	"handles":            true,
	"cards":              true,
	"agents":             true,
	"treasury":           true,
	"invoices":           true,
	"bills":              true,
	"ramps":              true,
	"policies":           true,
	"offrampPayments":    true,
	"phoneAliases":       true,
	"payoutDestinations": true,
	"pendingClaims":      true,
	"operatorReview":     true,
	"twoFactor":          true,
	"contacts":           true,
	"webhooks":           true,
	"checkout":           true,
}

// SandboxOnlyFeatures are reported false to LIVE callers, whose requests for them answer 403
// SANDBOX_ONLY: agents (their cards are issued in the sandbox only, docs/api.md capabilities), and
// the capabilities whose use cases refuse LIVE (cards, treasury, invoices, bills, ramps, the
// faucet).
var SandboxOnlyFeatures = []string{"agents", "cards", "treasury", "invoices", "bills", "ramps", "faucet"}

// ChainFeatures need the environment's chain: an environment without one reports them false,
// and their operations answer 503 CHAIN_UNAVAILABLE there (docs/decisions/tenancy.md). Handles name wallets, so they
// go with them.
var ChainFeatures = []string{"wallets", "payments", "faucet", "handles", "cards", "agents", "treasury",
	"invoices", "bills", "ramps", "pendingClaims", "checkout"}

// UnbuiltPrefixes maps the path prefixes of docs/api.md capabilities that this build does not
// serve to their feature name, so a partner calling them gets FEATURE_NOT_AVAILABLE rather
// than a bare 404.
var UnbuiltPrefixes = map[string]string{
	"/v1/wallets":     "wallets",
	"/v1/payments":    "payments",
	"/v1/faucet":      "faucet",
	"/v1/directory":   "handles",
	"/v1/cards":       "cards",
	"/v1/cardholders": "cards",
	// An agent's card is a card: without a card spend module its route is unavailable.
	"/v1/agents/*/cards":      "cards",
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
	"/v1/admin":               "operatorReview",
	"/v1/offramp/claims":      "pendingClaims",

	// The other sandbox helpers of docs/architecture.md belong to their own capabilities.
	"/v1/sandbox/credentials":         "payoutDestinations",
	"/v1/sandbox/sms-messages":        "phoneAliases",
	"/v1/sandbox/offramp":             "offrampPayments",
	"/v1/sandbox/offramp/claims":      "pendingClaims",
	"/v1/sandbox/cards":               "cards",
	"/v1/sandbox/card-authorizations": "cards",
	"/v1/sandbox/payments":            "checkout",
	"/pay":                            "checkout",
}

// Capabilities builds the capabilities configuration the HTTP adapter serves. A chain is
// available when an adapter serves it; its USDC address is then the adapter's token. Features
// are decided per environment (what a caller of that environment can do now); a route is
// served when some environment has its feature, and an unbuilt prefix answers
// FEATURE_NOT_AVAILABLE only when none does.
func Capabilities(addrs ChainAddresses, chains map[core.Environment]ports.Chain) http.CapabilitiesConfig {
	perEnv := map[core.Environment]map[string]bool{
		core.EnvTest: environmentFeatures(core.EnvTest, chains),
		core.EnvLive: environmentFeatures(core.EnvLive, chains),
	}
	features := make(map[string]bool, len(Features))
	for k := range Features {
		features[k] = perEnv[core.EnvTest][k] || perEnv[core.EnvLive][k]
	}
	unbuilt := map[string]string{}
	for prefix, feature := range UnbuiltPrefixes {
		if !features[feature] {
			unbuilt[prefix] = feature
		}
	}
	sources := SourceChains(addrs, chains)
	sandbox := http.ChainInfo{ChainID: SandboxChainID, Name: "base-sepolia-sandbox", ChainKey: "eip155:84532",
		Environment: "TEST", USDCAddress: optional(sources[core.EnvTest].USDC)}
	live := http.ChainInfo{ChainID: LiveChainID, Name: "base", ChainKey: "eip155:8453",
		Environment: "LIVE", USDCAddress: optional(sources[core.EnvLive].USDC)}
	for env, info := range map[core.Environment]*http.ChainInfo{core.EnvTest: &sandbox, core.EnvLive: &live} {
		if c, ok := chains[env]; ok && c != nil {
			info.Available = true
		}
	}
	return http.CapabilitiesConfig{
		Chains:              []http.ChainInfo{sandbox, live},
		Features:            features,
		EnvironmentFeatures: perEnv,
		UnbuiltPrefixes:     unbuilt,
	}
}

// environmentFeatures is what a caller of env can do in this deployment: the built features,
// less the chain features when env has no chain (or lacks the contract a feature settles
// through), less the sandbox-only features in LIVE.
func environmentFeatures(env core.Environment, chains map[core.Environment]ports.Chain) map[string]bool {
	features := make(map[string]bool, len(Features))
	for k, v := range Features {
		features[k] = v
	}
	off := func(names ...string) {
		for _, k := range names {
			features[k] = false
		}
	}
	if c, ok := chains[env]; !ok || c == nil {
		off(ChainFeatures...)
	}
	// Pending claims need a claim escrow (without one, unknown phones answer CHAIN_UNAVAILABLE).
	if _, ok := claimEscrows(chains)[env]; !ok {
		off("pendingClaims")
	}
	// Cards settle through the card spend module; agents are complete with their card.
	if _, ok := cardSpendModules(chains)[env]; !ok {
		off("cards", "agents")
	}
	// Hosted checkout needs a checkout deposit factory.
	if !hasCheckoutFactory(map[core.Environment]ports.Chain{env: chains[env]}) {
		off("checkout")
	}
	if env == core.EnvLive {
		off(SandboxOnlyFeatures...)
	}
	return features
}

// claimEscrows are the chain adapters that also serve a configured claim escrow.
func claimEscrows(chains map[core.Environment]ports.Chain) map[core.Environment]ports.ClaimEscrow {
	out := map[core.Environment]ports.ClaimEscrow{}
	for env, c := range chains {
		if e, ok := c.(ports.ClaimEscrow); ok && e.ClaimEscrowAddress() != (common.Address{}) {
			out[env] = e
		}
	}
	return out
}

// cardSpendModules are the chain adapters that also serve a configured card spend module: the
// environments where card wallets can settle on chain (the sandbox; on a chain without a module
// cards are unavailable).
func cardSpendModules(chains map[core.Environment]ports.Chain) map[core.Environment]ports.CardSpendModule {
	out := map[core.Environment]ports.CardSpendModule{}
	for env, c := range chains {
		if m, ok := c.(ports.CardSpendModule); ok && m.CardModuleAddress() != (common.Address{}) {
			out[env] = m
		}
	}
	return out
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// SourceChains decides, once per deployment, each environment's chain and USDC token: a
// configured chain adapter's own token (on the local dev chain, the TestUSDC it deployed),
// otherwise the configured address on docs/api.md's chain. Capabilities, off-ramp payments'
// sourceAssetId and claims all read this one answer.
func SourceChains(addrs ChainAddresses, chains map[core.Environment]ports.Chain) kernel.SourceChains {
	out := kernel.SourceChains{
		core.EnvTest: {ChainID: SandboxChainID, USDC: addrs.SandboxUSDC},
		core.EnvLive: {ChainID: LiveChainID, USDC: addrs.LiveUSDC},
	}
	for env, c := range chains {
		if c != nil {
			out[env] = kernel.SourceChain{ChainID: c.ChainID(), USDC: c.USDCAddress().Hex()}
		}
	}
	return out
}

// hasCheckoutFactory reports whether a chain adapter serves a configured checkout factory.
func hasCheckoutFactory(chains map[core.Environment]ports.Chain) bool {
	for _, c := range chains {
		if d, ok := c.(ports.CheckoutDeposits); ok && d.CheckoutFactoryAddress() != (common.Address{}) {
			return true
		}
	}
	return false
}
