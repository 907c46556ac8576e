package checkouts

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/ports"
)

// MaxSandboxPayment bounds one sandbox payment (1,000,000 USDC in base units): enough for any
// test, small enough that a typo does not mint an absurd balance.
const MaxSandboxPayment = int64(1_000_000) * 1_000_000

// SandboxPayment is what SandboxPay sent.
type SandboxPayment struct {
	CheckoutID string
	Amount     int64
	TxHash     string
}

// SandboxPay pays a TEST checkout as a payer's wallet would, without one: the sandbox test
// token is sent to the checkout's deposit address from the relayer (which mints it first), and
// the watcher then sees it like any other transfer (pending, then completed at the configured
// confirmations), with the relayer as its payer_address, where a refund goes by default.
// amount 0 pays what is still due.
func (s *Service) SandboxPay(ctx context.Context, p auth.Principal, id string, amount int64) (SandboxPayment, error) {
	if err := sandboxHelper(p, id); err != nil {
		return SandboxPayment{}, err
	}
	var c checkout.Checkout
	if err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		c, err = tx.Checkouts().FindCheckout(ctx, p.TenantID, p.Environment, id)
		return err
	}); err != nil {
		return SandboxPayment{}, err
	}
	if amount == 0 {
		amount = c.Amount - c.Received
		if amount <= 0 {
			return SandboxPayment{}, core.Invalid("amount", "is required: the checkout has already received its amount (send an explicit amount to overpay)")
		}
	}
	if amount < 0 || amount > MaxSandboxPayment {
		return SandboxPayment{}, core.Invalid("amount", "must be more than 0 and at most 1000000")
	}
	_, deposits, err := s.deposits(p.Environment)
	if err != nil {
		return SandboxPayment{}, err
	}
	hash, _, err := deposits.SandboxPayCheckoutDeposit(ctx, common.HexToAddress(c.DepositAddress), big.NewInt(amount))
	if err != nil {
		return SandboxPayment{}, fmt.Errorf("checkout %s: sandbox payment: %w", c.ID, err)
	}
	// Let the watcher read it now rather than at its next pass.
	if err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		return s.jobs.Enqueue(ctx, WatchOneArgs{CheckoutID: c.ID}, ports.JobOptions{MaxAttempts: watchJobAttempts})
	}); err != nil {
		return SandboxPayment{}, err
	}
	return SandboxPayment{CheckoutID: c.ID, Amount: amount, TxHash: hash.Hex()}, nil
}
