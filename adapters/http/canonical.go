package http

import "unicode/utf8"

// alreadyCanonical reports whether body is exactly what canonicalJSON would make of it: one
// JSON value, compact, each object's keys in strictly increasing byte order (so none twice),
// every string free of escapes, of the characters encoding/json escapes ('<', '>', '&',
// U+2028, U+2029, controls) and of invalid UTF-8. Numbers and the literals are kept as
// written by the canonical form (it decodes with UseNumber), so they need no change. A body
// it accepts that is not valid JSON is also answered unchanged by canonicalJSON (it fails to
// decode), so answering true never changes a fingerprint; answering false only takes the
// long way. Partners' SDKs send most bodies this way, and the check allocates nothing.
func alreadyCanonical(body []byte) bool {
	end, ok := canonicalValue(body, 0, 0)
	return ok && end == len(body)
}

// canonicalDepth bounds the nesting the check follows; a deeper body takes the long way.
const canonicalDepth = 64

// canonicalValue checks the value that starts at i and returns where it ends.
func canonicalValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > canonicalDepth {
		return i, false
	}
	switch c := b[i]; {
	case c == '{':
		return canonicalObject(b, i+1, depth+1)
	case c == '[':
		return canonicalArray(b, i+1, depth+1)
	case c == '"':
		_, end, ok := canonicalString(b, i)
		return end, ok
	case c == '-' || (c >= '0' && c <= '9'):
		return canonicalNumber(b, i)
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	}
	return i, false
}

func canonicalObject(b []byte, i, depth int) (int, bool) {
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	var prev []byte
	for first := true; ; first = false {
		key, end, ok := canonicalString(b, i)
		if !ok || (!first && string(key) <= string(prev)) || end >= len(b) || b[end] != ':' {
			return i, false
		}
		prev = key
		if i, ok = canonicalValue(b, end+1, depth); !ok || i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i++
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

func canonicalArray(b []byte, i, depth int) (int, bool) {
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = canonicalValue(b, i, depth); !ok || i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i++
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// canonicalString checks the string that starts at i (its opening quote) and returns its
// content and where it ends.
func canonicalString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	start := i + 1
	for j := start; j < len(b); {
		c := b[j]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				return b[start:j], j + 1, true
			case c < 0x20, c == '\\', c == '<', c == '>', c == '&':
				return nil, j, false
			}
			j++
			continue
		}
		r, size := utf8.DecodeRune(b[j:])
		if r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			return nil, j, false
		}
		j += size
	}
	return nil, len(b), false
}

// canonicalNumber checks a number as JSON writes one: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func canonicalNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		if j := digits(b, i+1); j > i+1 {
			i = j
		} else {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func literal(b []byte, i int, word string) (int, bool) {
	if len(b)-i >= len(word) && string(b[i:i+len(word)]) == word {
		return i + len(word), true
	}
	return i, false
}
