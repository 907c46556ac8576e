package offramp

import (
	"corridor/core"
)

// isCode reports whether err is the domain error with code.
func isCode(err error, code core.Code) bool {
	e, ok := err.(*core.Error)
	return ok && e.Code == code
}

// itoa formats n in decimal for ledger references and messages.
func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
