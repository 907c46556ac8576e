package wiring

import (
	"crypto/rand"
	"log/slog"

	"github.com/corridorhq/corridor/adapters/cipher"
	"github.com/corridorhq/corridor/adapters/identity"
	"github.com/corridorhq/corridor/adapters/outside"
	"github.com/corridorhq/corridor/adapters/payout"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// sessionIdentity is the configured identity provider, else the sandbox's HS256 sessions.
func sessionIdentity(cfg Config) (ports.Identity, error) {
	if cfg.Identity != nil {
		return cfg.Identity, nil
	}
	return identity.NewSandbox(cfg.SessionSecret)
}

// screening screens TEST with the sandbox adapter and LIVE with the configured vendor only:
// the sandbox's triggers are public, so in LIVE it would clear anything. Without a vendor,
// LIVE screening answers PROVIDER_UNAVAILABLE and payments hold.
func screening(cfg Config) ports.Screening {
	return outside.Screening{Screening: payout.ScreeningByEnvironment{core.EnvTest: payout.SandboxScreening{}, core.EnvLive: cfg.LiveScreening}}
}

// newCipher builds the identifier cipher from the configured hex keys, or from a random key
// that lives as long as this process when none is configured (tests; cmd always sets one).
func newCipher(cfg Config, log *slog.Logger) (*cipher.AESGCM, error) {
	if cfg.CipherKey != "" {
		keys, err := cipher.ParseHexKeys(cfg.CipherKey, cfg.CipherPreviousKeys, cfg.CipherLookupKey)
		if err != nil {
			return nil, err
		}
		return cipher.NewWithKeys(keys)
	}
	log.Warn("CIPHER_KEY is not set: phone numbers and payout identifiers are encrypted with a key that dies with this process")
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return cipher.New(key)
}
