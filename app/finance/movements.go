package finance

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// BalanceKinds are the accounts whose movements make a tenant's balance transactions: the
// service balance and the mirrors of its wallets' on-chain balances, the two places the
// tenant's own spendable money sits. Money parked in a payment's own accounts shows as it
// leaves and returns to these.
var BalanceKinds = []string{ledger.KindTenantAvailable, ledger.KindWalletOnchain}

// BalanceTransaction is one change to one of the caller's balances: Net is the signed change
// (positive credits the balance), Fee what the platform took in the same transfer, and Gross =
// Net + Fee, so Net = Gross − Fee whichever way the money went.
type BalanceTransaction struct {
	TransferID  string
	Sequence    int64
	AccountID   string
	AccountKind string
	Asset       string
	Type        ledger.TransferType
	Reference   string
	Described
	Gross, Fee, Net int64
	CreatedAt       time.Time
}

// BalanceTransactionsInput filters the report to [From, To); Export pages up to MaxExportTake.
type BalanceTransactionsInput struct {
	From, To *time.Time
	Export   bool
}

// BalanceTransactions lists the caller's balance transactions in time order.
func (s *Service) BalanceTransactions(ctx context.Context, p auth.Principal, in BalanceTransactionsInput, page ports.Page) ([]BalanceTransaction, int, error) {
	if err := requireFinance(p); err != nil {
		return nil, 0, err
	}
	if err := checkWindow(in.From, in.To); err != nil {
		return nil, 0, err
	}
	page = clampPage(page, in.Export)
	var moves []ports.BalanceMovement
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		q := ports.MovementQuery{Environment: p.Environment, TenantID: p.TenantID, Kinds: BalanceKinds, From: deref(in.From), To: deref(in.To)}
		var err error
		moves, total, err = tx.LedgerReports().BalanceMovements(ctx, q, page)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	out := make([]BalanceTransaction, len(moves))
	for i, m := range moves {
		if out[i], err = balanceTransaction(m); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

// balanceTransaction reads one movement; the fee is what the transfer credited to the
// platform's fee accounts.
func balanceTransaction(m ports.BalanceMovement) (BalanceTransaction, error) {
	t := m.Transfer
	bt := BalanceTransaction{
		TransferID: t.ID, Sequence: m.Sequence, AccountID: m.Account.ID, AccountKind: m.Account.Kind, Asset: t.Asset,
		Type: t.Type, Reference: t.Reference, Described: DescribeReference(t.Reference, t.ID), Net: m.Amount, CreatedAt: t.CreatedAt,
	}
	var err error
	for _, posting := range t.Postings {
		if m.Accounts[posting.AccountID].Kind == ledger.KindPlatformFees && posting.Amount > 0 {
			if bt.Fee, err = core.AddInt64(bt.Fee, posting.Amount); err != nil {
				return bt, err
			}
		}
	}
	bt.Gross, err = core.AddInt64(bt.Net, bt.Fee)
	return bt, err
}
