package faucet

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work the faucet touches: its drips, and the wallets it funds
// (read only). Its units of work receive only this view (kernel.Units), so the compiler refuses a
// repository it does not list.
type txView interface {
	Drips() ports.DripRepo
	Wallets() ports.WalletRepo
}

// narrow is the one place a unit's whole transaction becomes this package's view: the
// compiler checks that it has every method the view lists.
func narrow(tx ports.Tx) txView { return tx }
