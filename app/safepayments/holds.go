package safepayments

import (
	"context"
	"errors"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// A Safe payment and a card's open authorizations draw on one balance. An approved
// authorization holds the wallet's USDC in the ledger (a pending debit of the wallet's on-chain
// mirror) while the USDC stays in the Safe until the capture settles it. A payment that would
// leave the Safe with less than those holds is refused before it is sent, and a payment about
// to be sent holds its own USDC on the mirror until the mirror books its transfer, so no
// authorization approved while the payment is on its way spends that USDC either
// (docs/decisions/safe-payments.md).

const (
	// paymentMirrorPoll is how soon the execution job tries the hold again while the chain holds
	// the payment's USDC and the mirror has not yet booked it (a deposit below the confirmation
	// depth).
	paymentMirrorPoll = 2 * time.Second
	// paymentMirrorWait bounds that wait from the payment's claim: far beyond the LIVE chain's
	// confirmation depth, so only a mirror that stopped indexing runs it out.
	paymentMirrorWait = 15 * time.Minute
)

// MirrorCatchUp brings the ledger's mirror of a wallet's Safe up to the chain (the wallets
// capability). It makes chain calls and runs outside any unit of work.
type MirrorCatchUp interface {
	CatchUpWalletMirror(ctx context.Context, tenantID string, env core.Environment, walletID string) error
}

// checkHeld refuses, with INSUFFICIENT_FUNDS, a payment whose USDC exceeds the Safe's chain
// balance less the open card holds on its wallet's mirror. A wallet with no open card hold is
// left to the chain, as before. It reads the chain and must be called outside any unit of work.
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

// heldOnWallet is what open card authorizations hold on the payment's wallet (0 before the
// mirror's first transfer). Payments' own holds do not count: one stands until the mirror books
// its transfer, when the Safe has already paid it.
func heldOnWallet(ctx context.Context, store kernel.Units[txView], pay safepay.Payment) (int64, error) {
	var held int64
	err := store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		held, _, err = kernel.WalletHeld(ctx, tx, pay.Environment, pay.TenantID, pay.SourceWalletID)
		return err
	})
	return held, err
}

// sendHolds places Safe payments' holds on their wallets' mirrors for the execution job.
type sendHolds struct {
	store  kernel.Units[txView]
	mirror MirrorCatchUp // nil: wait for the periodic indexer
	now    func() time.Time
}

// hold holds the payment's USDC on its wallet's mirror before the relayer sends it, and says
// when to look again (0, with neither refusal nor error: go on and send). A mirror short of the
// amount is caught up first; while the chain holds the USDC and the mirror has not booked it,
// the job waits for it (up to paymentMirrorWait). refusal is why the payment must fail unsent:
// the Safe cannot pay it besides the cards' holds (checkHeld), or the wait ran out. A payment
// the Safe cannot pay at all is left to the chain, as before.
func (h sendHolds) hold(ctx context.Context, chain ports.Chain, pay safepay.Payment) (snooze time.Duration, refusal, err error) {
	gated := pay.Gated(chain.USDCAddress())
	if gated.AmountBaseUnits <= 0 || pay.SourceWalletID == "" {
		return 0, nil, nil
	}
	short, err := h.place(ctx, chain, pay, gated)
	if err != nil || !short {
		return 0, nil, err
	}
	if err := checkHeld(ctx, h.store, chain, pay); core.HasCode(err, core.CodeInsufficientFunds) {
		return 0, err, nil
	} else if err != nil {
		return 0, nil, err
	}
	onchain, err := chain.USDCBalance(ctx, common.HexToAddress(pay.SafeAddress))
	if err != nil || !onchain.IsInt64() || onchain.Int64() < gated.AmountBaseUnits {
		return 0, nil, err // the Safe cannot pay it: the chain refuses it, as any payment it cannot pay
	}
	if h.mirror != nil {
		if err := h.mirror.CatchUpWalletMirror(ctx, pay.TenantID, pay.Environment, pay.SourceWalletID); err != nil {
			return 0, nil, err
		}
		if short, err = h.place(ctx, chain, pay, gated); err != nil || !short {
			return 0, nil, err
		}
	}
	if h.now().Sub(pay.UpdatedAt) < paymentMirrorWait {
		return paymentMirrorPoll, nil, nil
	}
	return 0, core.E(core.CodeInsufficientFunds,
		"the ledger's mirror of the Safe has not booked the %s USDC this payment moves after %s; the payment was not sent",
		core.FormatUSD(gated.AmountBaseUnits), paymentMirrorWait), nil
}

// errHoldShort rolls back a hold the mirror's balance does not cover.
var errHoldShort = errors.New("safepay: the wallet's mirror does not cover the payment")

// place places the payment's hold in one unit of work with the payment locked and still
// unsent; short reports a mirror whose available balance does not cover it. A payment held
// before (a retried step) is not held again.
func (h sendHolds) place(ctx context.Context, chain ports.Chain, pay, gated safepay.Payment) (short bool, err error) {
	err = h.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		locked, err := tx.Payments().LockPayment(ctx, pay.TenantID, pay.ID)
		if err != nil {
			return err
		}
		if !stillUnsent(locked) {
			return errPaymentStepDone
		}
		now := h.now()
		accs, err := tx.Ledger().OpenAccounts(ctx, now,
			ledger.WalletOnchain(pay.Environment, ledger.AssetUSDC, pay.TenantID, pay.SourceWalletID),
			ledger.Share(ledger.World(pay.Environment, ledger.AssetUSDC, ledger.ChainRail(chain.ChainID())), pay.TenantID))
		if err != nil {
			return err
		}
		t, replayed, err := tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: kernel.PaymentHoldReference(pay.ID),
			Type: ledger.TypePending, Environment: pay.Environment, Asset: ledger.AssetUSDC,
			Postings: ledger.Move(accs[0].ID, accs[1].ID, gated.AmountBaseUnits),
			Metadata: map[string]string{"paymentId": pay.ID, "walletId": pay.SourceWalletID}}.MustValidate())
		switch {
		case core.HasCode(err, core.CodeInsufficientFunds):
			return errHoldShort
		case err != nil || replayed:
			return err // replayed: held before, and released or still recorded
		}
		return tx.PaymentHolds().InsertPaymentHold(ctx, ports.PaymentHold{TenantID: pay.TenantID, PaymentID: pay.ID,
			WalletID: pay.SourceWalletID, SafeNonce: pay.SafeNonce, AmountBaseUnits: gated.AmountBaseUnits,
			Recipient: common.HexToAddress(gated.DestinationAddress).Hex(), TransferID: t.ID, CreatedAt: now})
	})
	if errors.Is(err, errHoldShort) {
		return true, nil
	}
	return false, err
}
