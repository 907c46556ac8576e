package reorg

import (
	"context"
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
)

// TestReorg_DroppedCardSettlementIsReversed: a card settlement booked from the issuer's clearing
// account is reversed like any other posting when a fork drops it (the clearing account holds
// the captured spend again), and whatever the new chain mines again is booked again, so the
// clearing account always holds the captured spend the chain has not settled yet.
func TestReorg_DroppedCardSettlementIsReversed(t *testing.T) {
	ctx := context.Background()
	tenant := env().NewTenant(t)
	chain := env().Chain
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	id := core.NewID(core.PrefixWallet)
	cfg := ports.SafeConfig{Owners: []common.Address{crypto.PubkeyToAddress(key.PublicKey)}, Threshold: 1,
		SaltNonce: safe.SaltNonceFor(id), SetupModule: chain.CardModuleAddress()}
	address, err := chain.PredictSafeAddress(cfg)
	if err != nil {
		t.Fatal(err)
	}
	inTx(t, func(ctx context.Context, tx ports.Tx) error {
		return tx.Wallets().CreateWallet(ctx, wallet.Wallet{
			ID: id, TenantID: tenant.ID, Environment: core.EnvTest, Name: "card reorg", Purpose: wallet.PurposeGeneral,
			ChainID: wallet.SandboxChainID, Address: address.Hex(), Owners: []wallet.Owner{{Address: cfg.Owners[0].Hex(), Role: wallet.RoleAdminOwner}},
			Threshold: 1, Status: wallet.StatusPendingDeployment, CreatedAt: time.Now().UTC(), SetupModule: cfg.SetupModule.Hex(),
		})
	})
	walletIDs[address] = id
	hash, err := chain.MintUSDC(ctx, address, big.NewInt(100_000_000))
	if err != nil {
		t.Fatal(err)
	}
	awaitMined(t, hash)
	hash, _, err = chain.DeploySafe(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	awaitMined(t, hash)
	mine(t, confirmations)
	index(t)

	// A capture of 30: wallet mirror → issuer clearing.
	const spent = 30_000_000
	clearing := ledger.IssuerClearing(core.EnvTest, ledger.AssetUSDC, mirror.DefaultCardIssuer)
	inTx(t, func(ctx context.Context, tx ports.Tx) error {
		now := time.Now().UTC()
		accounts, err := tx.Ledger().OpenAccounts(ctx, now, ledger.WalletOnchain(core.EnvTest, ledger.AssetUSDC, tenant.ID, id), clearing)
		if err != nil {
			return err
		}
		_, _, err = tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: "test-card-capture:" + id, Type: ledger.TypePosted,
			Environment: core.EnvTest, Asset: ledger.AssetUSDC, Postings: ledger.Move(accounts[0].ID, accounts[1].ID, spent)})
		return err
	})
	before := env().IssuerClearingPosted(t) - spent // what other tests left there

	head := latest(t)
	parent, found, err := chain.BlockHash(ctx, head)
	if err != nil || !found {
		t.Fatalf("hash of block %d: %v %v", head, found, err)
	}
	hash, err = chain.SettleCardSpend(ctx, address, big.NewInt(spent), crypto.Keccak256Hash([]byte("reorg card "+id)))
	if err != nil {
		t.Fatal(err)
	}
	awaitMined(t, hash)
	mine(t, confirmations)
	index(t)
	if got := env().IssuerClearingPosted(t); got != before {
		t.Fatalf("issuer clearing after the settlement = %d, want %d", got, before)
	}

	// The fork drops the settlement: the clearing account holds the captured spend again.
	if err := chain.ForkSimulated(parent); err != nil {
		t.Fatal(err)
	}
	index(t)
	if got := env().IssuerClearingPosted(t); got != before+spent {
		t.Fatalf("issuer clearing after the fork = %d, want %d", got, before+spent)
	}

	// The new chain grows (the settlement may be mined again): clearing holds what is unsettled.
	mine(t, confirmations+3)
	index(t)
	unsettled := spent - (100_000_000 - onchain(t, address))
	if got := env().IssuerClearingPosted(t); got != before+unsettled {
		t.Fatalf("issuer clearing after the new chain grew = %d, want %d", got, before+unsettled)
	}
	if got, want := ledgerBalance(t, address), int64(100_000_000-spent); got != want {
		t.Fatalf("wallet mirror = %d, want %d (the capture, never the settlement)", got, want)
	}
}
