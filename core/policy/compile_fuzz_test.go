package policy

import (
	"errors"
	"testing"

	"github.com/corridorhq/corridor/core"
)

// FuzzParseDocumentCompile: a policy document either parses, and then compiles to an IR whose
// canonical form reads back as itself under its own hash (compiling is idempotent and stable),
// or is refused with VALIDATION_FAILED; never a panic.
func FuzzParseDocumentCompile(f *testing.F) {
	for _, s := range []string{
		`{"schemaVersion":1}`,
		`{"schemaVersion":1,"limits":{"perTransactionUsd":"10.5","dailyUsd":"100"},"mcc":{"blocked":["7995","742"]}}`,
		`{"schemaVersion":1,"counterparties":{"allowed":["0x52908400098527886E0F7030069857D2E4169EE7"]}}`,
		`{"schemaVersion":2}`, `{"schemaVersion":1,"limits":{"dailyUsd":"-1"}}`, `{"schemaVersion":1,"extra":true}`,
		`[]`, `null`, ``, `{"schemaVersion":1,"mcc":{"blocked":["1"],"allowed":["0001"]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		doc, err := ParseDocument("document", raw)
		if err != nil {
			var ce *core.Error
			if !errors.As(err, &ce) || ce.Code != core.CodeValidationFailed {
				t.Fatalf("ParseDocument(%q): %v, want VALIDATION_FAILED", raw, err)
			}
			return
		}
		ir := Compile(doc)
		back, err := ParseIR(ir.Canonical(), ir.SHA256())
		if err != nil {
			t.Fatalf("the IR of %q does not read back: %v", raw, err)
		}
		if back.SHA256() != ir.SHA256() {
			t.Fatalf("the IR of %q changed on reading back", raw)
		}
	})
}
