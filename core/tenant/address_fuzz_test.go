package tenant

import (
	"errors"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core"
)

// FuzzValidateAddress: an address either validates to its EIP-55 form, which validates to
// itself and names the same 20 bytes, or is refused with VALIDATION_FAILED; never a panic.
func FuzzValidateAddress(f *testing.F) {
	for _, s := range []string{"0x52908400098527886E0F7030069857D2E4169EE7", "0x52908400098527886e0f7030069857d2e4169ee7",
		"0x52908400098527886E0F7030069857D2E4169ee7", "0x0000000000000000000000000000000000000000", "52908400098527886E0F7030069857D2E4169EE7",
		"0x1234", "", "0X52908400098527886E0F7030069857D2E4169EE7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ValidateAddress("address", s)
		if err != nil {
			var ce *core.Error
			if !errors.As(err, &ce) || ce.Code != core.CodeValidationFailed {
				t.Fatalf("ValidateAddress(%q): %v, want VALIDATION_FAILED", s, err)
			}
			return
		}
		if !strings.EqualFold(got, s) {
			t.Fatalf("ValidateAddress(%q) = %q, another address", s, got)
		}
		if again, err := ValidateAddress("address", got); err != nil || again != got {
			t.Fatalf("ValidateAddress(%q) = %q, which validates to %q, %v", s, got, again, err)
		}
	})
}
