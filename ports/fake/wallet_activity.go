package fake

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// walletActivityRepo merges the four sources the Postgres query unions: Safe transfers, the
// ledger mirror's on-chain lines (an outgoing line already shown as its executed Safe payment
// left out), completed checkouts and checkout refunds, newest first (ties by id, descending).
type walletActivityRepo struct{ s *Store }

var _ ports.WalletActivityRepo = walletActivityRepo{}

// ListWalletActivity panics on a page out of bounds, as the Postgres store does: callers clamp.
func (r walletActivityRepo) ListWalletActivity(_ context.Context, q ports.ActivityQuery, p ports.Page) ([]ports.WalletActivity, int, error) {
	if p.Skip < 0 || p.Skip > ports.MaxActivitySkip || p.Take <= 0 || p.Take > ports.MaxTake {
		panic(fmt.Sprintf("fake: wallet activity page out of bounds: %+v", p))
	}
	rows := append(r.payments(q), r.mirror(q)...)
	if q.WalletID == "" {
		rows = append(append(rows, r.checkouts(q)...), r.refunds(q)...)
	}
	rows = slices.DeleteFunc(rows, func(a ports.WalletActivity) bool {
		return (q.Type != "" && a.Type != q.Type) || (q.Status != "" && a.Status != q.Status) ||
			(!q.From.IsZero() && a.CreatedAt.Before(q.From)) || (!q.To.IsZero() && !a.CreatedAt.Before(q.To))
	})
	slices.SortFunc(rows, func(a, b ports.WalletActivity) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	out, total := page(rows, p)
	return out, total, nil
}

func (r walletActivityRepo) payments(q ports.ActivityQuery) []ports.WalletActivity {
	var out []ports.WalletActivity
	for _, sp := range r.s.state.payments.rows {
		if sp.TenantID != q.TenantID || sp.Environment != q.Environment || (sp.Kind != "" && sp.Kind != safepay.KindTransfer) ||
			(q.WalletID != "" && sp.SourceWalletID != q.WalletID) {
			continue
		}
		status := string(sp.Status)
		if sp.Status == safepay.StatusCreated {
			status = string(safepay.StatusAwaitingSignature)
		}
		out = append(out, ports.WalletActivity{ID: sp.ID, WalletID: sp.SourceWalletID, Type: "withdrawal", AmountBaseUnits: sp.AmountBaseUnits,
			Status: status, TxHash: sp.ExecutedTxHash, Counterparty: sp.DestinationAddress, Note: sp.Memo, CreatedAt: sp.CreatedAt})
	}
	return out
}

// mirror reads the on-chain accounts of the tenant's wallets (reference wallet:{id}:onchain).
func (r walletActivityRepo) mirror(q ports.ActivityQuery) []ports.WalletActivity {
	postings := ledgerReports(r).replay()
	var out []ports.WalletActivity
	for _, a := range r.s.state.book.Accounts() {
		walletID := strings.TrimSuffix(strings.TrimPrefix(a.Reference, "wallet:"), ":onchain")
		if a.TenantID != q.TenantID || a.Environment != q.Environment || a.Kind != ledger.KindWalletOnchain ||
			(q.WalletID != "" && walletID != q.WalletID) {
			continue
		}
		for _, x := range postings[a.ID] {
			if line, ok := r.mirrorLine(walletID, x); ok {
				out = append(out, line)
			}
		}
	}
	return out
}

func (r walletActivityRepo) mirrorLine(walletID string, x posting) (ports.WalletActivity, bool) {
	meta := x.transfer.Metadata
	line := ports.WalletActivity{ID: x.transfer.ID, WalletID: walletID, Type: "payment", AmountBaseUnits: x.amount, Status: "COMPLETED",
		TxHash: meta["txHash"], Counterparty: meta["from"], CreatedAt: x.transfer.CreatedAt}
	if x.amount < 0 {
		line.Type, line.AmountBaseUnits, line.Counterparty = "withdrawal", -x.amount, meta["to"]
		for _, sp := range r.s.state.payments.rows {
			if sp.SourceWalletID == walletID && (sp.Kind == "" || sp.Kind == safepay.KindTransfer) && sp.ExecutedTxHash != "" &&
				strings.EqualFold(sp.ExecutedTxHash, meta["txHash"]) {
				return ports.WalletActivity{}, false
			}
		}
	}
	return line, true
}

func (r walletActivityRepo) checkouts(q ports.ActivityQuery) []ports.WalletActivity {
	var out []ports.WalletActivity
	for _, c := range r.s.state.checkouts.checkouts.rows {
		if c.TenantID != q.TenantID || c.Environment != q.Environment || c.Status != checkout.StatusCompleted {
			continue
		}
		at := c.CreatedAt
		if c.CompletedAt != nil {
			at = *c.CompletedAt
		}
		out = append(out, ports.WalletActivity{ID: c.ID, Type: "payment", AmountBaseUnits: c.Received, Status: "COMPLETED",
			TxHash: c.TransactionHash, Counterparty: c.PayerAddress, Note: c.Description, CreatedAt: at})
	}
	return out
}

func (r walletActivityRepo) refunds(q ports.ActivityQuery) []ports.WalletActivity {
	var out []ports.WalletActivity
	for _, rf := range r.s.state.checkouts.refunds.rows {
		if rf.TenantID != q.TenantID || rf.Environment != q.Environment {
			continue
		}
		status := "EXECUTING"
		if rf.Status == checkout.RefundProcessed {
			status = "COMPLETED"
		}
		out = append(out, ports.WalletActivity{ID: rf.ID, Type: "refund", AmountBaseUnits: rf.Amount, Status: status, TxHash: rf.TxHash,
			Counterparty: rf.Destination, Note: "refund of " + rf.CheckoutID, CreatedAt: rf.CreatedAt})
	}
	return out
}
