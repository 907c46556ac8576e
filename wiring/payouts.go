package wiring

import (
	"fmt"
	"sort"
	"time"

	"github.com/uptrace/bun"

	"corridor/adapters/payout"
	"corridor/core/offramp"
	"corridor/core/recipient"
	"corridor/ports"
)

// PayoutConfig configures the payout providers (D9).
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
}

// providerSpec is one provider this build knows.
type providerSpec struct {
	rail  recipient.DestinationType
	terms offramp.Terms
}

// PayoutProviders are the providers this build knows, one per rail: internal for
// SERVICE_BALANCE (fee-free) and wallet_a for APP_WALLET_A (mock only until a vendor adapter
// exists).
var payoutProviders = map[string]providerSpec{
	"internal": {rail: recipient.DestServiceBalance, terms: offramp.Terms{Provider: "internal", EstimatedDeliverySeconds: 5}},
	"wallet_a": {rail: recipient.DestAppWalletA, terms: offramp.Terms{Provider: "wallet_a", FeeBps: 100, EstimatedDeliverySeconds: 300}},
}

// payoutRails builds the configured providers. Sandbox and live modes of external providers
// are refused: their vendor adapters are not built.
func payoutRails(cfg PayoutConfig, db *bun.DB) (map[string]ports.PayoutRail, error) {
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
		switch {
		case mode == "" || mode == ports.ModeOff:
			continue
		case name == "internal":
			rail.Provider = payout.Internal{}
		case mode == ports.ModeMock:
			rail.Provider = payout.NewMock(name, db)
		case mode == ports.ModeSandbox || mode == ports.ModeLive:
			return nil, fmt.Errorf("wiring: payout provider %s has no %s adapter in this build; use mock or off", name, mode)
		default:
			return nil, fmt.Errorf("wiring: payout provider %s: mode must be off, mock, sandbox or live", name)
		}
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
