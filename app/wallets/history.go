package wallets

import (
	"context"
	"time"

	"corridor/app/kernel"
	"corridor/core/auth"
	"corridor/core/wallet"
	"corridor/ledger"
	"corridor/ports"
)

// MaxHistoryLines bounds the ledger mirror lines one history read returns per wallet, newest
// kept: the secondary transaction lists page over this window (docs/api.md, "Secondary surface").
const MaxHistoryLines = 1000

// MirrorLine is one posting of the ledger's mirror of a wallet's on-chain USDC: an indexed
// Transfer log into (Amount > 0) or out of (Amount < 0) the wallet's Safe.
type MirrorLine struct {
	TransferID string
	WalletID   string
	Amount     int64 // signed base units on the wallet's account
	TxHash     string
	From, To   string
	CreatedAt  time.Time
}

// WalletHistory is a wallet of the caller with the ledger mirror lines of its on-chain USDC,
// oldest first (at most MaxHistoryLines, the newest ones). A wallet never indexed has none.
func (s *Service) WalletHistory(ctx context.Context, p auth.Principal, walletID string) (wallet.Wallet, []MirrorLine, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeWalletsRead); err != nil {
		return wallet.Wallet{}, nil, err
	}
	w, err := s.findWallet(ctx, p, walletID)
	if err != nil {
		return wallet.Wallet{}, nil, err
	}
	var lines []MirrorLine
	err = s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		accounts, err := mirrorAccounts(ctx, tx, p)
		if err != nil {
			return err
		}
		lines, err = mirrorLines(ctx, tx, w.ID, accounts[ledger.WalletOnchainRef(w.ID)])
		return err
	})
	return w, lines, err
}

// TenantHistory is every wallet of the caller with its mirror lines, oldest first per wallet.
func (s *Service) TenantHistory(ctx context.Context, p auth.Principal) ([]wallet.Wallet, []MirrorLine, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeWalletsRead); err != nil {
		return nil, nil, err
	}
	var all []wallet.Wallet
	var lines []MirrorLine
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		for skip := 0; skip <= ports.MaxSkip; skip += ports.MaxTake {
			page, total, err := tx.Wallets().ListWallets(ctx, p.TenantID, p.Environment, ports.Page{Skip: skip, Take: ports.MaxTake})
			if err != nil {
				return err
			}
			all = append(all, page...)
			if skip+len(page) >= total || len(page) == 0 {
				break
			}
		}
		accounts, err := mirrorAccounts(ctx, tx, p)
		if err != nil {
			return err
		}
		for _, w := range all {
			got, err := mirrorLines(ctx, tx, w.ID, accounts[ledger.WalletOnchainRef(w.ID)])
			if err != nil {
				return err
			}
			lines = append(lines, got...)
		}
		return nil
	})
	return all, lines, err
}

// mirrorAccounts maps the reference of each of the caller's wallet mirror accounts to its id.
func mirrorAccounts(ctx context.Context, tx ports.Tx, p auth.Principal) (map[string]string, error) {
	out := map[string]string{}
	q := ports.AccountQuery{Environment: p.Environment, TenantID: p.TenantID, Kind: ledger.KindWalletOnchain}
	for skip := 0; skip <= ports.MaxSkip; skip += ports.MaxTake {
		page, total, err := tx.LedgerReports().ListAccounts(ctx, q, ports.Page{Skip: skip, Take: ports.MaxTake})
		if err != nil {
			return nil, err
		}
		for _, a := range page {
			out[a.Account.Reference] = a.Account.ID
		}
		if skip+len(page) >= total || len(page) == 0 {
			break
		}
	}
	return out, nil
}

// mirrorLines reads the newest MaxHistoryLines lines of a wallet's mirror account ("" when the
// wallet has none yet).
func mirrorLines(ctx context.Context, tx ports.Tx, walletID, accountID string) ([]MirrorLine, error) {
	if accountID == "" {
		return nil, nil
	}
	first, err := tx.LedgerReports().Statement(ctx, ports.StatementQuery{AccountID: accountID}, ports.Page{Take: 1})
	if err != nil {
		return nil, err
	}
	start := max(0, first.Total-MaxHistoryLines)
	var out []MirrorLine
	for skip := start; skip < first.Total; skip += ports.MaxTake {
		st, err := tx.LedgerReports().Statement(ctx, ports.StatementQuery{AccountID: accountID}, ports.Page{Skip: skip, Take: ports.MaxTake})
		if err != nil {
			return nil, err
		}
		for _, l := range st.Lines {
			out = append(out, MirrorLine{TransferID: l.Transfer.ID, WalletID: walletID, Amount: l.Amount,
				TxHash: l.Transfer.Metadata["txHash"], From: l.Transfer.Metadata["from"], To: l.Transfer.Metadata["to"],
				CreatedAt: l.Transfer.CreatedAt})
		}
		if len(st.Lines) == 0 {
			break
		}
	}
	return out, nil
}
