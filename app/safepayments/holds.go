package safepayments

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

// A Safe payment and a card's open authorizations draw on one balance. An approved
// authorization holds the wallet's USDC in the ledger (a pending debit of the wallet's on-chain
// mirror) while the USDC stays in the Safe until the capture settles it. A payment that would
// leave the Safe with less than those holds is refused before it is sent, so an approved
// authorization's settlement finds its money (docs/decisions/safe-payments.md).

// checkHeld refuses, with INSUFFICIENT_FUNDS, a payment whose USDC exceeds the Safe's chain
// balance less the open holds on its wallet's mirror. A wallet with no open hold is left to the
// chain, as before. It reads the chain and must be called outside any unit of work.
func checkHeld(ctx context.Context, store kernel.Units[txView], chain ports.Chain, pay safepay.Payment) error {
	amount := pay.Gated(chain.USDCAddress()).AmountBaseUnits
	if amount <= 0 || pay.SourceWalletID == "" {
		return nil
	}
	held, err := heldOnWallet(ctx, store, pay)
	if err != nil || held == 0 {
		return err
	}
	onchain, err := chain.USDCBalance(ctx, common.HexToAddress(pay.SafeAddress))
	if err != nil {
		return paymentChainError("reading the Safe's USDC balance", err)
	}
	if !onchain.IsInt64() || onchain.Int64()-held >= amount {
		return nil
	}
	free := max(onchain.Int64()-held, 0)
	return core.E(core.CodeInsufficientFunds,
		"the Safe holds %s USDC, %s of it held by open card authorizations on wallet %s, and this payment moves %s",
		core.FormatUSD(onchain.Int64()), core.FormatUSD(held), pay.SourceWalletID, core.FormatUSD(amount)).
		WithDetails(map[string]any{"available": core.FormatUSD(free), "held": core.FormatUSD(held), "requested": core.FormatUSD(amount)})
}

// heldOnWallet is what open holds reserve on the payment's wallet: its mirror account's pending
// debits (0 before the mirror's first transfer).
func heldOnWallet(ctx context.Context, store kernel.Units[txView], pay safepay.Payment) (int64, error) {
	var held int64
	err := store.InTx(ctx, func(ctx context.Context, tx txView) error {
		b, err := kernel.WalletMirrorBalance(ctx, tx.Ledger(), pay.Environment, pay.TenantID, pay.SourceWalletID)
		held = b.PendingDebits
		return err
	})
	return held, err
}
