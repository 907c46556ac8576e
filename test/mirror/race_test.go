package mirror

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/mirror"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// hookedChain runs a hook once, before the first LatestBlock and the first USDCTransferLogs
// call, and records the parties of every log query: it puts the indexer's steps in an order
// that a live service would only hit by bad luck.
type hookedChain struct {
	ports.Chain
	mu           sync.Mutex
	beforeLatest func()
	beforeLogs   func()
	queriedFor   []common.Address
}

func (h *hookedChain) LatestBlock(ctx context.Context) (uint64, error) {
	h.mu.Lock()
	hook := h.beforeLatest
	h.beforeLatest = nil
	h.mu.Unlock()
	if hook != nil {
		hook()
	}
	return h.Chain.LatestBlock(ctx)
}

func (h *hookedChain) USDCTransferLogs(ctx context.Context, from, to uint64, parties []common.Address) ([]ports.TransferLog, error) {
	h.mu.Lock()
	hook := h.beforeLogs
	h.beforeLogs = nil
	h.queriedFor = append(h.queriedFor, parties...)
	h.mu.Unlock()
	if hook != nil {
		hook()
	}
	return h.Chain.USDCTransferLogs(ctx, from, to, parties)
}

// TestMirror_WalletCommittedMidRange: a wallet whose row commits after the indexer listed the
// wallets, with a log inside the range being indexed, is caught by the re-read in the
// committing transaction and its log fetched before the cursor moves past it. The test runs
// its own wallets service in LIVE (the shared service has no LIVE chain, so no periodic run interferes)
// over the simulated chain, whose hooks force that order: the mint lands before the indexer
// reads the head, and the row commits after the indexer listed the wallets.
func TestMirror_WalletCommittedMidRange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ten := env().NewTenant(t)
	hooked := &hookedChain{Chain: env().Chain}
	indexer, err := mirror.New(mirror.Deps{Store: env().Service.Store, Jobs: env().Service.Jobs,
		Chains: map[core.Environment]ports.Chain{core.EnvLive: hooked}})
	if err != nil {
		t.Fatal(err)
	}
	// An existing LIVE wallet, so the indexer walks a bounded range and queries logs.
	existing := liveWallet(t, ten.ID)
	storeWallet(t, existing)

	late := liveWallet(t, ten.ID)
	hooked.beforeLatest = func() { mint(t, common.HexToAddress(late.Address), usdc(3)) }
	hooked.beforeLogs = func() { storeWallet(t, late) }
	res, err := indexer.IndexChain(ctx, core.EnvLive)
	if err != nil {
		t.Fatal(err)
	}
	if !res.CaughtUp || res.Posted != 1 {
		t.Fatalf("index: %+v, want the late wallet's mint posted", res)
	}
	var seenLate bool
	for _, p := range hooked.queriedFor {
		seenLate = seenLate || p == common.HexToAddress(late.Address)
	}
	if !seenLate {
		t.Fatalf("the late wallet's logs were never fetched; queries for %v", hooked.queriedFor)
	}
	if got := ledgerBalance(t, core.EnvLive, late.ID); got != 3_000_000 {
		t.Fatalf("late wallet's ledger balance %d, want 3000000", got)
	}
}

// liveWallet is a LIVE wallet row on the simulated chain (as a LIVE deployment on chain 84532
// would hold one), not stored yet.
func liveWallet(t *testing.T, tenantID string) wallet.Wallet {
	t.Helper()
	owner := common.HexToAddress("0x00000000000000000000000000000000000000a1")
	id := core.NewID(core.PrefixWallet)
	address, err := env().Chain.PredictSafeAddress(ports.SafeConfig{Owners: []common.Address{owner}, Threshold: 1, SaltNonce: safe.SaltNonceFor(id)})
	if err != nil {
		t.Fatal(err)
	}
	return wallet.Wallet{
		ID: id, TenantID: tenantID, Environment: core.EnvLive, Name: "late", Purpose: wallet.PurposeGeneral, ChainID: wallet.SandboxChainID,
		Address: address.Hex(), Owners: []wallet.Owner{{Address: owner.Hex(), Role: wallet.RoleAdminOwner}},
		Threshold: 1, Status: wallet.StatusPendingDeployment, CreatedAt: time.Now().UTC(),
	}
}

func storeWallet(t *testing.T, w wallet.Wallet) {
	t.Helper()
	inTx(t, func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().CreateWallet(ctx, w) })
}

func ledgerBalance(t *testing.T, environment core.Environment, walletID string) int64 {
	t.Helper()
	var posted int64
	tenantID := env().WalletTenant(t, walletID)
	inTx(t, func(ctx context.Context, tx ports.Tx) error {
		account, err := tx.Ledger().FindAccountByReference(ctx, environment, ledger.AssetUSDC, tenantID, ledger.WalletOnchainRef(walletID))
		if err != nil {
			return err
		}
		balances, err := tx.Ledger().Balances(ctx, []string{account.ID})
		posted = balances[account.ID].Posted
		return err
	})
	return posted
}
