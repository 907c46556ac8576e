package wallets

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work this capability touches: wallets, drips, handles, wallet
// activity, the chain index and the ledger of mirrored balances. A reader sees the capability's
// tables here; test/architecture checks that every repository the package asks a transaction for is
// listed.
type txView interface {
	ChainIndex() ports.ChainIndexRepo
	Drips() ports.DripRepo
	Handles() ports.HandleRepo
	Ledger() ports.LedgerRepo
	WalletActivity() ports.WalletActivityRepo
	Wallets() ports.WalletRepo
}

var _ txView = ports.Tx(nil)
