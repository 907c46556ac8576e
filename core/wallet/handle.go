package wallet

import (
	"fmt"
	"strings"
)

// Bounds of a directory handle.
const (
	MinHandleLength      = 3
	MaxHandleLength      = 32
	MaxHandleDisplayName = 100
)

// ParseHandle normalises and validates a directory handle: one optional leading "@" is dropped
// and letters are lowercased; what remains is 3–32 characters of lowercase letters, digits,
// "_" and "-", starting and ending with a letter or digit. Handles compare exactly after this,
// so "@Acme" and "acme" are the same handle.
func ParseHandle(raw string) (string, error) {
	h := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(raw), "@"))
	switch {
	case h == "":
		return "", fmt.Errorf("is required")
	case len(h) < MinHandleLength || len(h) > MaxHandleLength:
		return "", fmt.Errorf("must be %d to %d characters", MinHandleLength, MaxHandleLength)
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		alnum := (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
		if !alnum && c != '_' && c != '-' {
			return "", fmt.Errorf("may contain only lowercase letters, digits, \"_\" and \"-\"")
		}
		if !alnum && (i == 0 || i == len(h)-1) {
			return "", fmt.Errorf("must start and end with a letter or digit")
		}
	}
	return h, nil
}
