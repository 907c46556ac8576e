package mirror

import (
	"context"
	"math/big"
	"strings"
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

// newCardWallet is newWallet for a deployed Safe that enabled the card spend module in its
// setup, as the wallets capability creates TEST wallets.
func newCardWallet(t *testing.T, tenantID string) testWallet {
	t.Helper()
	ctx := context.Background()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	owner := crypto.PubkeyToAddress(key.PublicKey)
	module := env().Chain.CardModuleAddress()
	id := core.NewID(core.PrefixWallet)
	cfg := ports.SafeConfig{Owners: []common.Address{owner}, Threshold: 1, SaltNonce: safe.SaltNonceFor(id), SetupModule: module}
	address, err := env().Chain.PredictSafeAddress(cfg)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	w := wallet.Wallet{
		ID: id, TenantID: tenantID, Environment: core.EnvTest, Name: "card wallet", Purpose: wallet.PurposeGeneral, ChainID: wallet.SandboxChainID,
		Address: address.Hex(), Owners: []wallet.Owner{{Address: owner.Hex(), Role: wallet.RoleAdminOwner}},
		Threshold: 1, Status: wallet.StatusPendingDeployment, CreatedAt: now, SetupModule: module.Hex(),
	}
	inTx(t, func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().CreateWallet(ctx, w) })
	hash, deployed, err := env().Chain.DeploySafe(ctx, cfg)
	if err != nil || deployed != address {
		t.Fatalf("deploy Safe: %v (address %s, predicted %s)", err, deployed.Hex(), address.Hex())
	}
	mined(t, hash)
	w.Status, w.DeployTxHash, w.DeployAttempts, w.DeployedAt = wallet.StatusDeployed, hash.Hex(), 1, &now
	inTx(t, func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().UpdateWallet(ctx, w) })
	return testWallet{ID: id, Address: address, owner: key}
}

// capture books card spend as the cards capability does: a pending hold from the wallet's
// on-chain mirror to the issuer's clearing account, then posted in whole.
func capture(t *testing.T, tenantID string, w testWallet, amount int64) {
	t.Helper()
	inTx(t, func(ctx context.Context, tx ports.Tx) error {
		now := time.Now().UTC()
		accounts, err := tx.Ledger().OpenAccounts(ctx, now,
			ledger.WalletOnchain(core.EnvTest, ledger.AssetUSDC, tenantID, w.ID),
			ledger.IssuerClearing(core.EnvTest, ledger.AssetUSDC, mirror.DefaultCardIssuer))
		if err != nil {
			return err
		}
		ref := "test-card-auth:" + w.ID
		hold, _, err := tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: ref, Type: ledger.TypePending,
			Environment: core.EnvTest, Asset: ledger.AssetUSDC, Postings: ledger.Move(accounts[0].ID, accounts[1].ID, amount)})
		if err != nil {
			return err
		}
		_, _, err = tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: ref + ":capture", Type: ledger.TypePostPending,
			Environment: core.EnvTest, PendingID: hold.ID, Amount: amount})
		return err
	})
}

// TestMirror_CardSettlementIsBookedFromIssuerClearing: captured card spend (wallet mirror →
// issuer clearing) settled on chain through the card spend module is booked from the issuer's
// clearing account, not from the wallet a second time: clearing is back where it was, the
// wallet's mirror equals its Safe's balance, and the reconciliation shows no drift. An ordinary
// owner-signed payment to the same settlement address is still the wallet's outflow.
func TestMirror_CardSettlementIsBookedFromIssuerClearing(t *testing.T) {
	ten := env().NewTenant(t)
	w := newCardWallet(t, ten.ID)
	settlement := env().Chain.CardSettlementAddress()
	if settlement == (common.Address{}) {
		t.Fatal("the sandbox chain has no card settlement address")
	}
	mint(t, w.Address, usdc(100))
	awaitIndexed(t, ten.Root, latestBlock(t))
	clearingBefore := env().IssuerClearingPosted(t)

	capture(t, ten.ID, w, 30_000_000)
	if got := env().IssuerClearingPosted(t); got != clearingBefore+30_000_000 {
		t.Fatalf("issuer clearing after the capture = %d, want %d", got, clearingBefore+30_000_000)
	}
	ref := crypto.Keccak256Hash([]byte("mirror card settlement " + w.ID))
	hash, err := env().Chain.SettleCardSpend(context.Background(), w.Address, big.NewInt(30_000_000), ref)
	if err != nil {
		t.Fatal(err)
	}
	mined(t, hash)

	got := awaitIndexed(t, ten.Root, latestBlock(t))
	if c := env().IssuerClearingPosted(t); c != clearingBefore {
		t.Errorf("issuer clearing after the settlement = %d, want %d (back where it was)", c, clearingBefore)
	}
	wantWallet(t, got, w.ID, "70000000")

	// An owner-signed payment to the settlement address carries no module event: the wallet's.
	pay(t, w, settlement, usdc(5))
	got = awaitIndexed(t, ten.Root, latestBlock(t))
	if c := env().IssuerClearingPosted(t); c != clearingBefore {
		t.Errorf("issuer clearing after an ordinary payment = %d, want %d", c, clearingBefore)
	}
	wantWallet(t, got, w.ID, "65000000")

	// Indexing every block again posts nothing new and changes no balance.
	resetCursor(t)
	if _, err := env().Service.Mirror.IndexChain(context.Background(), core.EnvTest); err != nil {
		t.Fatal(err)
	}
	if c := env().IssuerClearingPosted(t); c != clearingBefore {
		t.Errorf("issuer clearing after re-indexing = %d, want %d", c, clearingBefore)
	}
	wantWallet(t, reconcile(t, ten.Root), w.ID, "65000000")
}

// wantWallet asserts a wallet's ledger and on-chain balances in a reconciliation, and no drift.
func wantWallet(t *testing.T, r reconciliation, walletID, baseUnits string) {
	t.Helper()
	for _, w := range r.Wallets {
		if w.WalletID != walletID {
			continue
		}
		if w.LedgerBalanceBaseUnits != baseUnits || w.OnchainBalanceBaseUnits == nil || *w.OnchainBalanceBaseUnits != baseUnits ||
			w.DriftBaseUnits == nil || *w.DriftBaseUnits != "0" {
			t.Errorf("wallet %s: %+v, want ledger = on-chain = %s and no drift", walletID, w.amounts, baseUnits)
		}
		return
	}
	t.Errorf("wallet %s missing from the reconciliation %+v", walletID, r)
}

// TestMirror_UncapturedCardSettlementIsRefused: a settlement of spend nobody captured would take
// the issuer's clearing account below zero; the mirror refuses that log, records it for an
// operator and carries on (the wallet's drift shows the unbooked outflow).
func TestMirror_UncapturedCardSettlementIsRefused(t *testing.T) {
	ten := env().NewTenant(t)
	w := newCardWallet(t, ten.ID)
	mint(t, w.Address, usdc(10))
	awaitIndexed(t, ten.Root, latestBlock(t))
	clearingBefore := env().IssuerClearingPosted(t)

	amount := big.NewInt(clearingBefore + 1_000_000) // more than the clearing account holds
	mint(t, w.Address, amount)
	hash, err := env().Chain.SettleCardSpend(context.Background(), w.Address, amount, crypto.Keccak256Hash([]byte("uncaptured "+w.ID)))
	if err != nil {
		t.Fatal(err)
	}
	mined(t, hash)
	got := awaitIndexed(t, ten.Root, latestBlock(t))
	if c := env().IssuerClearingPosted(t); c != clearingBefore {
		t.Errorf("issuer clearing = %d, want %d (nothing booked)", c, clearingBefore)
	}
	var failures []ports.BackgroundFailure
	inTx(t, func(ctx context.Context, tx ports.Tx) error {
		var err error
		failures, err = tx.ChainIndex().ListFailures(ctx, mirror.PassChainIndex, 100)
		return err
	})
	prefix := strings.TrimSuffix(mirror.ChainLogReference(84532, hash, 0), "0") // the log index follows
	found := false
	for _, f := range failures {
		found = found || strings.HasPrefix(f.Item, prefix) && f.Status == ports.FailureDead
	}
	if !found {
		t.Errorf("no DEAD background failure for the settlement's transfer among %+v", failures)
	}
	for _, r := range got.Wallets {
		if r.WalletID == w.ID && (r.LedgerBalanceBaseUnits == *r.OnchainBalanceBaseUnits) {
			t.Errorf("wallet %s shows no drift although its settlement was not booked: %+v", w.ID, r.amounts)
		}
	}
}
