package ports

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/core/policy"
)

// CheckoutDeposits is the per-checkout deposit address of hosted checkout on one chain
// (contracts/src/CheckoutDepositFactory.sol): an address predicted by CREATE2 from a salt,
// swept by the relayer into the service's own account.
type CheckoutDeposits interface {
	// CheckoutFactoryAddress is the factory; zero when the chain has none.
	CheckoutFactoryAddress() common.Address
	// CheckoutDepositAddress is the deposit address of salt (no chain read).
	CheckoutDepositAddress(salt [32]byte) (common.Address, error)
	// SweepCheckoutDeposit deploys the deposit of salt if needed and moves its whole USDC
	// balance to the factory's settlement address (the relayer). received is the total the
	// deposit has received so far: one sweep is sent per (salt, received) while it is pending,
	// so a retry does not send twice and late funds get a sweep of their own. Sweeping an
	// empty deposit moves nothing and is harmless.
	SweepCheckoutDeposit(ctx context.Context, salt [32]byte, received int64) (common.Hash, error)
	// RefundCheckout pays amountBaseUnits of USDC from the settlement address (the relayer) to
	// `to` through the factory's refund, under refundID. The factory pays each refund id at
	// most once, ever: a refund id already paid with the same destination and amount is not
	// sent again (zero hash, no error: CheckoutRefundTx finds the payment); with another
	// destination or amount it is *RevertError CDF:refunded.
	RefundCheckout(ctx context.Context, refundID [32]byte, to common.Address, amountBaseUnits *big.Int) (common.Hash, error)
	// CheckoutRefundOf reads the factory's record of refundID (zero when never paid).
	CheckoutRefundOf(ctx context.Context, refundID [32]byte) (CheckoutRefundRecord, error)
	// CheckoutRefundTx finds the transaction that paid refundID from its Refunded log, searched
	// from the head back to fromBlock (found false when no such log is in that range).
	CheckoutRefundTx(ctx context.Context, refundID [32]byte, fromBlock uint64) (hash common.Hash, found bool, err error)
	// SandboxPayCheckoutDeposit pays amountBaseUnits of the sandbox test USDC to the deposit
	// address `to` from a real sender (the relayer, which mints the amount to itself first), so
	// the checkout learns a payer address as from any payer's wallet. TEST chains only: it
	// fails where the relayer cannot mint the token.
	SandboxPayCheckoutDeposit(ctx context.Context, to common.Address, amountBaseUnits *big.Int) (txHash common.Hash, payer common.Address, err error)
}

// CheckoutRefundRecord is what the checkout factory recorded under a refund id.
type CheckoutRefundRecord struct {
	To              common.Address
	AmountBaseUnits *big.Int
}

// Paid reports whether the refund id was paid.
func (r CheckoutRefundRecord) Paid() bool { return r.To != (common.Address{}) }

// CheckoutRepo stores hosted-checkout payments and their refunds.
type CheckoutRepo interface {
	CreateCheckout(ctx context.Context, c checkout.Checkout) error
	// FindCheckout returns the tenant's checkout, or CHECKOUT_NOT_FOUND.
	FindCheckout(ctx context.Context, tenantID string, env core.Environment, id string) (checkout.Checkout, error)
	// FindPublicCheckout returns any checkout by id (the public payment page, the watcher's
	// jobs), or CHECKOUT_NOT_FOUND: the id's lookup row names its tenant.
	FindPublicCheckout(ctx context.Context, id string) (checkout.Checkout, error)
	// LockCheckout returns the tenant's checkout with its row locked for the transaction, or
	// CHECKOUT_NOT_FOUND.
	LockCheckout(ctx context.Context, tenantID, id string) (checkout.Checkout, error)
	UpdateCheckout(ctx context.Context, c checkout.Checkout) error
	// ListCheckouts returns a page of the tenant's checkouts in env, newest first, with how many
	// match the query.
	ListCheckouts(ctx context.Context, q CheckoutQuery, page Page) ([]checkout.Checkout, int, error)
	// ListWatched returns, by id after after, the checkouts of env the watcher still reads:
	// not terminal, or terminal with watchUntil after now.
	ListWatched(ctx context.Context, env core.Environment, now time.Time, after string, limit int) ([]checkout.Checkout, error)
	CreateRefund(ctx context.Context, r checkout.Refund) error
	UpdateRefund(ctx context.Context, r checkout.Refund) error
	// ListRefunds returns the tenant's checkout's refunds, oldest first.
	ListRefunds(ctx context.Context, tenantID, checkoutID string) ([]checkout.Refund, error)
	// RefundedInWindows sums the tenant's refunds in env created in each of w's windows: what
	// refunds took from the service balance, for the balance's cumulative spend caps.
	RefundedInWindows(ctx context.Context, env core.Environment, tenantID string, w policy.Windows) (policy.Spend, error)
}

// CheckoutQuery selects a merchant's checkouts: Status when set, and a created_at window (From
// inclusive, To exclusive; zero times do not filter).
type CheckoutQuery struct {
	TenantID    string
	Environment core.Environment
	Status      checkout.Status
	From, To    time.Time
}
