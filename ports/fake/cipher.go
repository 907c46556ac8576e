package fake

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/corridorhq/corridor/ports"
)

// Cipher is a transparent ports.Cipher: a sealed value is its context and plaintext, so
// opening it under another context fails as AES-GCM's authentication does, and lookup hashes
// are SHA-256 over purpose and value (equal inputs, equal hashes). It protects nothing: for
// tests only.
type Cipher struct{}

var _ ports.Cipher = Cipher{}

// Encrypt binds plaintext to context.
func (Cipher) Encrypt(plaintext []byte, context string) ([]byte, error) {
	return append([]byte(context+"\x00"), plaintext...), nil
}

// Decrypt opens a value sealed under the same context.
func (Cipher) Decrypt(ciphertext []byte, context string) ([]byte, error) {
	prefix := []byte(context + "\x00")
	if !bytes.HasPrefix(ciphertext, prefix) {
		return nil, errors.New("fake cipher: sealed under another context")
	}
	return append([]byte(nil), ciphertext[len(prefix):]...), nil
}

// LookupHash is a keyless stand-in for the keyed hash.
func (Cipher) LookupHash(purpose, value string) string {
	sum := sha256.Sum256([]byte(purpose + "\x00" + value))
	return hex.EncodeToString(sum[:])
}
