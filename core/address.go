package core

// IsEVMAddress reports whether s has the shape of an EVM address: "0x" followed by 40 hex
// digits, in any case. It checks the shape only (no EIP-55 checksum; tenant.ValidateAddress
// checks that where a checksummed form is stored). Every capability that accepts an address
// asks this one function, so they agree on what one is.
func IsEVMAddress(s string) bool {
	if len(s) != 42 || s[0] != '0' || s[1] != 'x' {
		return false
	}
	for i := 2; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
