package cards

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

type testWallet struct {
	ID      string
	Address common.Address
	Owner   *ecdsa.PrivateKey // its one owner, threshold 1
}

// newWallet stores a wallet row as the wallets capability would for a TEST wallet (its Safe
// enables the card spend module in its setup) and, when deploy is set, deploys its Safe; with
// fund > 0 it mints that many USDC to the Safe and waits until the ledger mirror shows them.
func newWallet(t *testing.T, tenantID string, deploy bool, fund int64) testWallet {
	t.Helper()
	return newWalletWith(t, tenantID, deploy, fund, env().Chain.CardModuleAddress())
}

// newLegacyWallet is a DEPLOYED wallet whose Safe was set up without the card spend module, as
// wallets created before the module existed were.
func newLegacyWallet(t *testing.T, tenantID string) testWallet {
	t.Helper()
	return newWalletWith(t, tenantID, true, 0, common.Address{})
}

func newWalletWith(t *testing.T, tenantID string, deploy bool, fund int64, module common.Address) testWallet {
	t.Helper()
	ctx := context.Background()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	owner := crypto.PubkeyToAddress(key.PublicKey)
	id := core.NewID(core.PrefixWallet)
	cfg := ports.SafeConfig{Owners: []common.Address{owner}, Threshold: 1, SaltNonce: safe.SaltNonceFor(id), SetupModule: module}
	address, err := env().Chain.PredictSafeAddress(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w := wallet.Wallet{ID: id, TenantID: tenantID, Environment: core.EnvTest, Name: "cards test", ChainID: wallet.SandboxChainID,
		Address: address.Hex(), Owners: []wallet.Owner{{Address: owner.Hex(), Role: wallet.RoleAdminOwner}},
		Threshold: 1, Status: wallet.StatusPendingDeployment, Purpose: wallet.PurposeGeneral, CreatedAt: time.Now().UTC()}
	if module != (common.Address{}) {
		w.SetupModule = module.Hex()
	}
	inTx(t, func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().CreateWallet(ctx, w) })
	if deploy {
		hash, deployed, err := env().Chain.DeploySafe(ctx, cfg)
		if err != nil || deployed != address {
			t.Fatalf("deploy Safe: %v", err)
		}
		mined(t, hash)
		now := time.Now().UTC()
		w.Status, w.DeployTxHash, w.DeployAttempts, w.DeployedAt = wallet.StatusDeployed, hash.Hex(), 1, &now
		inTx(t, func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().UpdateWallet(ctx, w) })
	}
	tw := testWallet{ID: id, Address: address, Owner: key}
	if fund > 0 {
		hash, err := env().Chain.MintUSDC(ctx, address, big.NewInt(fund*1_000_000))
		if err != nil {
			t.Fatal(err)
		}
		mined(t, hash)
		awaitMirrored(t, id, fund*1_000_000)
	}
	return tw
}

func mined(t *testing.T, hash common.Hash) {
	t.Helper()
	r, err := env().Chain.Receipt(context.Background(), hash)
	if err != nil || r.Status != ports.TxSucceeded {
		t.Fatalf("transaction %s: %+v (%v)", hash.Hex(), r, err)
	}
}

func inTx(t *testing.T, fn func(ctx context.Context, tx ports.Tx) error) {
	t.Helper()
	if err := env().Service.Store.InTx(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// mirrorBalance is the wallet's on-chain mirror account: posted balance and open holds.
func mirrorBalance(t *testing.T, walletID string) ledger.Balance {
	t.Helper()
	var b ledger.Balance
	tenantID := env().WalletTenant(t, walletID)
	err := env().Service.Store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		account, err := tx.Ledger().FindAccountByReference(ctx, core.EnvTest, ledger.AssetUSDC, tenantID, ledger.WalletOnchainRef(walletID))
		if err != nil {
			return err
		}
		balances, err := tx.Ledger().Balances(ctx, []string{account.ID})
		b = balances[account.ID]
		return err
	})
	if err != nil && !core.HasCode(err, core.CodeAccountNotFound) {
		t.Fatal(err)
	}
	return b
}

func awaitMirrored(t *testing.T, walletID string, posted int64) {
	t.Helper()
	harness.Eventually(t, fmt.Sprintf("wallet %s mirrored at %d", walletID, posted), func() bool {
		if err := env().Service.Mirror.RequestChainIndex(context.Background(), core.EnvTest); err != nil {
			t.Fatal(err)
		}
		return mirrorBalance(t, walletID).Posted == posted
	})
}

// issue issues a card from w with body and returns it.
func issue(t *testing.T, c *harness.Client, w testWallet, body map[string]any) map[string]any {
	t.Helper()
	return c.Post("/v1/wallets/"+w.ID+"/cards", body).Expect(t, 201).JSON(t)
}

func authorize(t *testing.T, c *harness.Client, cardID, amount, mcc string) map[string]any {
	t.Helper()
	return c.Post("/v1/sandbox/cards/"+cardID+"/authorizations", map[string]any{"amountUsd": amount, "mcc": mcc, "merchantName": "Corner Shop"}).
		Expect(t, 201).JSON(t)
}

func declineReason(m map[string]any) string {
	if r, ok := m["declineReason"].(string); ok {
		return r
	}
	return ""
}

// assertZeroDrift asks the mirror to index through the chain's head and checks the caller's
// reconciliation: the wallet's ledger balance equals its on-chain balance, want base units.
func assertZeroDrift(t *testing.T, c *harness.Client, walletID, want string) {
	t.Helper()
	head, err := env().Chain.LatestBlock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if err := env().Service.Mirror.RequestChainIndex(context.Background(), core.EnvTest); err != nil {
			t.Fatal(err)
		}
		r := c.Get("/v1/ledger/reconciliation").Expect(t, 200).JSON(t)
		through, _ := r["indexer"].(map[string]any)["indexedThroughBlock"].(float64)
		if uint64(through) >= head {
			for _, raw := range r["wallets"].([]any) {
				w := raw.(map[string]any)
				if w["walletId"] != walletID {
					continue
				}
				if w["ledgerBalanceBaseUnits"] != want || w["onchainBalanceBaseUnits"] != want || w["driftBaseUnits"] != "0" {
					t.Fatalf("reconciliation of %s: %v, want %s with zero drift", walletID, w, want)
				}
				return
			}
			t.Fatalf("wallet %s not in the reconciliation: %v", walletID, r)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the indexer did not reach block %d: %v", head, r["indexer"])
		}
		time.Sleep(100 * time.Millisecond)
	}
}
