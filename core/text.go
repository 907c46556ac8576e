package core

import (
	"unicode"
	"unicode/utf8"
)

// TextProblem says why a name, label or description cannot be stored, or "" when it can. It is
// the one rule for every such field: text that other people read (the console, the hosted
// payment page, a two-factor challenge's payee label, logs and exports) carries no invalid
// UTF-8, no control characters (CR, LF, ESC, …: forged lines and terminal escapes), no format
// characters (the bidi overrides and isolates such as U+202E that reorder what is shown, and
// the zero-width characters such as U+200B that hide a difference) and no line or paragraph
// separators. Length is the caller's rule.
func TextProblem(value string) string {
	if !utf8.ValidString(value) {
		return "must be valid UTF-8"
	}
	for _, r := range value {
		switch {
		case unicode.Is(unicode.Cc, r):
			return "must not contain control characters (such as line breaks, tabs or escapes)"
		case unicode.Is(unicode.Cf, r):
			return "must not contain invisible formatting characters (bidirectional overrides or zero-width characters)"
		case unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r):
			return "must not contain line or paragraph separators"
		}
	}
	return ""
}

// ValidateText is TextProblem as a VALIDATION_FAILED naming field, or nil.
func ValidateText(field, value string) error {
	if why := TextProblem(value); why != "" {
		return Invalid(field, why)
	}
	return nil
}
