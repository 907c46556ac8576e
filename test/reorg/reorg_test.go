// Package reorg tests the chain indexers' confirmation depth and reorg handling on a simulated
// chain of its own (a fork rewinds the whole chain, so no other test may share it).
package reorg

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/app/mirror"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// confirmations is the depth this package's service indexes at.
const confirmations = 2

// TestMain starts the package's service at confirmation depth 2. The tests run one after the
// other (never t.Parallel): each forks or mines the package's chain.
func TestMain(m *testing.M) {
	harness.MainWithChainConfig(m, func(c *wiring.Config) {
		c.ChainConfirmations = map[core.Environment]uint64{core.EnvTest: confirmations}
	})
}

func env() *harness.Env { return harness.Shared() }

// TestReorg_DroppedDepositIsReversed: a deposit is not posted before it has the configured
// confirmations; once posted, a fork from before its block drops it and the next pass reverses
// it (the wallet's ledger balance follows the chain back to zero); a deposit mined again on the
// new chain is posted again under a new reference, so ledger and chain agree throughout.
func TestReorg_DroppedDepositIsReversed(t *testing.T) {
	ctx := context.Background()
	tenant := env().NewTenant(t)
	w := newWallet(t, tenant.ID)
	chain := env().Chain

	head := latest(t)
	parent, found, err := chain.BlockHash(ctx, head)
	if err != nil || !found {
		t.Fatalf("hash of block %d: %v %v", head, found, err)
	}
	hash, err := chain.MintUSDC(ctx, w, big.NewInt(10_000_000))
	if err != nil {
		t.Fatal(err)
	}
	awaitMined(t, hash)

	// Below the confirmation depth nothing is posted.
	index(t)
	if got := ledgerBalance(t, w); got != 0 {
		t.Fatalf("posted %d before %d confirmations", got, confirmations)
	}
	for range confirmations {
		if _, err := chain.MineSimulated(); err != nil {
			t.Fatal(err)
		}
	}
	index(t)
	if got := ledgerBalance(t, w); got != 10_000_000 {
		t.Fatalf("ledger balance %d after %d confirmations, want 10000000", got, confirmations)
	}

	// The recorded block names the deposit's transfer with its home, the tenant, in which the
	// reversal below locks it.
	if !recordedWithHome(t, tenant.ID) {
		t.Fatalf("no recorded block names a transfer homed with %s", tenant.ID)
	}

	// The chain forks from before the deposit: the deposit's block is gone.
	if err := chain.ForkSimulated(parent); err != nil {
		t.Fatal(err)
	}
	index(t)
	if got, want := ledgerBalance(t, w), onchain(t, w); got != want || got != 0 {
		t.Fatalf("after the fork: ledger %d, chain %d, want both 0", got, want)
	}

	// The new chain grows past the old one (the dropped mint may be mined again): the ledger
	// follows the chain.
	for range confirmations + 3 {
		if _, err := chain.MineSimulated(); err != nil {
			t.Fatal(err)
		}
	}
	index(t)
	if got, want := ledgerBalance(t, w), onchain(t, w); got != want {
		t.Fatalf("after the new chain grew: ledger %d, chain %d", got, want)
	}
}

func newWallet(t *testing.T, tenantID string) common.Address {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	owner := crypto.PubkeyToAddress(key.PublicKey)
	id := core.NewID(core.PrefixWallet)
	address, err := env().Chain.PredictSafeAddress(ports.SafeConfig{Owners: []common.Address{owner}, Threshold: 1, SaltNonce: safe.SaltNonceFor(id)})
	if err != nil {
		t.Fatal(err)
	}
	w := wallet.Wallet{
		ID: id, TenantID: tenantID, Environment: core.EnvTest, Name: "reorg test", Purpose: wallet.PurposeGeneral, ChainID: wallet.SandboxChainID,
		Address: address.Hex(), Owners: []wallet.Owner{{Address: owner.Hex(), Role: wallet.RoleAdminOwner}},
		Threshold: 1, Status: wallet.StatusPendingDeployment, CreatedAt: time.Now().UTC(),
	}
	inTx(t, func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().CreateWallet(ctx, w) })
	walletIDs[address] = id
	return address
}

var walletIDs = map[common.Address]string{}

func inTx(t *testing.T, fn func(ctx context.Context, tx ports.Tx) error) {
	t.Helper()
	if err := env().Service.Store.InTx(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

func latest(t *testing.T) uint64 {
	t.Helper()
	n, err := env().Chain.LatestBlock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func awaitMined(t *testing.T, hash common.Hash) {
	t.Helper()
	r, err := env().Chain.Receipt(context.Background(), hash)
	if err != nil || r.Status != ports.TxSucceeded {
		t.Fatalf("receipt of %s: %+v %v", hash.Hex(), r, err)
	}
}

// index runs the ledger mirror once (the service's periodic run may also run meanwhile: runs
// are safe together).
func index(t *testing.T) {
	t.Helper()
	if _, err := env().Service.Mirror.IndexChain(context.Background(), core.EnvTest); err != nil {
		t.Fatal(err)
	}
}

func ledgerBalance(t *testing.T, address common.Address) int64 {
	t.Helper()
	var posted int64
	tenantID := env().WalletTenant(t, walletIDs[address])
	inTx(t, func(ctx context.Context, tx ports.Tx) error {
		account, err := tx.Ledger().FindAccountByReference(ctx, core.EnvTest, ledger.AssetUSDC, tenantID, ledger.WalletOnchainRef(walletIDs[address]))
		var domain *core.Error
		if errors.As(err, &domain) && domain.Code == core.CodeAccountNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		balances, err := tx.Ledger().Balances(ctx, []string{account.ID})
		posted = balances[account.ID].Posted
		return err
	})
	return posted
}

func onchain(t *testing.T, address common.Address) int64 {
	t.Helper()
	b, err := env().Chain.USDCBalance(context.Background(), address)
	if err != nil {
		t.Fatal(err)
	}
	return b.Int64()
}

// recordedWithHome reports whether a block the ledger mirror recorded names a transfer of home
// (mirror.BlockItem).
func recordedWithHome(t *testing.T, home string) bool {
	t.Helper()
	var found bool
	inTx(t, func(ctx context.Context, tx ports.Tx) error {
		blocks, err := tx.ChainIndex().RecentIndexedBlocks(ctx, ports.IndexerLedgerMirror, core.EnvTest, wallet.SandboxChainID, ports.MaxReorgDepth)
		for _, b := range blocks {
			for _, item := range b.Items {
				if _, h := mirror.ParseBlockItem(item); h == home {
					found = true
				}
			}
		}
		return err
	})
	return found
}
