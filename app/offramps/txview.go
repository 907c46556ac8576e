package offramps

import (
	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/ports"
)

// txView is the part of a unit of work the payments capability touches: its own tables, the
// ledger, the recipients' aliases, destinations and credentials it routes by, the events its
// payments announce and the acting agent the spend guard reads. Its units of work receive only
// this view (kernel.Units), so the compiler refuses a repository it does not list; the spend
// policy opens its own, and the claim events' reactions narrow the payment's unit to theirs.
type txView interface {
	kernel.EventTx
	kernel.SpendTx
	Ledger() ports.LedgerRepo
	Offramp() ports.OfframpRepo
	Recipients() ports.RecipientRepo
}

// PaymentTx is what the payments' in-unit ports (SavePayment, Decide, RunPolicyCheck) take of
// the caller's unit of work: the same repositories as txView, since saving a payment records
// its event and deciding runs the whole composer (routing, the spend guard, reviews). It is an
// alias of an interface literal, so a caller that may not import this package (claims) names
// the same type through its own alias of the same literal, and the compiler matches the two
// where wiring passes this service as that caller's port. The ports take the callee's need,
// not the caller's whole transaction.
type PaymentTx = interface {
	kernel.EventTx
	kernel.SpendTx
	Ledger() ports.LedgerRepo
	Offramp() ports.OfframpRepo
	Recipients() ports.RecipientRepo
}

// narrow is the one place a unit's whole transaction becomes this package's view: the
// compiler checks that it has every method the view lists.
func narrow(tx ports.Tx) txView { return tx }
