package policies

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work this capability touches: policies and their attachments, and
// what a verdict reads: agents, cards, wallets, treasury buckets, off-ramp payments and checkout
// refunds (the service balance's cumulative spend). A reader sees the capability's tables here, and
// its units of work receive only this view (kernel.Units), so the compiler refuses a repository it
// does not list.
type txView interface {
	Agents() ports.AgentRepo
	Cards() ports.CardRepo
	Checkouts() ports.CheckoutRepo
	Offramp() ports.OfframpRepo
	Policies() ports.PolicyRepo
	Treasury() ports.TreasuryRepo
	Wallets() ports.WalletRepo
}

// narrow is the one place a unit's whole transaction becomes this package's view: the
// compiler checks that it has every method the view lists.
func narrow(tx ports.Tx) txView { return tx }
