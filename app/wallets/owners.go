package wallets

import (
	"context"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core/wallet"
)

// ownershipReadConcurrency bounds parallel owner reads against the chain.
const ownershipReadConcurrency = 8

// WalletsOwnedBy lists the ids of wallets (in the given order) whose owners include signer.
// A deployed wallet is judged by its on-chain owners (SafeOwners), which may have changed since
// creation. A wallet not deployed yet, or whose chain cannot be read, is judged by its
// configured owners: anyone can still deploy the Safe with exactly those owners, so they
// remain owners in waiting. Runs outside any transaction it starts itself.
func (s *Service) WalletsOwnedBy(ctx context.Context, wallets []wallet.Wallet, signer string) []string {
	owned := make([]bool, len(wallets))
	sem := make(chan struct{}, ownershipReadConcurrency)
	var wg sync.WaitGroup
	for i, w := range wallets {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			owned[i] = s.isOwner(ctx, w, signer)
		}()
	}
	wg.Wait()
	ids := []string{}
	for i, w := range wallets {
		if owned[i] {
			ids = append(ids, w.ID)
		}
	}
	return ids
}

func (s *Service) isOwner(ctx context.Context, w wallet.Wallet, signer string) bool {
	if w.Status != wallet.StatusDeployed {
		return w.HasOwner(signer)
	}
	chain, err := s.chains.ChainFor(w.Environment, w.ChainID)
	if err != nil {
		return w.HasOwner(signer)
	}
	ctx, cancel := context.WithTimeout(ctx, balanceReadTimeout)
	defer cancel()
	owners, err := chain.SafeOwners(ctx, common.HexToAddress(w.Address))
	if err != nil {
		return w.HasOwner(signer)
	}
	for _, o := range owners {
		if strings.EqualFold(o.Hex(), signer) {
			return true
		}
	}
	return false
}
