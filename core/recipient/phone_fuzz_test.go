package recipient

import (
	"errors"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core"
)

// FuzzParsePhone: a phone number either parses to a canonical E.164 form that parses to itself
// and masks without revealing more than its last two digits, or is refused with
// VALIDATION_FAILED; never a panic.
func FuzzParsePhone(f *testing.F) {
	for _, s := range []string{"+14155552671", "+442071838750", "4155552671", "+1 415 555 2671", "+999", "+", "",
		"+14155552671x", "+000000000000", "+861012345678", "+1415555267１"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePhone("phone", s)
		if err != nil {
			var ce *core.Error
			if !errors.As(err, &ce) || ce.Code != core.CodeValidationFailed {
				t.Fatalf("ParsePhone(%q): %v, want VALIDATION_FAILED", s, err)
			}
			return
		}
		again, err := ParsePhone("phone", p.E164)
		if err != nil || again != p {
			t.Fatalf("ParsePhone(%q) = %+v, which parses to %+v, %v", s, p, again, err)
		}
		masked := MaskPhone(p.E164)
		digits := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, masked)
		if len(digits) > 5 || !strings.HasSuffix(p.E164, digits[len(digits)-min(2, len(digits)):]) {
			t.Fatalf("MaskPhone(%q) = %q reveals too much", p.E164, masked)
		}
	})
}
