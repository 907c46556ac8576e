package offramps

import (
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

// payoutRails are the configured payout providers by name: which one pays a destination, and
// which a webhook or a top-up names.
type payoutRails map[string]ports.PayoutRail

// rail returns the configured provider of a destination type when it may pay out in env:
// internal unless off; external rails in mock mode only in TEST (the mock moves no real
// value); the onchain rail in live mode where its chain is configured; sandbox and live vendor
// adapters are not built.
func (rails payoutRails) rail(env core.Environment, t recipient.DestinationType) (ports.PayoutRail, bool) {
	for _, r := range rails {
		if r.Rail != t || r.Provider == nil || r.Mode == ports.ModeOff || r.Mode == "" {
			continue
		}
		if t == recipient.DestServiceBalance {
			return r, true
		}
		if env == core.EnvTest && r.Mode == ports.ModeMock {
			return r, true
		}
		// A chain rail in live mode pays out wherever its chain is configured.
		if n, ok := r.Provider.(ports.NetworkPayout); ok && r.Mode == ports.ModeLive {
			if _, ok := n.Network(env); ok {
				return r, true
			}
		}
	}
	return ports.PayoutRail{}, false
}

// railPays reports whether rail pays destination d in env: a chain rail pays only addresses
// on its own network.
func railPays(rail ports.PayoutRail, env core.Environment, d recipient.Destination, id recipient.Identifier) bool {
	n, ok := rail.Provider.(ports.NetworkPayout)
	if !ok || rail.Mode != ports.ModeLive {
		return true
	}
	network, ok := n.Network(env)
	return ok && d.Type == recipient.DestOnchainWallet && id.Network == network
}

// provider returns a configured provider by name, whatever its mode.
func (rails payoutRails) provider(name string) (ports.PayoutRail, bool) {
	r, ok := rails[name]
	return r, ok && r.Provider != nil
}
