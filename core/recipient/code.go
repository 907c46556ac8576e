package recipient

import (
	"crypto/rand"
	"fmt"
	"math/big"
)

// NewCode is a fresh 6-digit code texted to prove a phone (an alias's or a claim's challenge),
// drawn from the CSPRNG.
func NewCode() string {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		panic("recipient: crypto/rand: " + err.Error())
	}
	return fmt.Sprintf("%06d", n.Int64())
}
