package ports

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
)

// MaxActivitySkip bounds how deep a wallet activity list may page: each source is read only
// to skip+take rows along its index, so a page's cost is bounded whatever the tenant's history.
// It matches the skip bound of the other lists.
const MaxActivitySkip = 10000

// ActivityQuery selects a tenant's wallet activity: its Safe payments of kind transfer and the
// ledger mirror's lines of its wallets' on-chain USDC (an outgoing line already shown as its
// executed Safe payment left out), and, when no wallet is named, its completed checkouts
// (payments received) and checkout refunds (refunds). Empty fields do not filter.
type ActivityQuery struct {
	TenantID    string
	Environment core.Environment
	WalletID    string
	// Type is payment (received), withdrawal (sent) or refund (a checkout refund).
	Type string
	// Status is a Safe payment status (CREATED shows as AWAITING_SIGNATURE; mirror lines are
	// COMPLETED).
	Status string
	// From is inclusive, To exclusive.
	From, To time.Time
}

// WalletActivity is one row of a wallet activity list.
type WalletActivity struct {
	ID              string
	WalletID        string
	Type            string
	AmountBaseUnits int64 // positive
	Status          string
	TxHash          string
	Counterparty    string
	Note            string
	CreatedAt       time.Time
}

// WalletActivityRepo reads wallet activity, newest first (ties by id, descending), with the
// number of rows the query matches.
type WalletActivityRepo interface {
	ListWalletActivity(ctx context.Context, q ActivityQuery, page Page) ([]WalletActivity, int, error)
}
