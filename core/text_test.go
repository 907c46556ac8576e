package core

import "testing"

func TestTextProblem(t *testing.T) {
	for _, ok := range []string{"", "Acme Ltd", "Café Zürich", "東京支店", "O'Brien & Co. — payroll", "emoji 🙂"} {
		if why := TextProblem(ok); why != "" {
			t.Errorf("%q refused: %s", ok, why)
		}
	}
	for _, bad := range []string{"line\nbreak", "cr\r", "tab\there", "esc\x1b[31m", "null\x00", "del\x7f",
		"rtl\u202etxt.exe", "isolate\u2066x\u2069", "zero\u200bwidth", "joiner\u200d", "bom\ufeff", "lrm\u200e",
		"sep\u2028", "para\u2029", "c1\u0085", "bad utf8 \xff"} {
		if TextProblem(bad) == "" {
			t.Errorf("%q accepted", bad)
		}
	}
	if err := ValidateText("name", "a\u202eb"); err == nil {
		t.Fatal("ValidateText accepted a bidi override")
	}
}
