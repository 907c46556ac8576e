// Package cipher protects identifiers at rest: AES-256-GCM with a random nonce per message and
// the record's context as additional data, and HMAC-SHA256 lookup hashes under a separate key
// derived from the same configured secret.
package cipher

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"corridor/ports"
)

// version prefixes every ciphertext, so the key can be rotated later.
const version byte = 1

// AESGCM is the Cipher adapter.
type AESGCM struct {
	aead    cipher.AEAD
	hashKey []byte
}

var _ ports.Cipher = (*AESGCM)(nil)

// New derives an encryption key and a hashing key from a secret of at least 32 bytes.
func New(secret []byte) (*AESGCM, error) {
	if len(secret) < 32 {
		return nil, errors.New("cipher: the key must be at least 32 bytes (CIPHER_KEY, hex)")
	}
	encKey := derive(secret, "corridor/cipher/encrypt/v1")
	block, err := aes.NewCipher(encKey)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &AESGCM{aead: aead, hashKey: derive(secret, "corridor/cipher/lookup/v1")}, nil
}

// NewFromHex parses a hex key (CIPHER_KEY).
func NewFromHex(s string) (*AESGCM, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("cipher: CIPHER_KEY must be hex: %w", err)
	}
	return New(b)
}

func derive(secret []byte, label string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// Encrypt seals plaintext bound to context (a record id or kind): a ciphertext moved to
// another record does not decrypt.
func (c *AESGCM) Encrypt(plaintext []byte, context string) ([]byte, error) {
	nonce := make([]byte, c.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	out := append([]byte{version}, nonce...)
	return c.aead.Seal(out, nonce, plaintext, []byte(context)), nil
}

// Decrypt opens a ciphertext made by Encrypt with the same context.
func (c *AESGCM) Decrypt(ciphertext []byte, context string) ([]byte, error) {
	n := c.aead.NonceSize()
	if len(ciphertext) < 1+n || ciphertext[0] != version {
		return nil, errors.New("cipher: not a ciphertext of this version")
	}
	return c.aead.Open(nil, ciphertext[1:1+n], ciphertext[1+n:], []byte(context))
}

// LookupHash is HMAC-SHA256(purpose || 0 || value) in hex: equal values hash equally, and
// without the key the hash tells nothing about the value.
func (c *AESGCM) LookupHash(purpose, value string) string {
	m := hmac.New(sha256.New, c.hashKey)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write([]byte(value))
	return hex.EncodeToString(m.Sum(nil))
}
