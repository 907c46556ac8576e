package kernel

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// A Safe payment on its way holds its USDC on its wallet's mirror (docs/chain.md, "A payment on
// its way holds its USDC"): the execution job places the hold before the relayer sends, the
// ledger mirror releases it in the unit of work that books the payment's Transfer log, and a
// payment that fails unsent releases it. Card authorizations decide against the mirror's
// available balance, so none approves against USDC a payment is taking.

// PaymentHoldTx is the part of a unit of work a payment hold touches.
type PaymentHoldTx interface {
	Ledger() ports.LedgerRepo
	PaymentHolds() ports.PaymentHoldRepo
}

// PaymentHoldReference is the ledger reference of a payment's hold; its release is the
// reference suffixed with ":void".
func PaymentHoldReference(paymentID string) string { return "safe-payment:" + paymentID + ":hold" }

// ReleasePaymentHold voids a payment's hold and forgets it, in the caller's unit of work. by
// says what released it (the booked log's transaction, or the payment's failure).
func ReleasePaymentHold(ctx context.Context, tx PaymentHoldTx, env core.Environment, h ports.PaymentHold, by string, now time.Time) error {
	_, _, err := tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: PaymentHoldReference(h.PaymentID) + ":void",
		Type: ledger.TypeVoidPending, Environment: env, PendingID: h.TransferID, TargetHome: h.TenantID,
		Metadata: map[string]string{"paymentId": h.PaymentID, "walletId": h.WalletID, "releasedBy": by}}.MustValidate())
	if err != nil {
		return err
	}
	return tx.PaymentHolds().DeletePaymentHold(ctx, h.TenantID, h.PaymentID)
}

// ReleaseHoldOfPayment releases the payment's hold when it has one (a failed payment's).
func ReleaseHoldOfPayment(ctx context.Context, tx PaymentHoldTx, env core.Environment, tenantID, paymentID, by string, now time.Time) error {
	h, ok, err := tx.PaymentHolds().LockPaymentHold(ctx, tenantID, paymentID)
	if err != nil || !ok {
		return err
	}
	return ReleasePaymentHold(ctx, tx, env, h, by, now)
}

// WalletHeld splits what holds a wallet's mirror: open card authorizations' holds and Safe
// payments' holds. A payment's hold stands until the mirror books its transfer, after the Safe
// has paid it, so what a Safe may still spend is its chain balance less the cards' holds alone.
func WalletHeld(ctx context.Context, tx PaymentHoldTx, env core.Environment, tenantID, walletID string) (cards, payments int64, err error) {
	b, err := WalletMirrorBalance(ctx, tx.Ledger(), env, tenantID, walletID)
	if err != nil {
		return 0, 0, err
	}
	if payments, err = tx.PaymentHolds().WalletPaymentHeld(ctx, tenantID, walletID); err != nil {
		return 0, 0, err
	}
	return max(b.PendingDebits-payments, 0), payments, nil
}
