package ports

import "context"

// CustodySigner holds owner keys the service signs Safe transactions with (docs/decisions/wallets.md). A key is made
// inside the signer and never leaves it: callers see its reference and its address, and ask for
// signatures over 32-byte hashes. Every call may leave the process (an HSM), so none is made
// inside a unit of work.
type CustodySigner interface {
	// Kind names the implementation ("keystore", "pkcs11") for logs and capabilities.
	Kind() string
	// CreateKey makes a fresh secp256k1 key and answers its reference and 0x address.
	CreateKey(ctx context.Context) (CustodyKey, error)
	// SignHash signs hash with the key ref names: 65 bytes r ‖ s ‖ v, low s, v 27 or 28, the
	// raw form Safe's checkSignatures takes for an owner's ECDSA signature.
	SignHash(ctx context.Context, ref string, hash [32]byte) ([]byte, error)
}

// CustodyKey is what a caller may know of a custody key.
type CustodyKey struct {
	Ref     string
	Address string
}
