package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"corridor/ports"
	"corridor/wiring"
)

// loadPayoutConfig reads the payout providers' configuration (D9): PAYOUT_<NAME>_MODE (off,
// mock, sandbox or live; unset = off) and PAYOUT_<NAME>_WEBHOOK_SECRET per provider (NAME is
// the provider in upper case: INTERNAL, WALLET_A), OFFRAMP_QUOTE_LIFETIME and
// OFFRAMP_POLL_INTERVAL (Go durations).
func loadPayoutConfig() (wiring.PayoutConfig, error) {
	c := wiring.PayoutConfig{Modes: map[string]ports.ProviderMode{}, WebhookSecrets: map[string]string{}}
	for _, name := range wiring.PayoutProviderNames() {
		key := "PAYOUT_" + strings.ToUpper(name)
		if v := strings.ToLower(strings.TrimSpace(os.Getenv(key + "_MODE"))); v != "" {
			switch ports.ProviderMode(v) {
			case ports.ModeOff, ports.ModeMock, ports.ModeSandbox, ports.ModeLive:
				c.Modes[name] = ports.ProviderMode(v)
			default:
				return c, fmt.Errorf("%s_MODE must be off, mock, sandbox or live, got %q", key, v)
			}
		}
		if v := os.Getenv(key + "_WEBHOOK_SECRET"); v != "" {
			c.WebhookSecrets[name] = v
		}
	}
	var err error
	if c.QuoteLifetime, err = envDuration("OFFRAMP_QUOTE_LIFETIME"); err != nil {
		return c, err
	}
	c.PollInterval, err = envDuration("OFFRAMP_POLL_INTERVAL")
	return c, err
}

// sandboxPayoutDefaults is `corridor run`'s sandbox: providers left unset run internal on and
// every external provider on its mock (D9). `corridor serve` keeps unset = off.
func sandboxPayoutDefaults(c wiring.PayoutConfig) wiring.PayoutConfig {
	for _, name := range wiring.PayoutProviderNames() {
		if _, set := c.Modes[name]; set {
			continue
		}
		if name == "internal" {
			c.Modes[name] = ports.ModeLive
		} else {
			c.Modes[name] = ports.ModeMock
		}
	}
	return c
}

func envDuration(name string) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s must be a positive duration such as 120s, got %q", name, v)
	}
	return d, nil
}
