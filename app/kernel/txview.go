package kernel

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work the kernel touches: the shared tables every capability
// writes through the kernel: events, idempotency records, the relayer budget and the chain index. A
// reader sees the capability's tables here; test/architecture checks that every repository the
// package asks a transaction for is listed.
type txView interface {
	ChainIndex() ports.ChainIndexRepo
	Events() ports.EventRepo
	Idempotency() ports.IdempotencyRepo
	RelayerBudget() ports.RelayerBudgetRepo
}

var _ txView = ports.Tx(nil)
