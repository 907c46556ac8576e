package cards

import (
	"context"
	"math/big"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestCards_SpendableOnceTheWalletShowsIt: USDC that reaches the Safe is spendable by the card as
// soon as GET /v1/wallets/{id} shows it, without waiting for the mirror's periodic indexer: the
// authorization brings the mirror up to the chain first. More than the chain holds still
// declines INSUFFICIENT_SAFE_BALANCE.
func TestCards_SpendableOnceTheWalletShowsIt(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 0)
	id := issue(t, ten.Root, w, nil)["cardId"].(string)

	// The USDC arrives on chain outside the service (no faucet drip asks for an index run).
	if _, err := env().Chain.MintUSDC(context.Background(), w.Address, big.NewInt(5_000_000)); err != nil {
		t.Fatal(err)
	}
	harness.Poll(t, "the wallet shows the USDC", func() map[string]any { return ten.Root.Get("/v1/wallets/"+w.ID).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool {
			bs, _ := m["balances"].([]any)
			for _, b := range bs {
				if b := b.(map[string]any); b["asset"] == "usdc" && b["amount"] == "5" {
					return true
				}
			}
			return false
		})
	if a := authorize(t, ten.Root, id, "1", "5411"); a["status"] != "APPROVED" || a["holdTransferId"] == nil {
		t.Fatalf("right after the wallet showed 5 USDC: %v", a)
	}
	if b := mirrorBalance(t, w.ID); b.Posted != 5_000_000 || b.PendingDebits != 1_000_000 {
		t.Fatalf("mirror %+v, want 5 USDC posted and the 1 USDC hold", b)
	}
	if d := authorize(t, ten.Root, id, "4.5", "5411"); declineReason(d) != "INSUFFICIENT_SAFE_BALANCE" {
		t.Fatalf("beyond what the Safe holds: %v", d)
	}
}
