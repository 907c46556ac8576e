package chain

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/adapters/chain/bindings"
	"github.com/corridorhq/corridor/core/claim"
)

// DeployContracts puts SafeL2, SafeProxyFactory, CompatibilityFallbackHandler, TestUSDC
// (minter: the deployer), ClaimEscrow (operator and settlement: the deployer, grace period
// claim.DefaultGracePeriod) and CardSpendModule (operator and settlement: the deployer) on a fresh development chain and returns their addresses, which the
// caller records (they are configuration from then on). It waits until each is mined and its
// code shows at the latest block, so the caller can verify them at once. Only for
// chains Corridor runs itself: on public chains the canonical Safe deployments and Circle's
// USDC are configured instead.
func DeployContracts(ctx context.Context, client Client, deployerKey *ecdsa.PrivateKey, arts *Artifacts) (Addresses, error) {
	chainID, err := client.ChainID(ctx)
	if err != nil {
		return Addresses{}, fmt.Errorf("chain: reading the chain id: %w", err)
	}
	return deployContracts(ctx, newRelayer(client, deployerKey, chainID, nil), arts, claim.DefaultGracePeriod)
}

// DeployClaimEscrow puts only ClaimEscrow on a chain whose USDC is already deployed (a dev
// chain recorded before the escrow existed): operator and settlement are the deployer, which
// must be the relayer the adapter will run with. It waits until the contract is mined and its
// code shows at the latest block.
func DeployClaimEscrow(ctx context.Context, client Client, deployerKey *ecdsa.PrivateKey, arts *Artifacts, usdc common.Address, gracePeriod time.Duration) (common.Address, error) {
	chainID, err := client.ChainID(ctx)
	if err != nil {
		return common.Address{}, fmt.Errorf("chain: reading the chain id: %w", err)
	}
	return deployClaimEscrow(ctx, newRelayer(client, deployerKey, chainID, nil), arts, usdc, gracePeriod)
}

// DeployCardSpendModule puts only CardSpendModule on a chain whose USDC is already deployed (a
// dev chain recorded before the module existed): operator and settlement are the deployer,
// which must be the relayer the adapter will run with (the settlement is the same address the
// claim escrow refunds to). It waits until the contract is mined and its code shows.
func DeployCardSpendModule(ctx context.Context, client Client, deployerKey *ecdsa.PrivateKey, arts *Artifacts, usdc common.Address) (common.Address, error) {
	chainID, err := client.ChainID(ctx)
	if err != nil {
		return common.Address{}, fmt.Errorf("chain: reading the chain id: %w", err)
	}
	return deployCardSpendModule(ctx, newRelayer(client, deployerKey, chainID, nil), arts, usdc)
}

// DeployCheckoutFactory puts only CheckoutDepositFactory on a chain whose USDC is already
// deployed (a dev chain recorded before the factory existed): operator and settlement are the
// deployer, which must be the relayer the adapter will run with. It waits until it is mined.
func DeployCheckoutFactory(ctx context.Context, client Client, deployerKey *ecdsa.PrivateKey, arts *Artifacts, usdc common.Address) (common.Address, error) {
	chainID, err := client.ChainID(ctx)
	if err != nil {
		return common.Address{}, fmt.Errorf("chain: reading the chain id: %w", err)
	}
	return deployCheckoutFactory(ctx, newRelayer(client, deployerKey, chainID, nil), arts, usdc)
}

// deployCheckoutFactory deploys CheckoutDepositFactory(relayer, usdc, relayer) and waits for it.
func deployCheckoutFactory(ctx context.Context, r *relayer, arts *Artifacts, usdc common.Address) (common.Address, error) {
	constructor := bindings.NewCheckoutDepositFactory().PackConstructor(r.from, usdc, r.from)
	hash, address, err := r.deploy(ctx, append(append([]byte{}, arts.CheckoutDepositFactory.Bytecode...), constructor...))
	if err != nil {
		return common.Address{}, fmt.Errorf("chain: deploying CheckoutDepositFactory: %w", err)
	}
	if err := waitDeployed(ctx, r.client, hash, address); err != nil {
		return common.Address{}, fmt.Errorf("chain: deploying CheckoutDepositFactory: %w", err)
	}
	return address, nil
}

// deployCardSpendModule deploys CardSpendModule(relayer, usdc, relayer) and waits for it.
func deployCardSpendModule(ctx context.Context, r *relayer, arts *Artifacts, usdc common.Address) (common.Address, error) {
	constructor := bindings.NewCardSpendModule().PackConstructor(r.from, usdc, r.from)
	hash, address, err := r.deploy(ctx, append(append([]byte{}, arts.CardSpendModule.Bytecode...), constructor...))
	if err != nil {
		return common.Address{}, fmt.Errorf("chain: deploying CardSpendModule: %w", err)
	}
	if err := waitDeployed(ctx, r.client, hash, address); err != nil {
		return common.Address{}, fmt.Errorf("chain: deploying CardSpendModule: %w", err)
	}
	return address, nil
}

func deployContracts(ctx context.Context, r *relayer, arts *Artifacts, gracePeriod time.Duration) (Addresses, error) {
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
		if err := waitDeployed(ctx, r.client, hashes[i], *step.into); err != nil {
			return Addresses{}, fmt.Errorf("chain: deploying %s: %w", step.name, err)
		}
	}
	addrs := Addresses{
		SafeSingleton: *plan[0].into, SafeProxyFactory: *plan[1].into,
		FallbackHandler: *plan[2].into, USDC: *plan[3].into,
	}
	// The escrow's constructor checks that the token has code, so it goes after TestUSDC's code
	// is visible, not in the batch above.
	escrow, err := deployClaimEscrow(ctx, r, arts, addrs.USDC, gracePeriod)
	if err != nil {
		return Addresses{}, err
	}
	addrs.ClaimEscrow = escrow
	if addrs.CardSpendModule, err = deployCardSpendModule(ctx, r, arts, addrs.USDC); err != nil {
		return Addresses{}, err
	}
	if addrs.CheckoutFactory, err = deployCheckoutFactory(ctx, r, arts, addrs.USDC); err != nil {
		return Addresses{}, err
	}
	return addrs, nil
}

// deployClaimEscrow deploys ClaimEscrow(usdc, relayer, relayer, gracePeriod) and waits for it.
func deployClaimEscrow(ctx context.Context, r *relayer, arts *Artifacts, usdc common.Address, gracePeriod time.Duration) (common.Address, error) {
	if gracePeriod < 0 || gracePeriod%time.Second != 0 {
		return common.Address{}, fmt.Errorf("chain: the claim grace period must be whole non-negative seconds, got %s", gracePeriod)
	}
	constructor := bindings.NewClaimEscrow().PackConstructor(usdc, r.from, r.from, uint64(gracePeriod/time.Second))
	hash, address, err := r.deploy(ctx, append(append([]byte{}, arts.ClaimEscrow.Bytecode...), constructor...))
	if err != nil {
		return common.Address{}, fmt.Errorf("chain: deploying ClaimEscrow: %w", err)
	}
	if err := waitDeployed(ctx, r.client, hash, address); err != nil {
		return common.Address{}, fmt.Errorf("chain: deploying ClaimEscrow: %w", err)
	}
	return address, nil
}

// Bounds of waitDeployed.
const (
	// codeVisibleTimeout bounds the wait for a mined contract's code to show at the latest
	// block; a node lags by milliseconds, so reaching it means something else is wrong.
	codeVisibleTimeout = 30 * time.Second
	// codePollInterval paces that wait.
	codePollInterval = 50 * time.Millisecond
)

// waitDeployed waits until a contract creation is mined and its code shows at the latest block.
// A receipt alone is not enough: geth can serve a receipt a moment before its latest state
// includes the block, and start-up verifies every contract at the latest block right after
// deploying it (as does ClaimEscrow's constructor, which needs TestUSDC's code).
func waitDeployed(ctx context.Context, client Client, hash common.Hash, address common.Address) error {
	if _, err := waitMined(ctx, client, hash); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, codeVisibleTimeout)
	defer cancel()
	for {
		code, err := client.CodeAt(ctx, address, nil)
		switch {
		case err == nil && len(code) > 0:
			return nil
		case err != nil && ctx.Err() == nil:
			return fmt.Errorf("chain: code at %s: %w", address.Hex(), err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("chain: no code at %s at the latest block although its creation %s was mined: %w", address.Hex(), hash.Hex(), ctx.Err())
		case <-time.After(codePollInterval):
		}
	}
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
