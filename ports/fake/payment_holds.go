package fake

import (
	"context"
	"sort"

	"github.com/corridorhq/corridor/ports"
)

// paymentHoldRepo keeps Safe payments' holds by payment id.
type paymentHoldRepo struct{ s *Store }

func (r paymentHoldRepo) t() *table[ports.PaymentHold] { return &r.s.state.holds }

func (r paymentHoldRepo) InsertPaymentHold(_ context.Context, h ports.PaymentHold) error {
	return r.t().insert(h.PaymentID, h)
}

func (r paymentHoldRepo) LockPaymentHold(_ context.Context, tenantID, paymentID string) (ports.PaymentHold, bool, error) {
	h, ok := r.t().rows[paymentID]
	if !ok || h.TenantID != tenantID {
		return ports.PaymentHold{}, false, nil
	}
	return h, true, nil
}

func (r paymentHoldRepo) LockWalletPaymentHolds(_ context.Context, tenantID, walletID string, limit int) ([]ports.PaymentHold, error) {
	out := r.t().filter(func(h ports.PaymentHold) bool { return h.TenantID == tenantID && h.WalletID == walletID }, false)
	sort.SliceStable(out, func(i, j int) bool { return out[i].SafeNonce < out[j].SafeNonce })
	return out[:min(len(out), limit)], nil
}

func (r paymentHoldRepo) DeletePaymentHold(_ context.Context, tenantID, paymentID string) error {
	if h, ok := r.t().rows[paymentID]; ok && h.TenantID == tenantID {
		delete(r.t().rows, paymentID)
	}
	return nil
}

func (r paymentHoldRepo) WalletPaymentHeld(ctx context.Context, tenantID, walletID string) (int64, error) {
	holds, _ := r.LockWalletPaymentHolds(ctx, tenantID, walletID, len(r.t().rows))
	var held int64
	for _, h := range holds {
		held += h.AmountBaseUnits
	}
	return held, nil
}
