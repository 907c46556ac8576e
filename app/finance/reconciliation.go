package finance

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// Bounds of the reconciliation report.
const (
	// MaxReconciliationWallets bounds one report; a tenant with more sees the first ones by id
	// and Truncated set.
	MaxReconciliationWallets = 1000
	// reconciliationReadConcurrency and reconciliationReadTimeout bound the live on-chain reads.
	reconciliationReadConcurrency = 8
	reconciliationReadTimeout     = 5 * time.Second
)

// WalletReconciliation is one wallet's line: what the ledger says and what the chain says.
type WalletReconciliation struct {
	WalletID      string
	Address       string
	LedgerBalance int64 // posted balance of wallet:{id}:onchain (0 before its first log)
	// OnchainBalance is read live; nil when the chain could not be read.
	OnchainBalance *big.Int
	// Drift is LedgerBalance − OnchainBalance; nil when OnchainBalance is.
	Drift *big.Int
}

// Reconciliation is the ledger-versus-chain report of a tenant's wallets in one environment.
type Reconciliation struct {
	Environment core.Environment
	ChainID     int64
	Wallets     []WalletReconciliation
	Total       int  // the tenant's wallets on the chain
	Truncated   bool // Total > MaxReconciliationWallets
	LedgerTotal int64
	// OnchainTotal and DriftTotal are nil when any wallet's balance could not be read.
	OnchainTotal, DriftTotal *big.Int
	// IndexedThroughBlock is the last block the mirror has posted (nil before its first run);
	// LatestBlock the chain's head when the balances were read (nil when unreadable). Ledger
	// balances are as of the former, on-chain balances as of the latter: a difference between
	// the two explains drift from indexer lag.
	IndexedThroughBlock *uint64
	LatestBlock         *uint64
	GeneratedAt         time.Time
}

// LedgerReconciliation reports, per wallet of the caller's tenant and environment, the ledger
// balance, the live on-chain USDC balance and the drift. The ledger side is read in one unit of
// work (the cursor first, so balances are at least as new as it); the chain is read after
// commit, never inside the transaction. Finance scope (treasury:read), like the other reports.
func (s *Service) LedgerReconciliation(ctx context.Context, p auth.Principal) (Reconciliation, error) {
	if err := requireFinance(p); err != nil {
		return Reconciliation{}, err
	}
	c, err := s.chains.Chain(p.Environment)
	if err != nil {
		return Reconciliation{}, err
	}
	start := Reconciliation{Environment: p.Environment, ChainID: c.ChainID(), GeneratedAt: s.clock.Now().UTC()}
	var rep Reconciliation
	if err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		// readLedgerSide counts and appends into rep: a retried run starts from the empty
		// report, or it would count every wallet twice.
		rep = start
		return readLedgerSide(ctx, tx, p, c.ChainID(), &rep)
	}); err != nil {
		return Reconciliation{}, err
	}
	// The head is read within the same bound as a balance. A node that does not answer it is not
	// asked for every wallet's balance too: the report answers at once with the ledger's side
	// and null on-chain balances, where it waited a read time-out per batch of wallets and, with
	// enough wallets, ran past the request's deadline, losing the ledger's side as well.
	headCtx, cancel := context.WithTimeout(ctx, reconciliationReadTimeout)
	latest, err := c.LatestBlock(headCtx)
	cancel()
	if err != nil {
		return rep, nil
	}
	rep.LatestBlock = &latest
	readOnchainSide(ctx, c, &rep)
	return rep, nil
}

func readLedgerSide(ctx context.Context, tx txView, p auth.Principal, chainID int64, rep *Reconciliation) error {
	cursor, ok, err := tx.ChainIndex().FindCursor(ctx, p.Environment, chainID)
	if err != nil {
		return err
	}
	if block, indexed := cursor.IndexedThrough(); ok && indexed {
		rep.IndexedThroughBlock = &block
	}
	for page := (ports.Page{Take: ports.MaxTake}); ; page.Skip += page.Take {
		wallets, total, err := tx.Wallets().ListWallets(ctx, p.TenantID, p.Environment, page)
		if err != nil {
			return err
		}
		for _, w := range wallets {
			if w.ChainID != chainID {
				continue
			}
			if rep.Total++; len(rep.Wallets) < MaxReconciliationWallets {
				rep.Wallets = append(rep.Wallets, WalletReconciliation{WalletID: w.ID, Address: w.Address})
			}
		}
		if len(wallets) == 0 || page.Skip+len(wallets) >= total {
			break
		}
	}
	rep.Truncated = rep.Total > len(rep.Wallets)
	balances, err := walletLedgerBalances(ctx, tx, p)
	if err != nil {
		return err
	}
	for i := range rep.Wallets {
		rep.Wallets[i].LedgerBalance = balances[ledger.WalletOnchainRef(rep.Wallets[i].WalletID)]
		if rep.LedgerTotal, err = core.AddInt64(rep.LedgerTotal, rep.Wallets[i].LedgerBalance); err != nil {
			return err
		}
	}
	return nil
}

// walletLedgerBalances maps the tenant's wallet account references to their posted balances.
func walletLedgerBalances(ctx context.Context, tx txView, p auth.Principal) (map[string]int64, error) {
	out := map[string]int64{}
	q := ports.AccountQuery{Environment: p.Environment, TenantID: p.TenantID, Kind: ledger.KindWalletOnchain}
	for page := (ports.Page{Take: ports.MaxTake}); ; page.Skip += page.Take {
		accounts, total, err := tx.LedgerReports().ListAccounts(ctx, q, page)
		if err != nil {
			return nil, err
		}
		for _, ab := range accounts {
			if ab.Account.Asset == ledger.AssetUSDC {
				out[ab.Account.Reference] = ab.Balance.Posted
			}
		}
		if len(accounts) == 0 || page.Skip+len(accounts) >= total {
			return out, nil
		}
	}
}

// readOnchainSide reads every wallet's USDC balance, a few at a time, each bounded in time; a
// wallet whose balance cannot be read keeps nil (and so do the totals).
func readOnchainSide(ctx context.Context, c ports.Chain, rep *Reconciliation) {
	sem := make(chan struct{}, reconciliationReadConcurrency)
	done := make(chan struct{})
	for i := range rep.Wallets {
		go func(w *WalletReconciliation) {
			sem <- struct{}{}
			defer func() { <-sem; done <- struct{}{} }()
			readCtx, cancel := context.WithTimeout(ctx, reconciliationReadTimeout)
			defer cancel()
			balance, err := c.USDCBalance(readCtx, common.HexToAddress(w.Address))
			if err == nil && balance != nil {
				w.OnchainBalance = balance
				w.Drift = new(big.Int).Sub(big.NewInt(w.LedgerBalance), balance)
			}
		}(&rep.Wallets[i])
	}
	for range rep.Wallets {
		<-done
	}
	onchain, drift := new(big.Int), new(big.Int)
	for _, w := range rep.Wallets {
		if w.OnchainBalance == nil {
			return
		}
		onchain.Add(onchain, w.OnchainBalance)
		drift.Add(drift, w.Drift)
	}
	rep.OnchainTotal, rep.DriftTotal = onchain, drift
}
