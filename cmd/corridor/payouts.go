package main

import (
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/wiring"
)

// sandboxPayoutDefaults is `corridor run`'s sandbox: providers left unset run internal on and
// every external provider on its mock (docs/decisions/offramp.md). `corridor serve` keeps unset = off.
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
