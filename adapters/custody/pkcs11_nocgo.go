//go:build !cgo

package custody

import (
	"context"
	"errors"

	"github.com/corridorhq/corridor/ports"
)

// PKCS11Config names the module, the token and its user PIN.
type PKCS11Config struct {
	ModulePath string
	TokenLabel string
	PIN        string
}

// PKCS11 is unavailable in a build without cgo (the static container image): a PKCS#11 module
// is a C library loaded at run time.
type PKCS11 struct{}

var _ ports.CustodySigner = (*PKCS11)(nil)

var errNoCgo = errors.New("custody: this build has no cgo, so it cannot load a PKCS#11 module; build with CGO_ENABLED=1")

// OpenPKCS11 refuses: see PKCS11.
func OpenPKCS11(PKCS11Config) (*PKCS11, error) { return nil, errNoCgo }

// Close does nothing.
func (*PKCS11) Close() {}

// Kind names the signer.
func (*PKCS11) Kind() string { return "pkcs11" }

// CreateKey refuses.
func (*PKCS11) CreateKey(context.Context) (ports.CustodyKey, error) {
	return ports.CustodyKey{}, errNoCgo
}

// SignHash refuses.
func (*PKCS11) SignHash(context.Context, string, [32]byte) ([]byte, error) { return nil, errNoCgo }
