package mirror

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
)

const (
	// maxCatchUpRuns bounds the indexer runs one catch-up makes: each is at most
	// maxIndexRangesPerRun ranges, so a catch-up stays within a request's time.
	maxCatchUpRuns = 3
	// catchUpBalanceRead bounds the catch-up's first chain read, the Safe's balance. A node that
	// does not answer it in time is stalled or gone, and the decision waiting on the catch-up (a
	// card authorization, answered while the card network waits) goes ahead on the mirror as it
	// stands rather than wait out the chain adapter's own read time-out. A node that answers
	// has the indexing that follows bounded by the caller's deadline only.
	catchUpBalanceRead = 3 * time.Second
)

// CatchUpWalletMirror brings the ledger's mirror of a wallet's Safe up to the chain before a
// decision is made against it: a client that saw the USDC on GET /v1/wallets/{id} (a live chain
// read) may spend it at once, while the periodic indexer would take up to its interval. It runs
// the indexer, at most maxCatchUpRuns times, until the mirror's posted balance reaches the
// Safe's chain balance, or the indexer has caught up with what it may index (funds not yet
// confirmed deep enough stay out). It runs outside any unit of work (chain reads).
func (s *Service) CatchUpWalletMirror(ctx context.Context, tenantID string, env core.Environment, walletID string) error {
	c, err := s.chains.Chain(env)
	if err != nil {
		return err
	}
	var w wallet.Wallet
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		w, err = tx.Wallets().FindWallet(ctx, tenantID, env, walletID)
		return err
	})
	if err != nil {
		return err
	}
	read, cancel := context.WithTimeout(ctx, catchUpBalanceRead)
	onchain, err := c.USDCBalance(read, common.HexToAddress(w.Address))
	cancel()
	if err != nil {
		return err
	}
	for range maxCatchUpRuns {
		posted, err := s.mirroredBalance(ctx, tenantID, env, walletID)
		if err != nil || big.NewInt(posted).Cmp(onchain) >= 0 {
			return err
		}
		res, err := s.IndexChain(ctx, env)
		if err != nil {
			return err
		}
		if res.CaughtUp && res.Posted == 0 && res.Raced == 0 {
			return nil // nothing more the indexer may post yet (a raced run may still be posting)
		}
	}
	return nil
}

// mirroredBalance is the posted balance of the wallet's mirror account (0 before its first
// indexed transfer).
func (s *Service) mirroredBalance(ctx context.Context, tenantID string, env core.Environment, walletID string) (int64, error) {
	var posted int64
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		b, err := kernel.WalletMirrorBalance(ctx, tx.Ledger(), env, tenantID, walletID)
		posted = b.Posted
		return err
	})
	return posted, err
}
