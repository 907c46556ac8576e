package offramp

import (
	"corridor/core"
	"corridor/core/recipient"
	"corridor/ports"
)

// usdcByChain are the USDC tokens of SPEC.md's off-ramp source chains, for sourceAssetId.
var usdcByChain = map[int64]string{
	84532: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
	8453:  "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
}

// chainForEnv is the source chain an environment's payments come from.
var chainForEnv = map[core.Environment]int64{core.EnvTest: 84532, core.EnvLive: 8453}

// rail returns the configured provider of a destination type when it may pay out in env:
// internal unless off; external rails only in mock mode and only in TEST (the mock moves no
// real value); sandbox and live vendor adapters are not built.
func (s *Service) rail(env core.Environment, t recipient.DestinationType) (ports.PayoutRail, bool) {
	for _, r := range s.payouts {
		if r.Rail != t || r.Provider == nil || r.Mode == ports.ModeOff || r.Mode == "" {
			continue
		}
		if t == recipient.DestServiceBalance {
			return r, true
		}
		if env == core.EnvTest && r.Mode == ports.ModeMock {
			return r, true
		}
	}
	return ports.PayoutRail{}, false
}

// provider returns a configured provider by name, whatever its mode.
func (s *Service) provider(name string) (ports.PayoutRail, bool) {
	r, ok := s.payouts[name]
	return r, ok && r.Provider != nil
}
