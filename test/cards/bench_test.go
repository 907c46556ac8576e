package cards

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/cards"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// benchCards makes n Safe cards of one tenant, each on its own wallet whose on-chain mirror
// account holds 1,000,000 USDC, through the store (authorizations never touch the chain).
func benchCards(b *testing.B, n int) (auth.Principal, []string) {
	b.Helper()
	ten := env().NewTenant(b)
	p := auth.Principal{Kind: auth.KindAPIKey, TenantID: ten.ID, Environment: core.EnvTest, Scopes: []auth.Scope{auth.ScopeRoot}}
	ids := make([]string, n)
	now := time.Now().UTC().Truncate(time.Microsecond)
	err := env().Service.Store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		world, err := tx.Ledger().OpenAccounts(ctx, now, ledger.World(core.EnvTest, ledger.AssetUSDC, "bench"))
		if err != nil {
			return err
		}
		for i := range ids {
			w := wallet.Wallet{ID: core.NewID(core.PrefixWallet), TenantID: ten.ID, Environment: core.EnvTest, Name: "bench",
				ChainID: wallet.SandboxChainID, Address: "0x" + padHex(i),
				Owners:    []wallet.Owner{{Address: "0x00000000000000000000000000000000000000b1", Role: wallet.RoleAdminOwner}},
				Threshold: 1, Status: wallet.StatusDeployed, Purpose: wallet.PurposeGeneral, CreatedAt: now, DeployedAt: &now}
			if err := tx.Wallets().CreateWallet(ctx, w); err != nil {
				return err
			}
			mirror, err := tx.Ledger().OpenAccounts(ctx, now, ledger.WalletOnchain(core.EnvTest, ledger.AssetUSDC, ten.ID, w.ID))
			if err != nil {
				return err
			}
			if _, _, err := tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: "bench:fund:" + w.ID, Type: ledger.TypePosted,
				Environment: core.EnvTest, Asset: ledger.AssetUSDC, Postings: ledger.Move(world[0].ID, mirror[0].ID, 1_000_000_000_000)}.MustValidate()); err != nil {
				return err
			}
			c := card.Card{ID: core.NewID(core.PrefixCard), TenantID: ten.ID, Environment: core.EnvTest, Funding: card.FundingSafe,
				WalletID: w.ID, SafeAddress: w.Address, Issuer: "sandbox", IssuerCardID: "ic_bench_" + w.ID, Last4: "4242",
				Status: card.StatusActive, Limits: card.Limits{BlockedMCC: []string{}}, CreatedAt: now, UpdatedAt: now}
			if err := tx.Cards().CreateCard(ctx, c); err != nil {
				return err
			}
			ids[i] = c.ID
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return p, ids
}

func padHex(i int) string {
	const digits = "0123456789abcdef"
	out := []byte("b000000000000000000000000000000000000000")
	for j := len(out) - 1; i > 0; j-- {
		out[j] = digits[i%16]
		i /= 16
	}
	return string(out)
}

// benchAuthorize runs b.N approvals at concurrency 32 over cards, each on a random card of the
// list, and reports authorizations per second and the p50 and p99 latency of one decision.
func benchAuthorize(b *testing.B, cardIDs []string, p auth.Principal) {
	svc := env().Service.Cards
	in := cards.AuthorizeInput{AmountUsd: "0.01", MCC: "5411", MerchantName: "bench"}
	var mu sync.Mutex
	latencies := make([]time.Duration, 0, b.N)
	b.SetParallelism(16) // 32 goroutines on 2 cores
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		local := make([]time.Duration, 0, 256)
		for pb.Next() {
			t0 := time.Now()
			a, err := svc.Authorize(context.Background(), p, cardIDs[rand.IntN(len(cardIDs))], in)
			if err != nil || a.Status != card.AuthApproved {
				b.Errorf("authorize: %+v %v", a, err)
				return
			}
			local = append(local, time.Since(t0))
		}
		mu.Lock()
		latencies = append(latencies, local...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(latencies)
	if len(latencies) == 0 {
		return
	}
	pct := func(q float64) float64 {
		return float64(latencies[min(len(latencies)-1, int(q*float64(len(latencies))))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(len(latencies))/elapsed.Seconds(), "auth/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// BenchmarkCards_Authorize measures the authorization decision through the capability and the
// real store (card row lock, window read, ledger hold, window update, the recorded decision),
// without HTTP: on one hot card, where every decision serialises on the card's row and its
// wallet's mirror account, and spread over 1,000 cards on their own wallets. Measured, not
// asserted (docs/performance.md).
func BenchmarkCards_Authorize(b *testing.B) {
	p, spread := benchCards(b, 1000)
	b.Run("hot", func(b *testing.B) { benchAuthorize(b, spread[:1], p) })
	b.Run("spread1000", func(b *testing.B) { benchAuthorize(b, spread, p) })
}
