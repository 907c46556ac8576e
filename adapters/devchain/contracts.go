package devchain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/corridorhq/corridor/adapters/chain"
	"github.com/corridorhq/corridor/core/claim"
)

// AddressesFile is where the deployed contracts are recorded, in the dev chain's directory.
// `corridor serve` reads the same format from CHAIN_ADDRESSES_FILE.
const AddressesFile = "addresses.json"

// Recorded is addresses.json: the contracts and what they were deployed for.
type Recorded struct {
	ChainID  int64          `json:"chainId"`
	Deployer common.Address `json:"deployer"` // the relayer: TestUSDC's minter, the claim escrow's operator
	chain.Addresses
	// CheckoutFactoryCode is keccak256 of the CheckoutDepositFactory creation code the recorded
	// factory was deployed from: a factory built from other code (an older contract) is
	// deployed again rather than reused.
	CheckoutFactoryCode common.Hash `json:"checkoutFactoryCode,omitempty"`
	DeployedAt          time.Time   `json:"deployedAt"`
}

// ReadAddresses reads a recorded addresses file.
func ReadAddresses(path string) (Recorded, error) {
	var r Recorded
	raw, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("devchain: %s: %w", path, err)
	}
	return r, nil
}

// relayerFloor is the balance below which the relayer is topped up from the developer
// account, and relayerTopUp what it then gets: 100 and 1,000,000 ETH.
var (
	relayerFloor = new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))
	relayerTopUp = new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e18))
)

// fundRelayer makes sure the relayer can pay gas. The genesis funds it; only a relayer key
// made after the chain (relayer.key deleted) needs money from the developer account.
func (c *Chain) fundRelayer(ctx context.Context, client *ethclient.Client) error {
	relayer := crypto.PubkeyToAddress(c.relayerKey.PublicKey)
	balance, err := client.BalanceAt(ctx, relayer, nil)
	if err != nil {
		return fmt.Errorf("devchain: relayer balance: %w", err)
	}
	if balance.Cmp(relayerFloor) >= 0 {
		return nil
	}
	dev := mustKey(developerKey)
	from := crypto.PubkeyToAddress(dev.PublicKey)
	nonce, err := client.PendingNonceAt(ctx, from)
	if err != nil {
		return fmt.Errorf("devchain: developer nonce: %w", err)
	}
	tip, err := client.SuggestGasTipCap(ctx)
	if err != nil {
		return fmt.Errorf("devchain: gas tip: %w", err)
	}
	head, err := client.HeaderByNumber(ctx, nil)
	if err != nil {
		return fmt.Errorf("devchain: latest header: %w", err)
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	tx, err := types.SignNewTx(dev, types.LatestSignerForChainID(big.NewInt(ChainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(ChainID), Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 21_000,
		To: &relayer, Value: relayerTopUp,
	})
	if err != nil {
		return fmt.Errorf("devchain: signing the relayer top-up: %w", err)
	}
	if err := client.SendTransaction(ctx, tx); err != nil {
		return fmt.Errorf("devchain: relayer top-up from the developer account: %w", err)
	}
	if err := waitMined(ctx, client, tx.Hash()); err != nil {
		return err
	}
	c.logf("devchain: funded relayer %s from the developer account", relayer.Hex())
	return nil
}

func waitMined(ctx context.Context, client *ethclient.Client, hash common.Hash) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	for {
		receipt, err := client.TransactionReceipt(ctx, hash)
		switch {
		case err == nil && receipt.Status == types.ReceiptStatusSuccessful:
			return nil
		case err == nil:
			return fmt.Errorf("devchain: transaction %s failed", hash.Hex())
		case !errors.Is(err, ethereum.NotFound):
			return fmt.Errorf("devchain: receipt of %s: %w", hash.Hex(), err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("devchain: waiting for %s: %w", hash.Hex(), ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ensureContracts reuses the recorded contracts when they are on the chain and were deployed by
// this relayer (it must be TestUSDC's minter and the escrow's operator), else deploys them and
// records the addresses. A record from before the claim escrow or the card spend module existed
// (or whose escrow or module is gone) keeps its other contracts and gets just those added.
func (c *Chain) ensureContracts(ctx context.Context, client *ethclient.Client, artifactsDir string) (chain.Addresses, error) {
	path := filepath.Join(c.dataDir, AddressesFile)
	relayer := crypto.PubkeyToAddress(c.relayerKey.PublicKey)
	recorded, err := ReadAddresses(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return chain.Addresses{}, err
	case recorded.ChainID != ChainID || recorded.Deployer != relayer:
		c.logf("devchain: %s was recorded for another chain or relayer; deploying afresh", path)
	default:
		present, err := allDeployed(ctx, client, recorded.SafeSingleton, recorded.SafeProxyFactory, recorded.FallbackHandler, recorded.USDC)
		if err != nil {
			return chain.Addresses{}, err
		}
		if present {
			return c.ensureEscrow(ctx, client, artifactsDir, path, recorded)
		}
		c.logf("devchain: the recorded contracts are not on the chain (was it wiped?); deploying again")
	}
	return c.deploy(ctx, client, artifactsDir, path, relayer)
}

func (c *Chain) deploy(ctx context.Context, client *ethclient.Client, artifactsDir, path string, relayer common.Address) (chain.Addresses, error) {
	arts, err := loadArtifacts(artifactsDir)
	if err != nil {
		return chain.Addresses{}, err
	}
	begin := time.Now()
	addrs, err := chain.DeployContracts(ctx, client, c.relayerKey, arts)
	if err != nil {
		return chain.Addresses{}, err
	}
	if err := record(path, Recorded{ChainID: ChainID, Deployer: relayer, Addresses: addrs,
		CheckoutFactoryCode: crypto.Keccak256Hash(arts.CheckoutDepositFactory.Bytecode), DeployedAt: time.Now().UTC()}); err != nil {
		return chain.Addresses{}, err
	}
	c.logf("devchain: deployed SafeL2, SafeProxyFactory, CompatibilityFallbackHandler, TestUSDC (USDC %s), ClaimEscrow (%s) and CardSpendModule (%s) in %s; recorded in %s",
		addrs.USDC.Hex(), addrs.ClaimEscrow.Hex(), addrs.CardSpendModule.Hex(), time.Since(begin).Round(time.Millisecond), path)
	return addrs, nil
}

// ensureEscrow keeps the recorded claim escrow and card spend module when they are on the
// chain, else deploys whichever is missing (operator and settlement: the relayer; the escrow
// with the default grace period) next to the recorded USDC and records it, keeping every other
// address.
func (c *Chain) ensureEscrow(ctx context.Context, client *ethclient.Client, artifactsDir, path string, recorded Recorded) (chain.Addresses, error) {
	escrowPresent, err := recordedAndDeployed(ctx, client, recorded.ClaimEscrow)
	if err != nil {
		return chain.Addresses{}, err
	}
	modulePresent, err := recordedAndDeployed(ctx, client, recorded.CardSpendModule)
	if err != nil {
		return chain.Addresses{}, err
	}
	factoryPresent, err := recordedAndDeployed(ctx, client, recorded.CheckoutFactory)
	if err != nil {
		return chain.Addresses{}, err
	}
	arts, err := loadArtifacts(artifactsDir)
	if err != nil {
		return chain.Addresses{}, err
	}
	factoryCode := crypto.Keccak256Hash(arts.CheckoutDepositFactory.Bytecode)
	factoryCurrent := factoryPresent && recorded.CheckoutFactoryCode == factoryCode
	if factoryPresent && !factoryCurrent {
		c.logf("devchain: the recorded CheckoutDepositFactory %s was built from other code; deploying the current one", recorded.CheckoutFactory.Hex())
	}
	if escrowPresent && modulePresent && factoryCurrent {
		c.logf("devchain: contracts already deployed (USDC %s, ClaimEscrow %s, CardSpendModule %s)", recorded.USDC.Hex(), recorded.ClaimEscrow.Hex(), recorded.CardSpendModule.Hex())
		return recorded.Addresses, nil
	}
	if !escrowPresent {
		escrow, err := chain.DeployClaimEscrow(ctx, client, c.relayerKey, arts, recorded.USDC, claim.DefaultGracePeriod)
		if err != nil {
			return chain.Addresses{}, err
		}
		recorded.ClaimEscrow = escrow
		c.logf("devchain: contracts already deployed (USDC %s); added ClaimEscrow %s to %s", recorded.USDC.Hex(), escrow.Hex(), path)
	}
	if !modulePresent {
		module, err := chain.DeployCardSpendModule(ctx, client, c.relayerKey, arts, recorded.USDC)
		if err != nil {
			return chain.Addresses{}, err
		}
		recorded.CardSpendModule = module
		c.logf("devchain: contracts already deployed (USDC %s); added CardSpendModule %s to %s", recorded.USDC.Hex(), module.Hex(), path)
	}
	if !factoryCurrent {
		factory, err := chain.DeployCheckoutFactory(ctx, client, c.relayerKey, arts, recorded.USDC)
		if err != nil {
			return chain.Addresses{}, err
		}
		recorded.CheckoutFactory, recorded.CheckoutFactoryCode = factory, factoryCode
		c.logf("devchain: contracts already deployed (USDC %s); added CheckoutDepositFactory %s to %s", recorded.USDC.Hex(), factory.Hex(), path)
	}
	if err := record(path, recorded); err != nil {
		return chain.Addresses{}, err
	}
	return recorded.Addresses, nil
}

// recordedAndDeployed reports whether address is recorded (not zero) and holds code.
func recordedAndDeployed(ctx context.Context, client *ethclient.Client, address common.Address) (bool, error) {
	if address == (common.Address{}) {
		return false, nil
	}
	return allDeployed(ctx, client, address)
}

func loadArtifacts(dir string) (*chain.Artifacts, error) {
	if dir == "" {
		var err error
		if dir, err = chain.DefaultArtifactsDir(); err != nil {
			return nil, err
		}
	}
	return chain.LoadArtifacts(dir)
}

func record(path string, r Recorded) error {
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(path, append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("devchain: recording %s: %w", path, err)
	}
	return nil
}

// allDeployed reports whether every address holds code.
func allDeployed(ctx context.Context, client *ethclient.Client, addrs ...common.Address) (bool, error) {
	for _, a := range addrs {
		code, err := client.CodeAt(ctx, a, nil)
		if err != nil {
			return false, fmt.Errorf("devchain: code at %s: %w", a.Hex(), err)
		}
		if len(code) == 0 {
			return false, nil
		}
	}
	return true, nil
}
