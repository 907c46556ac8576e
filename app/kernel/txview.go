package kernel

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work the kernel's own units touch: the idempotency records
// the runner claims and stores. The kernel's helpers each take the one repository they need
// (EventTx, BudgetTx, IndexTx, SpendTx), so a capability's view lists them.
type txView interface {
	Idempotency() ports.IdempotencyRepo
}

// narrow is where the kernel's units see the transaction as txView.
func narrow(tx ports.Tx) txView { return tx }
