package faucet

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work the faucet touches: its drips, and the wallets it funds
// (read only). test/architecture checks that every repository the package asks a transaction
// for is listed.
type txView interface {
	Drips() ports.DripRepo
	Wallets() ports.WalletRepo
}

var _ txView = ports.Tx(nil)
