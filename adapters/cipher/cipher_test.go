package cipher

import (
	"bytes"
	"crypto/aes"
	stdcipher "crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
)

func TestAESGCM(t *testing.T) {
	c, err := New(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	ct, err := c.Encrypt([]byte("+14155550123"), "alias:1")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(ct, []byte("4155550123")) {
		t.Fatal("ciphertext contains the plaintext")
	}
	pt, err := c.Decrypt(ct, "alias:1")
	if err != nil || string(pt) != "+14155550123" {
		t.Fatalf("decrypt: %q %v", pt, err)
	}
	if _, err := c.Decrypt(ct, "alias:2"); err == nil {
		t.Fatal("a ciphertext decrypted under another context")
	}
	ct2, _ := c.Encrypt([]byte("+14155550123"), "alias:1")
	if bytes.Equal(ct, ct2) {
		t.Fatal("two encryptions are equal: nonce reused")
	}
	h := c.LookupHash("phone", "+14155550123")
	if h != c.LookupHash("phone", "+14155550123") || h == c.LookupHash("email", "+14155550123") || strings.Contains(h, "4155550123") {
		t.Fatal("lookup hash not deterministic per purpose")
	}
	other, _ := New(bytes.Repeat([]byte{8}, 32))
	if other.LookupHash("phone", "+14155550123") == h {
		t.Fatal("lookup hash does not depend on the key")
	}
	if _, err := New([]byte("short")); err == nil {
		t.Fatal("short key accepted")
	}
}

// sealNoKeyID builds a ciphertext in the first format (version 1, no key id), exactly as
// the first release of this package wrote it, so the test proves old rows still read.
func sealNoKeyID(t *testing.T, secret []byte, plaintext, context string) []byte {
	t.Helper()
	block, err := aes.NewCipher(derive(secret, "github.com/corridorhq/corridor/cipher/encrypt/v1"))
	if err != nil {
		t.Fatal(err)
	}
	aead, err := stdcipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		t.Fatal(err)
	}
	return aead.Seal(append([]byte{1}, nonce...), nonce, []byte(plaintext), []byte(context))
}

func TestAESGCM_KeyIDFormat(t *testing.T) {
	c, err := New(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	ct, err := c.Encrypt([]byte("secret"), "ctx")
	if err != nil {
		t.Fatal(err)
	}
	if ct[0] != 2 || hex.EncodeToString(ct[1:1+KeyIDLength]) != c.KeyID() {
		t.Fatalf("header %x, want version 2 and key id %s", ct[:1+KeyIDLength], c.KeyID())
	}
	// The header is authenticated: another key id, or the first format's version byte, fails.
	tampered := bytes.Clone(ct)
	tampered[0] = 1
	if _, err := c.Decrypt(tampered, "ctx"); err == nil {
		t.Fatal("a ciphertext with its version byte changed decrypted")
	}
	for _, bad := range [][]byte{nil, {2}, {2, 1, 2, 3, 4}, {9, 0, 0}} {
		if _, err := c.Decrypt(bad, "ctx"); err == nil {
			t.Fatalf("%x decrypted", bad)
		}
	}
}

func TestAESGCM_Rotation(t *testing.T) {
	oldKey, newKey, otherKey := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32), bytes.Repeat([]byte{3}, 32)
	before, err := New(oldKey)
	if err != nil {
		t.Fatal(err)
	}
	oldCT, err := before.Encrypt([]byte("+14155550123"), "alias:1")
	if err != nil {
		t.Fatal(err)
	}
	legacyCT := sealNoKeyID(t, oldKey, "+14155550124", "alias:2")
	oldHash := before.LookupHash("phone", "+14155550123")

	after, err := NewWithKeys(Keys{Primary: newKey, Previous: [][]byte{oldKey}, Lookup: oldKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("a ciphertext of the previous key opens by its key id", func(t *testing.T) {
		if pt, err := after.Decrypt(oldCT, "alias:1"); err != nil || string(pt) != "+14155550123" {
			t.Fatalf("%q %v", pt, err)
		}
	})
	t.Run("a ciphertext without key id opens with a previous key", func(t *testing.T) {
		if pt, err := after.Decrypt(legacyCT, "alias:2"); err != nil || string(pt) != "+14155550124" {
			t.Fatalf("%q %v", pt, err)
		}
	})
	t.Run("new ciphertexts are sealed with the primary", func(t *testing.T) {
		ct, err := after.Encrypt([]byte("x"), "c")
		if err != nil {
			t.Fatal(err)
		}
		primaryOnly, _ := New(newKey)
		if pt, err := primaryOnly.Decrypt(ct, "c"); err != nil || string(pt) != "x" {
			t.Fatalf("the primary alone does not open a new ciphertext: %v", err)
		}
		if _, err := before.Decrypt(ct, "c"); err == nil {
			t.Fatal("the previous key opened a ciphertext sealed after rotation")
		}
	})
	t.Run("lookup hashes keep their key across rotation", func(t *testing.T) {
		if got := after.LookupHash("phone", "+14155550123"); got != oldHash {
			t.Fatal("the lookup hash changed with the primary key")
		}
	})
	t.Run("a key that is not configured is named, not guessed", func(t *testing.T) {
		dropped, _ := New(newKey)
		_, err := dropped.Decrypt(oldCT, "alias:1")
		if err == nil || !strings.Contains(err.Error(), "not configured") {
			t.Fatalf("err = %v", err)
		}
		if _, err := dropped.Decrypt(legacyCT, "alias:2"); err == nil {
			t.Fatal("a ciphertext without key id opened with a key that did not seal it")
		}
	})
	t.Run("duplicate and short keys are refused", func(t *testing.T) {
		if _, err := NewWithKeys(Keys{Primary: newKey, Previous: [][]byte{newKey}}); err == nil {
			t.Fatal("the primary accepted again as a previous key")
		}
		if _, err := NewWithKeys(Keys{Primary: newKey, Previous: [][]byte{otherKey, otherKey}}); err == nil {
			t.Fatal("a previous key accepted twice")
		}
		if _, err := NewWithKeys(Keys{Primary: newKey, Previous: [][]byte{[]byte("short")}}); err == nil {
			t.Fatal("a short previous key accepted")
		}
		if _, err := NewWithKeys(Keys{Primary: newKey, Lookup: []byte("short")}); err == nil {
			t.Fatal("a short lookup key accepted")
		}
	})
}

func TestAESGCM_OldFormatWithPrimary(t *testing.T) {
	key := bytes.Repeat([]byte{5}, 32)
	c, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	legacy := sealNoKeyID(t, key, "IBAN DE89", "dst:1")
	if pt, err := c.Decrypt(legacy, "dst:1"); err != nil || string(pt) != "IBAN DE89" {
		t.Fatalf("%q %v", pt, err)
	}
	if _, err := c.Decrypt(legacy, "dst:2"); err == nil {
		t.Fatal("an old-format ciphertext opened under another context")
	}
}

func TestParseHexKeys(t *testing.T) {
	k1, k2, k3 := strings.Repeat("11", 32), strings.Repeat("22", 32), strings.Repeat("33", 32)
	keys, err := ParseHexKeys(k1, " "+k2+" , "+k3+",", k2)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys.Previous) != 2 || keys.Lookup == nil || keys.Primary[0] != 0x11 || keys.Previous[1][0] != 0x33 {
		t.Fatalf("keys %+v", keys)
	}
	for _, tc := range []struct{ primary, previous, lookup, want string }{
		{"zz", "", "", "CIPHER_KEY"},
		{k1, "abcd", "", "CIPHER_PREVIOUS_KEYS"},
		{k1, "", "nothex", "CIPHER_LOOKUP_KEY"},
	} {
		_, err := ParseHexKeys(tc.primary, tc.previous, tc.lookup)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "abcd") {
			t.Errorf("%s: err = %v", tc.want, err)
		}
	}
}
