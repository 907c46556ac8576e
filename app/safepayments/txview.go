package safepayments

import (
	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/ports"
)

// txView is the part of a unit of work this capability touches: Safe payments, the wallets they
// spend from, handles and members. A reader sees the capability's tables here, and its units of
// work receive only this view (kernel.Units), so the compiler refuses a repository it does not
// list.
type txView interface {
	kernel.EventTx
	kernel.SpendTx
	kernel.BudgetTx
	Handles() ports.HandleRepo
	Ledger() ports.LedgerRepo
	Members() ports.MemberRepo
	Payments() ports.PaymentRepo
	PaymentHolds() ports.PaymentHoldRepo
	Wallets() ports.WalletRepo
}

// narrow is the one place a unit's whole transaction becomes this package's view: the
// compiler checks that it has every method the view lists.
func narrow(tx ports.Tx) txView { return tx }
