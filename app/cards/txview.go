package cards

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work this capability touches: cards, the agents and wallets a
// card spends for, the ledger its holds post to, and the events its decisions announce. A reader sees the capability's tables here;
// test/architecture checks that every repository the package asks a transaction for is listed.
type txView interface {
	Agents() ports.AgentRepo
	Cards() ports.CardRepo
	Events() ports.EventRepo
	Ledger() ports.LedgerRepo
	Wallets() ports.WalletRepo
}

var _ txView = ports.Tx(nil)
