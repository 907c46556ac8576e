package wiring

import (
	"fmt"
	"sort"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/adapters/outside"
	"github.com/corridorhq/corridor/adapters/payout"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

// PayoutConfig configures the payout providers (docs/decisions/offramp.md).
type PayoutConfig struct {
	// Modes maps a provider name (PayoutProviderNames) to its mode; unset = off (fails closed:
	// the provider's routes are ineligible and nothing falls back to it).
	Modes map[string]ports.ProviderMode
	// WebhookSecrets are the providers' webhook HMAC secrets; a provider without one refuses
	// every webhook (401).
	WebhookSecrets map[string]string
	// QuoteLifetime is a route quote's lifetime (0 = 120 s); PollInterval the delay between
	// provider polls (0 = 5 s).
	QuoteLifetime time.Duration
	PollInterval  time.Duration
	// PollWindow bounds how long a payout is polled without a final answer (0 = 72 h).
	PollWindow time.Duration
	// QuoteExpiryInterval is the quote-expiry pass's cadence (0 = 10 s); HoldRecheckInterval
	// the held-payment recheck pass's (0 = 30 s).
	QuoteExpiryInterval time.Duration
	HoldRecheckInterval time.Duration
	// PhoneReverifyAfter is how long a phone alias's verification holds for payments (0 = 365
	// days); older, payments hold PHONE_REVERIFICATION_REQUIRED.
	PhoneReverifyAfter time.Duration
	// Liquidity is a provider's route liquidity in base units: the largest payout it takes
	// before operators top it up (unset or 0: uncapped).
	Liquidity map[string]int64
	// Decorate, when set, wraps each configured provider (by name) before the outside-call
	// guard: tests put faults between the service and a provider with it (a 5xx after the
	// provider acted). Production configuration leaves it nil.
	Decorate func(name string, p ports.PayoutProvider) ports.PayoutProvider
}

// providerSpec is one provider this build knows.
type providerSpec struct {
	rail  recipient.DestinationType
	terms offramp.Terms
}

// PayoutProviders are the providers this build knows, one per rail, each with its rail's fee
// and speed: internal for SERVICE_BALANCE (fee-free, at once), onchain for ONCHAIN_WALLET (a
// flat network fee covering gas, a block or two), wallet_a for APP_WALLET_A and wallet_b for
// APP_WALLET_B (mock only until vendor adapters exist; B is the faster, cheaper wallet with a
// fixed fee).
var payoutProviders = map[string]providerSpec{
	"internal": {rail: recipient.DestServiceBalance, terms: offramp.Terms{Provider: "internal", EstimatedDeliverySeconds: 5}},
	"onchain":  {rail: recipient.DestOnchainWallet, terms: offramp.Terms{Provider: "onchain", NetworkFeeBaseUnits: 10_000, EstimatedDeliverySeconds: 30}},
	"wallet_a": {rail: recipient.DestAppWalletA, terms: offramp.Terms{Provider: "wallet_a", FeeBps: 100, EstimatedDeliverySeconds: 300}},
	"wallet_b": {rail: recipient.DestAppWalletB, terms: offramp.Terms{Provider: "wallet_b", FeeBps: 50, FixedFeeBaseUnits: 250_000, EstimatedDeliverySeconds: 60}},
}

// payoutRails builds the configured providers. The onchain provider's live mode transfers
// USDC on the configured chains; sandbox and live modes of the other external providers are
// refused: their vendor adapters are not built.
func payoutRails(cfg PayoutConfig, db *bun.DB, chains map[core.Environment]ports.Chain, health *outside.Health) (map[string]ports.PayoutRail, error) {
	names := make([]string, 0, len(cfg.Modes))
	for n := range cfg.Modes {
		names = append(names, n)
	}
	sort.Strings(names)
	out := map[string]ports.PayoutRail{}
	for _, name := range names {
		mode := cfg.Modes[name]
		spec, ok := payoutProviders[name]
		if !ok {
			return nil, fmt.Errorf("wiring: unknown payout provider %q", name)
		}
		rail := ports.PayoutRail{Rail: spec.rail, Mode: mode, Terms: spec.terms, WebhookSecret: []byte(cfg.WebhookSecrets[name])}
		rail.Terms.LiquidityBaseUnits = cfg.Liquidity[name]
		switch {
		case mode == "" || mode == ports.ModeOff:
			continue
		case name == "internal":
			rail.Provider = payout.Internal{}
		case name == "onchain" && mode == ports.ModeLive:
			rail.Provider = payout.NewOnchain(db, chains)
		case mode == ports.ModeMock:
			rail.Provider = payout.NewMock(name, db)
		case mode == ports.ModeSandbox || mode == ports.ModeLive:
			return nil, fmt.Errorf("wiring: payout provider %s has no %s adapter in this build; use mock or off", name, mode)
		default:
			return nil, fmt.Errorf("wiring: payout provider %s: mode must be off, mock, sandbox or live", name)
		}
		if cfg.Decorate != nil {
			rail.Provider = cfg.Decorate(name, rail.Provider)
		}
		rail.Provider = outside.WrapPayoutWithHealth(rail.Provider, name, health)
		health.Know(outside.PayoutHealthName(name), outside.KindPayoutProvider)
		out[name] = rail
	}
	return out, nil
}

// PayoutProviderNames lists the providers this build knows, for configuration.
func PayoutProviderNames() []string {
	out := make([]string, 0, len(payoutProviders))
	for n := range payoutProviders {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
