package wallets

import (
	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/ports"
)

// txView is the part of a unit of work this capability touches: wallets, handles, wallet
// activity, and the ledger with payments' holds (read only: a wallet mirror's held USDC). A reader sees the
// capability's tables here, and its units of work receive only this view (kernel.Units), so the
// compiler refuses a repository it does not list.
type txView interface {
	kernel.BudgetTx
	kernel.PaymentHoldTx
	Handles() ports.HandleRepo
	WalletActivity() ports.WalletActivityRepo
	Wallets() ports.WalletRepo
}

// narrow is the one place a unit's whole transaction becomes this package's view: the
// compiler checks that it has every method the view lists.
func narrow(tx ports.Tx) txView { return tx }
