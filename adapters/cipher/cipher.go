// Package cipher protects identifiers at rest: AES-256-GCM with a random nonce per message and
// the record's context as additional data, and HMAC-SHA256 lookup hashes under a separate key.
//
// Keys rotate: every ciphertext names the key that sealed it (a key id derived from the key
// itself), new ciphertexts are sealed with the primary key, and any configured key opens the
// ciphertexts it sealed. Ciphertexts of the first format carry no key id; they open with the
// primary key, or failing that with a previous one, so rows written before rotation existed
// still read.
package cipher

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/corridorhq/corridor/ports"
)

// Ciphertext formats. The first byte says which one follows.
const (
	// versionNoKeyID is version(1) || nonce(12) || sealed: no key id, the additional data is
	// the context alone.
	versionNoKeyID byte = 1
	// versionKeyID is version(1) || keyID(4) || nonce(12) || sealed; the additional data is the
	// header (version and key id) followed by the context, so a header cannot be swapped.
	versionKeyID byte = 2
)

// KeyIDLength is the length of the key id in a ciphertext: four bytes tell a handful of
// configured keys apart, and NewWithKeys refuses two keys that share one.
const KeyIDLength = 4

// MinKeyLength is the shortest secret accepted (32 bytes, 64 hex digits).
const MinKeyLength = 32

// Keys are the secrets of the cipher.
type Keys struct {
	// Primary seals every new ciphertext and opens its own.
	Primary []byte
	// Previous open the ciphertexts they sealed before a rotation; they never seal.
	Previous [][]byte
	// Lookup is the secret of the lookup hashes; nil means Primary. Lookup hashes are stored
	// and searched, so this secret must stay the same across rotations of Primary.
	Lookup []byte
}

// sealer is one key: its id and its AEAD.
type sealer struct {
	id   [KeyIDLength]byte
	aead cipher.AEAD
}

// AESGCM is the Cipher adapter.
type AESGCM struct {
	primary  sealer
	previous []sealer
	byID     map[[KeyIDLength]byte]sealer
	hashKey  []byte
}

var _ ports.Cipher = (*AESGCM)(nil)

// New is a cipher with one key, which also keys the lookup hashes.
func New(secret []byte) (*AESGCM, error) {
	return NewWithKeys(Keys{Primary: secret})
}

// NewWithKeys derives an encryption key per configured secret and the hashing key, and refuses
// short secrets and two secrets with the same key id.
func NewWithKeys(k Keys) (*AESGCM, error) {
	if len(k.Primary) < MinKeyLength {
		return nil, errors.New("cipher: the key must be at least 32 bytes (CIPHER_KEY, hex)")
	}
	primary, err := newSealer(k.Primary)
	if err != nil {
		return nil, err
	}
	c := &AESGCM{primary: primary, byID: map[[KeyIDLength]byte]sealer{primary.id: primary}}
	for i, secret := range k.Previous {
		if len(secret) < MinKeyLength {
			return nil, fmt.Errorf("cipher: previous key %d must be at least 32 bytes (CIPHER_PREVIOUS_KEYS, hex)", i+1)
		}
		s, err := newSealer(secret)
		if err != nil {
			return nil, err
		}
		if _, dup := c.byID[s.id]; dup {
			return nil, fmt.Errorf("cipher: previous key %d is the primary key or another previous key", i+1)
		}
		c.byID[s.id] = s
		c.previous = append(c.previous, s)
	}
	lookup := k.Lookup
	if lookup == nil {
		lookup = k.Primary
	}
	if len(lookup) < MinKeyLength {
		return nil, errors.New("cipher: the lookup key must be at least 32 bytes (CIPHER_LOOKUP_KEY, hex)")
	}
	c.hashKey = derive(lookup, "github.com/corridorhq/corridor/cipher/lookup/v1")
	return c, nil
}

// NewFromHex parses a hex key (CIPHER_KEY).
func NewFromHex(s string) (*AESGCM, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("cipher: CIPHER_KEY must be hex: %w", err)
	}
	return New(b)
}

// ParseHexKeys reads the configured keys: the primary, the comma-separated previous keys and
// the lookup key (empty: the primary's). Errors name the variable, never the value.
func ParseHexKeys(primary, previous, lookup string) (Keys, error) {
	var k Keys
	var err error
	if k.Primary, err = hexKey("CIPHER_KEY", primary); err != nil {
		return Keys{}, err
	}
	for _, p := range strings.Split(previous, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		b, err := hexKey("CIPHER_PREVIOUS_KEYS", p)
		if err != nil {
			return Keys{}, err
		}
		k.Previous = append(k.Previous, b)
	}
	if strings.TrimSpace(lookup) != "" {
		if k.Lookup, err = hexKey("CIPHER_LOOKUP_KEY", lookup); err != nil {
			return Keys{}, err
		}
	}
	return k, nil
}

func hexKey(name, s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) < MinKeyLength {
		return nil, fmt.Errorf("cipher: %s must be hex-encoded and at least 32 bytes (64 hex digits)", name)
	}
	return b, nil
}

func newSealer(secret []byte) (sealer, error) {
	block, err := aes.NewCipher(derive(secret, "github.com/corridorhq/corridor/cipher/encrypt/v1"))
	if err != nil {
		return sealer{}, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return sealer{}, err
	}
	s := sealer{aead: aead}
	copy(s.id[:], derive(secret, "github.com/corridorhq/corridor/cipher/key-id/v2"))
	return s, nil
}

func derive(secret []byte, label string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// KeyID is the id ciphertexts sealed with the primary key carry, in hex (for operators who
// check which key a row needs).
func (c *AESGCM) KeyID() string { return hex.EncodeToString(c.primary.id[:]) }

// Encrypt seals plaintext with the primary key, bound to context (a record id or kind): a
// ciphertext moved to another record does not decrypt.
func (c *AESGCM) Encrypt(plaintext []byte, context string) ([]byte, error) {
	nonce := make([]byte, c.primary.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	header := append([]byte{versionKeyID}, c.primary.id[:]...)
	out := append(bytes.Clone(header), nonce...)
	return c.primary.aead.Seal(out, nonce, plaintext, additionalData(header, context)), nil
}

// Decrypt opens a ciphertext made by Encrypt with the same context, under whichever configured
// key its id names; a ciphertext without a key id is tried with the primary key first.
func (c *AESGCM) Decrypt(ciphertext []byte, context string) ([]byte, error) {
	if len(ciphertext) == 0 {
		return nil, errors.New("cipher: empty ciphertext")
	}
	switch ciphertext[0] {
	case versionKeyID:
		return c.decryptWithKeyID(ciphertext, context)
	case versionNoKeyID:
		return c.decryptWithoutKeyID(ciphertext, context)
	}
	return nil, fmt.Errorf("cipher: unknown ciphertext version %d", ciphertext[0])
}

func (c *AESGCM) decryptWithKeyID(ciphertext []byte, context string) ([]byte, error) {
	headerLength := 1 + KeyIDLength
	n := c.primary.aead.NonceSize()
	if len(ciphertext) < headerLength+n {
		return nil, errors.New("cipher: ciphertext too short")
	}
	var id [KeyIDLength]byte
	copy(id[:], ciphertext[1:headerLength])
	s, ok := c.byID[id]
	if !ok {
		return nil, fmt.Errorf("cipher: ciphertext sealed with key %x, which is not configured (CIPHER_KEY, CIPHER_PREVIOUS_KEYS)", id)
	}
	header := ciphertext[:headerLength]
	return s.aead.Open(nil, ciphertext[headerLength:headerLength+n], ciphertext[headerLength+n:], additionalData(header, context))
}

func (c *AESGCM) decryptWithoutKeyID(ciphertext []byte, context string) ([]byte, error) {
	n := c.primary.aead.NonceSize()
	if len(ciphertext) < 1+n {
		return nil, errors.New("cipher: ciphertext too short")
	}
	nonce, sealed := ciphertext[1:1+n], ciphertext[1+n:]
	var err error
	for _, s := range append([]sealer{c.primary}, c.previous...) {
		var plaintext []byte
		if plaintext, err = s.aead.Open(nil, nonce, sealed, []byte(context)); err == nil {
			return plaintext, nil
		}
	}
	return nil, fmt.Errorf("cipher: no configured key opens this ciphertext: %w", err)
}

// additionalData binds a ciphertext's header and its record context.
func additionalData(header []byte, context string) []byte {
	return append(bytes.Clone(header), context...)
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
