package core

import (
	"regexp"
	"testing"
)

// TestIsEVMAddress: 0x and 40 hex digits in any case; anything else is not an address.
func TestIsEVMAddress(t *testing.T) {
	cases := map[string]bool{
		"0x" + "00000000000000000000000000000000000000aB": true,
		"0x52908400098527886E0F7030069857D2E4169EE7":      true,
		"0x52908400098527886e0f7030069857d2e4169ee7":      true,
		"0X52908400098527886e0f7030069857d2e4169ee7":      false, // capital X
		"52908400098527886e0f7030069857d2e4169ee7":        false,
		"0x52908400098527886e0f7030069857d2e4169ee":       false, // 39 digits
		"0x52908400098527886e0f7030069857d2e4169ee77":     false, // 41 digits
		"0x52908400098527886e0f7030069857d2e4169eeg":      false,
		" 0x52908400098527886e0f7030069857d2e4169ee7":     false,
		"":   false,
		"0x": false,
	}
	for s, want := range cases {
		if got := IsEVMAddress(s); got != want {
			t.Errorf("IsEVMAddress(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzIsEVMAddress: it agrees with the regular expression the capabilities used before it.
func FuzzIsEVMAddress(f *testing.F) {
	shape := regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	f.Add("0x52908400098527886E0F7030069857D2E4169EE7")
	f.Add("0x5290840009852788\n6E0F7030069857D2E4169EE")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsEVMAddress(s), shape.MatchString(s); got != want {
			t.Fatalf("IsEVMAddress(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}
