package mirror

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/mirror"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/test/harness"
)

// TestMirror_LedgerFollowsChain: mints, a payment between two wallets of one tenant, one to
// another tenant's (undeployed) wallet and one to an outside address are posted by the indexer;
// ledger and chain agree per wallet, each tenant sees only its wallets, the trial balance stays
// balanced, and indexing the same blocks again posts nothing.
func TestMirror_LedgerFollowsChain(t *testing.T) {
	alice, bob := env().NewTenant(t), env().NewTenant(t)
	a, b := newWallet(t, alice.ID, true), newWallet(t, alice.ID, true)
	c := newWallet(t, bob.ID, false) // receives before it is deployed, at its predicted address
	outside := common.HexToAddress("0x00000000000000000000000000000000DeaDBeef")

	mint(t, a.Address, usdc(100))
	mint(t, b.Address, usdc(50))
	mint(t, c.Address, usdc(10))
	pay(t, a, b.Address, usdc(30))
	crossTenant := pay(t, a, c.Address, usdc(20))
	pay(t, b, outside, usdc(15))
	head := latestBlock(t)

	got := awaitIndexed(t, alice.Root, head)
	want := map[string]string{a.ID: "50000000", b.ID: "65000000"}
	if got.Environment != "TEST" || got.ChainID != 84532 || got.Asset != "USDC" || got.Total != 2 || len(got.Wallets) != 2 || got.Truncated {
		t.Fatalf("alice's reconciliation: %+v", got)
	}
	for _, w := range got.Wallets {
		if w.LedgerBalanceBaseUnits != want[w.WalletID] || w.OnchainBalanceBaseUnits == nil || *w.OnchainBalanceBaseUnits != want[w.WalletID] ||
			w.DriftBaseUnits == nil || *w.DriftBaseUnits != "0" || w.Drift == nil || *w.Drift != "0" {
			t.Errorf("wallet %s: %+v, want ledger = on-chain = %s", w.WalletID, w.amounts, want[w.WalletID])
		}
	}
	if got.Totals.LedgerBalance != "115" || got.Totals.OnchainBalance == nil || *got.Totals.OnchainBalance != "115" || *got.Totals.Drift != "0" {
		t.Errorf("alice's totals: %+v", got.Totals)
	}
	bobs := reconcile(t, bob.Root)
	if len(bobs.Wallets) != 1 || bobs.Wallets[0].WalletID != c.ID || bobs.Wallets[0].LedgerBalance != "30" || *bobs.Wallets[0].Drift != "0" {
		t.Fatalf("bob's reconciliation: %+v", bobs)
	}

	// The cross-tenant payment is one transfer between two wallet accounts, seen by both.
	ref := strings.TrimSuffix(mirror.ChainLogReference(84532, crossTenant, 0), "0") // the log index follows
	entries := alice.Root.Get("/v1/ledger/entries?take=100").Expect(t, 200).JSON(t)
	if !strings.Contains(fmt.Sprint(entries), ref) {
		t.Errorf("alice's journal lacks %s", ref)
	}
	if n := len(entries["entries"].([]any)); n != 5 {
		t.Errorf("alice's journal has %d entries, want 5 (two mints, three payments)", n)
	}

	// Both tenants' books balance.
	for _, root := range []*harness.Client{alice.Root, bob.Root} {
		var tb struct {
			Assets []struct {
				Asset    string `json:"asset"`
				Balanced bool   `json:"balanced"`
			} `json:"assets"`
		}
		root.Get("/v1/ledger/trial-balance").Expect(t, 200).Decode(t, &tb)
		if len(tb.Assets) != 1 || tb.Assets[0].Asset != "USDC" || !tb.Assets[0].Balanced {
			t.Errorf("trial balance %+v", tb)
		}
	}

	// Indexing every block again finds the same logs and posts nothing. The service's periodic
	// indexer runs beside the test and may take a range first (the result counts it Raced, its
	// logs then replayed by that run): the test's run is repeated until it walked the blocks
	// alone. No run, the test's or the periodic one, may post anything.
	var res mirror.ChainIndexResult
	for attempt := 1; ; attempt++ {
		resetCursor(t)
		var err error
		if res, err = env().Service.Mirror.IndexChain(context.Background(), core.EnvTest); err != nil {
			t.Fatal(err)
		}
		if res.Posted != 0 || !res.CaughtUp || (res.Raced == 0 && res.Replayed < 6) {
			t.Fatalf("re-index: %+v, want 0 posted and, unless raced, at least 6 replayed", res)
		}
		if res.Raced == 0 || attempt == 20 {
			break
		}
	}
	if res.Raced != 0 {
		t.Fatalf("every re-index raced the periodic indexer: %+v", res)
	}
	if again := reconcile(t, alice.Root); again.Totals.LedgerBalance != "115" {
		t.Fatalf("after re-indexing: %+v", again.Totals)
	}
}

// TestMirror_Reconciliation_ScopeAndEnvironment: the report is a finance read (treasury:read),
// and LIVE, which has no chain in this deployment, answers CHAIN_UNAVAILABLE.
func TestMirror_Reconciliation_ScopeAndEnvironment(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	payments := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "p", "scopes": []string{"payments:read"}}))
	payments.Get("/v1/ledger/reconciliation").ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	treasury := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "t", "scopes": []string{"treasury:read"}}))
	empty := reconcile(t, treasury)
	if len(empty.Wallets) != 0 || empty.Total != 0 || empty.Totals.LedgerBalance != "0" || *empty.Totals.Drift != "0" {
		t.Fatalf("a tenant without wallets: %+v", empty)
	}
	live := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "l", "environment": "LIVE", "scopes": []string{"treasury:read"}}))
	live.Get("/v1/ledger/reconciliation").ExpectError(t, 503, "CHAIN_UNAVAILABLE")
}

// TestMirror_WalletAfterCatchUp: a wallet created after the indexer reached the head, then
// funded, is mirrored from its first log.
func TestMirror_WalletAfterCatchUp(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	if _, err := env().Service.Mirror.IndexChain(context.Background(), core.EnvTest); err != nil {
		t.Fatal(err)
	}
	w := newWallet(t, ten.ID, false)
	mint(t, w.Address, usdc(7))
	got := awaitIndexed(t, ten.Root, latestBlock(t))
	if len(got.Wallets) != 1 || got.Wallets[0].LedgerBalance != "7" || *got.Wallets[0].Drift != "0" {
		t.Fatalf("reconciliation: %+v", got)
	}
}
