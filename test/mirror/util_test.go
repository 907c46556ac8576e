package mirror

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

// testWallet is a 1-of-1 Safe wallet of a tenant whose owner key the test holds.
type testWallet struct {
	ID      string
	Address common.Address
	owner   *ecdsa.PrivateKey
}

// newWallet stores a wallet row as the wallets capability would (its CREATE2 address predicted
// by the chain adapter) and, when deploy is set, deploys its Safe. It goes through the store
// and the chain directly so this package does not depend on the wallet endpoints.
func newWallet(t *testing.T, tenantID string, deploy bool) testWallet {
	t.Helper()
	ctx := context.Background()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	owner := crypto.PubkeyToAddress(key.PublicKey)
	id := core.NewID(core.PrefixWallet)
	cfg := ports.SafeConfig{Owners: []common.Address{owner}, Threshold: 1, SaltNonce: safe.SaltNonceFor(id)}
	address, err := env().Chain.PredictSafeAddress(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w := wallet.Wallet{
		ID: id, TenantID: tenantID, Environment: core.EnvTest, Name: "mirror test", Purpose: wallet.PurposeGeneral, ChainID: wallet.SandboxChainID,
		Address: address.Hex(), Owners: []wallet.Owner{{Address: owner.Hex(), Role: wallet.RoleAdminOwner}},
		Threshold: 1, Status: wallet.StatusPendingDeployment, CreatedAt: time.Now().UTC(),
	}
	inTx(t, func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().CreateWallet(ctx, w) })
	if deploy {
		hash, deployed, err := env().Chain.DeploySafe(ctx, cfg)
		if err != nil || deployed != address {
			t.Fatalf("deploy Safe: %v (address %s, predicted %s)", err, deployed.Hex(), address.Hex())
		}
		mined(t, hash)
		now := time.Now().UTC()
		w.Status, w.DeployTxHash, w.DeployAttempts, w.DeployedAt = wallet.StatusDeployed, hash.Hex(), 1, &now
		inTx(t, func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().UpdateWallet(ctx, w) })
	}
	return testWallet{ID: id, Address: address, owner: key}
}

func inTx(t *testing.T, fn func(ctx context.Context, tx ports.Tx) error) {
	t.Helper()
	if err := env().Service.Store.InTx(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// usdc is whole USDC in base units.
func usdc(n int64) *big.Int { return big.NewInt(n * 1_000_000) }

// mint is the sandbox faucet's USDC mint, straight on the chain.
func mint(t *testing.T, to common.Address, amount *big.Int) {
	t.Helper()
	hash, err := env().Chain.MintUSDC(context.Background(), to, amount)
	if err != nil {
		t.Fatal(err)
	}
	mined(t, hash)
}

// pay executes a USDC transfer out of a Safe, signed by its owner and relayed as Corridor's
// payments do.
func pay(t *testing.T, from testWallet, to common.Address, amount *big.Int) common.Hash {
	t.Helper()
	ctx := context.Background()
	c := env().Chain
	nonce, err := c.SafeNonce(ctx, from.Address)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := safe.TokenTransfer(c.USDCAddress(), to, amount, nonce)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := safe.Sign(safe.TransactionHash(c.ChainID(), from.Address, tx), from.owner)
	if err != nil {
		t.Fatal(err)
	}
	packed, err := safe.PackSignatures([]safe.OwnerSignature{{Signer: crypto.PubkeyToAddress(from.owner.PublicKey), Signature: sig}})
	if err != nil {
		t.Fatal(err)
	}
	hash, err := c.ExecSafeTransaction(ctx, from.Address, tx, packed)
	if err != nil {
		t.Fatal(err)
	}
	mined(t, hash)
	return hash
}

func mined(t *testing.T, hash common.Hash) {
	t.Helper()
	r, err := env().Chain.Receipt(context.Background(), hash)
	if err != nil || r.Status != ports.TxSucceeded {
		t.Fatalf("transaction %s: %+v (%v)", hash.Hex(), r, err)
	}
}

func latestBlock(t *testing.T) uint64 {
	t.Helper()
	n, err := env().Chain.LatestBlock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// reconciliation is the response of GET /v1/ledger/reconciliation.
type reconciliation struct {
	Environment string `json:"environment"`
	ChainID     int64  `json:"chainId"`
	Asset       string `json:"asset"`
	Wallets     []struct {
		WalletID string `json:"walletId"`
		Address  string `json:"address"`
		amounts
	} `json:"wallets"`
	Total     int     `json:"total"`
	Truncated bool    `json:"truncated"`
	Totals    amounts `json:"totals"`
	Indexer   struct {
		IndexedThroughBlock *uint64 `json:"indexedThroughBlock"`
		LatestBlock         *uint64 `json:"latestBlock"`
		LagBlocks           *uint64 `json:"lagBlocks"`
	} `json:"indexer"`
}

type amounts struct {
	LedgerBalance           string  `json:"ledgerBalance"`
	LedgerBalanceBaseUnits  string  `json:"ledgerBalanceBaseUnits"`
	OnchainBalance          *string `json:"onchainBalance"`
	OnchainBalanceBaseUnits *string `json:"onchainBalanceBaseUnits"`
	Drift                   *string `json:"drift"`
	DriftBaseUnits          *string `json:"driftBaseUnits"`
}

func reconcile(t *testing.T, c *harness.Client) reconciliation {
	t.Helper()
	var r reconciliation
	c.Get("/v1/ledger/reconciliation").Expect(t, 200).Decode(t, &r)
	return r
}

// awaitIndexed asks for an indexer run through the job queue and waits until the caller's
// reconciliation shows the indexer at or past block.
func awaitIndexed(t *testing.T, c *harness.Client, block uint64) reconciliation {
	t.Helper()
	if err := env().Service.Mirror.RequestChainIndex(context.Background(), core.EnvTest); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := reconcile(t, c)
		if through := r.Indexer.IndexedThroughBlock; through != nil && *through >= block {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("the indexer did not reach block %d: %+v", block, r.Indexer)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// resetCursor moves the indexer back to block 0, as if it had never run.
func resetCursor(t *testing.T) {
	t.Helper()
	if _, err := env().Service.Store.DB().ExecContext(context.Background(), "UPDATE chain_index_cursors SET next_block = 0"); err != nil {
		t.Fatal(err)
	}
}
