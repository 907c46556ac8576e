package mirror

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work the ledger mirror touches: the chain index (cursor, indexed
// blocks, skipped logs), the ledger it posts into, the Safe payments' holds a booked transfer
// releases, and the wallet a catch-up reads (read only). Its units of work receive only this view
// (kernel.Units), so the compiler refuses a repository it does not list.
type txView interface {
	ChainIndex() ports.ChainIndexRepo
	Ledger() ports.LedgerRepo
	PaymentHolds() ports.PaymentHoldRepo
	Wallets() ports.WalletRepo
}

// narrow is the one place a unit's whole transaction becomes this package's view: the
// compiler checks that it has every method the view lists.
func narrow(tx ports.Tx) txView { return tx }
