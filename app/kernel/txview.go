package kernel

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work the kernel touches: the shared tables every capability
// writes through the kernel: events, idempotency records, the relayer budget and the chain index;
// and what the spend guard reads: agents and their reservations, the ledger's accounts. A
// reader sees the capability's tables here; test/architecture checks that every repository the
// package asks a transaction for is listed.
type txView interface {
	Agents() ports.AgentRepo
	ChainIndex() ports.ChainIndexRepo
	Events() ports.EventRepo
	Idempotency() ports.IdempotencyRepo
	Ledger() ports.LedgerRepo
	LedgerReports() ports.LedgerReports
	RelayerBudget() ports.RelayerBudgetRepo
}

var _ txView = ports.Tx(nil)
