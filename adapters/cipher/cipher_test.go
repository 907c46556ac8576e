package cipher

import (
	"bytes"
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
