package mirror

import (
	"context"
	"errors"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// maxHoldsMatched bounds the holds of one wallet a log is matched against: a wallet's payments
// on their way are those of consecutive Safe nonces, a handful at most.
const maxHoldsMatched = 64

// releasePaymentHold releases, in the unit of work that books l, the hold of the Safe payment
// that l pays (docs/chain.md, "A payment on its way holds its USDC"), so the wallet's mirror
// has the USDC to book l from. The hold is found by the paying wallet, the log's amount and its
// recipient, the lowest Safe nonce first: a Safe executes its nonces in order, and a
// transaction hash is no key (a resent transaction has another). A log the mirror booked before
// from the same block (a range indexed again) releases nothing. A hold that cannot be voided
// (already settled some other way) is forgotten, so it never stalls the mirror.
func releasePaymentHold(ctx context.Context, tx txView, env core.Environment, chainID int64, l ports.TransferLog, wallets map[common.Address]ports.ChainWallet, now time.Time) error {
	w, ok := wallets[l.From]
	if !ok || l.AmountBaseUnits == nil || !l.AmountBaseUnits.IsInt64() {
		return nil
	}
	holds, err := tx.PaymentHolds().LockWalletPaymentHolds(ctx, w.TenantID, w.ID, maxHoldsMatched)
	if err != nil {
		return err
	}
	for _, h := range holds {
		if h.AmountBaseUnits != l.AmountBaseUnits.Int64() || common.HexToAddress(h.Recipient) != l.To {
			continue
		}
		booked, err := bookedFrom(ctx, tx, env, w.TenantID, ChainLogReference(chainID, l.TxHash, l.LogIndex), l.BlockHash)
		if err != nil || booked {
			return err
		}
		err = kernel.ReleasePaymentHold(ctx, tx, env, h, "chain:"+l.TxHash.Hex(), now)
		var domain *core.Error
		if errors.As(err, &domain) {
			return tx.PaymentHolds().DeletePaymentHold(ctx, h.TenantID, h.PaymentID)
		}
		return err
	}
	return nil
}

// bookedFrom reports whether the mirror already booked the log of reference from block.
func bookedFrom(ctx context.Context, tx txView, env core.Environment, home, reference string, block common.Hash) (bool, error) {
	t, err := tx.Ledger().TransferByReference(ctx, env, home, reference)
	if core.HasCode(err, core.CodeTransferNotFound) {
		return false, nil
	}
	return err == nil && t.Metadata["blockHash"] == block.Hex(), err
}
