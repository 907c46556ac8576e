package chain

import (
	"context"
	"crypto/ecdsa"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"corridor/adapters/chain/bindings"
)

// DeployContracts puts SafeL2, SafeProxyFactory, CompatibilityFallbackHandler and TestUSDC
// (minter: the deployer) on a fresh development chain and returns their addresses, which the
// caller records (they are configuration from then on). It waits until each is mined. Only for
// chains Corridor runs itself: on public chains the canonical Safe deployments and Circle's
// USDC are configured instead.
func DeployContracts(ctx context.Context, client Client, deployerKey *ecdsa.PrivateKey, arts *Artifacts) (Addresses, error) {
	chainID, err := client.ChainID(ctx)
	if err != nil {
		return Addresses{}, fmt.Errorf("chain: reading the chain id: %w", err)
	}
	return deployContracts(ctx, newRelayer(client, deployerKey, chainID, nil), arts)
}

func deployContracts(ctx context.Context, r *relayer, arts *Artifacts) (Addresses, error) {
	usdcConstructor := bindings.NewTestUSDC().PackConstructor(r.from)
	plan := []struct {
		name string
		code []byte
		into *common.Address
	}{
		{"SafeL2", arts.SafeL2.Bytecode, new(common.Address)},
		{"SafeProxyFactory", arts.SafeProxyFactory.Bytecode, new(common.Address)},
		{"CompatibilityFallbackHandler", arts.CompatibilityFallbackHandler.Bytecode, new(common.Address)},
		{"TestUSDC", append(append([]byte{}, arts.TestUSDC.Bytecode...), usdcConstructor...), new(common.Address)},
	}
	hashes := make([]common.Hash, len(plan))
	for i, step := range plan {
		hash, address, err := r.deploy(ctx, step.code)
		if err != nil {
			return Addresses{}, fmt.Errorf("chain: deploying %s: %w", step.name, err)
		}
		hashes[i], *step.into = hash, address
	}
	for i, step := range plan {
		if _, err := waitMined(ctx, r.client, hashes[i]); err != nil {
			return Addresses{}, fmt.Errorf("chain: deploying %s: %w", step.name, err)
		}
	}
	return Addresses{
		SafeSingleton: *plan[0].into, SafeProxyFactory: *plan[1].into,
		FallbackHandler: *plan[2].into, USDC: *plan[3].into,
	}, nil
}

// deploy sends a contract creation and returns its transaction and the address it creates
// (CREATE from the relayer at the nonce the transaction used).
func (r *relayer) deploy(ctx context.Context, code []byte) (common.Hash, common.Address, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	hash, err := r.sendLocked(ctx, call{data: code})
	if err != nil {
		return common.Hash{}, common.Address{}, err
	}
	// sendLocked advanced r.nonce past the nonce this transaction used.
	return hash, crypto.CreateAddress(r.from, r.nonce-1), nil
}
