package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strings"

	"github.com/corridorhq/corridor/core"
)

// KeyPrefix is the service prefix of every API key string.
const KeyPrefix = "csk"

const (
	pubIDBytes  = 10 // 16 base32 characters
	secretBytes = 32 // 256 bits: a plain sha256 of it is a safe stored form
)

// KeyMaterial is a freshly minted key: the plaintext goes to the caller once, only the hash is kept.
type KeyMaterial struct {
	Plaintext  string
	PubID      string
	SecretHash string
}

// MintKey creates key material for an environment: csk_<env>_<pubId>_<secret> (docs/decisions/tenancy.md).
func MintKey(env core.Environment) KeyMaterial {
	pubID := core.RandomToken(pubIDBytes)
	secret := core.RandomToken(secretBytes)
	return KeyMaterial{
		Plaintext:  KeyPrefix + "_" + env.KeyLabel() + "_" + pubID + "_" + secret,
		PubID:      pubID,
		SecretHash: HashSecret(secret),
	}
}

// ParsedKey is a key string split into its parts; nothing is verified yet.
type ParsedKey struct {
	Environment core.Environment
	PubID       string
	Secret      string
}

// ParseKey splits a presented key. Any malformed key is UNAUTHENTICATED, never a 400, so the
// response does not tell a prober which part was wrong.
func ParseKey(s string) (ParsedKey, error) {
	parts := strings.Split(s, "_")
	if len(parts) != 4 || parts[0] != KeyPrefix {
		return ParsedKey{}, core.E(core.CodeUnauthenticated, "malformed API key")
	}
	env, ok := map[string]core.Environment{"test": core.EnvTest, "live": core.EnvLive}[parts[1]]
	if !ok || parts[2] == "" || parts[3] == "" || len(parts[2]) > 64 || len(parts[3]) > 128 {
		return ParsedKey{}, core.E(core.CodeUnauthenticated, "malformed API key")
	}
	return ParsedKey{Environment: env, PubID: parts[2], Secret: parts[3]}, nil
}

// HashSecret is the stored form of a key secret (hex sha256). Secrets are 256-bit random, so
// a fast hash is enough; there is nothing to brute-force.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// SecretMatches compares a presented secret with a stored hash in constant time.
func SecretMatches(secret, storedHash string) bool {
	got := HashSecret(secret)
	return subtle.ConstantTimeCompare([]byte(got), []byte(storedHash)) == 1
}
