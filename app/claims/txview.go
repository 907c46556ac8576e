package claims

import (
	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/ports"
)

// txView is the part of a unit of work the claims capability touches: its own tables, the
// chain index its escrow indexer keeps, the ledger (the claim's escrow account), the payment a
// claim belongs to, the recipient's aliases a redeem adopts, the events and relayer budget of
// its escrow fundings, and what it hands the payments' in-unit ports (paymentsTx). Its units of
// work receive only this view (kernel.Units), so the compiler refuses a repository it does not
// list.
type txView interface {
	kernel.EventTx
	kernel.BudgetTx
	paymentsTx
	Claims() ports.ClaimRepo
	ChainIndex() ports.ChainIndexRepo
	Ledger() ports.LedgerRepo
	Offramp() ports.OfframpRepo
	Recipients() ports.RecipientRepo
}

// paymentsTx is what the payments capability's in-unit ports (Payments.SavePayment, Decide,
// RunPolicyCheck) take of the claim's unit of work: the repositories the payments' side
// declares for them (offramps.PaymentTx), no more. Both are aliases of the same interface
// literal, so they are one type: were the payments to need another repository, wiring, which
// passes the payments service as Payments, would no longer compile until this one lists it.
type paymentsTx = interface {
	kernel.EventTx
	kernel.SpendTx
	Ledger() ports.LedgerRepo
	Offramp() ports.OfframpRepo
	Recipients() ports.RecipientRepo
}

// narrow is the one place a unit's whole transaction becomes this package's view: the
// compiler checks that it has every method the view lists.
func narrow(tx ports.Tx) txView { return tx }
