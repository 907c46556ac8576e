package http

import (
	"errors"
	"testing"

	"github.com/corridorhq/corridor/core"
)

// FuzzDecodeJSON: any body decodes into a request DTO or is refused with VALIDATION_FAILED
// (naming the field), never a panic or another error: malformed JSON, wrong types, unknown or
// duplicated or differently cased keys, trailing data, NUL and invalid UTF-8 included.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{}`, ``, `{"phone":"+14155552671","amountUsd":"12.5"}`, `{"amountUsd":12.5}`,
		`{"AmountUsd":"1"}`, `{"amountUsd":"1","amountUsd":"2"}`, `{"phone":"\u0000"}`, `{"x":1}`, `{} {}`, "\xff",
		`{"perTransactionUsd":null,"blockedMcc":["5411"],"allowedMcc":null}`, `{"blockedMcc":[1]}`, `[`, `"s"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, dst := range []any{&offrampPaymentCreateRequest{}, &cardLimitsRequest{}} {
			err := decodeJSON(body, dst)
			var ce *core.Error
			if err != nil && (!errors.As(err, &ce) || ce.Code != core.CodeValidationFailed) {
				t.Fatalf("decodeJSON(%q) into %T: %v, want VALIDATION_FAILED", body, dst, err)
			}
		}
	})
}
