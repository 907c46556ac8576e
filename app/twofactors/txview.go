package twofactors

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work this capability touches: two-factor settings and challenges.
// A reader sees the capability's tables here; test/architecture checks that every repository the
// package asks a transaction for is listed.
type txView interface {
	TwoFactor() ports.TwoFactorRepo
}

var _ txView = ports.Tx(nil)
