package wallets

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work this capability touches: wallets, handles and wallet
// activity. A reader sees the capability's tables here; test/architecture checks that every
// repository the package asks a transaction for is listed.
type txView interface {
	Handles() ports.HandleRepo
	WalletActivity() ports.WalletActivityRepo
	Wallets() ports.WalletRepo
}

var _ txView = ports.Tx(nil)
