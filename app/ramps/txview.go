package ramps

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work this capability touches: ramps and drips, the wallets they
// credit, the Safe payments they propose, and the agents they are guarded by. A reader sees the
// capability's tables here; test/architecture checks that every repository the package asks a
// transaction for is listed.
type txView interface {
	Agents() ports.AgentRepo
	Drips() ports.DripRepo
	Payments() ports.PaymentRepo
	Ramps() ports.RampRepo
	Wallets() ports.WalletRepo
}

var _ txView = ports.Tx(nil)
