package reorg

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/test/harness"
)

// TestReorg_DroppedClaimFundingStepsBack: a claim's escrow funding is indexed only once it has
// the configured confirmations; when a fork drops the funding's block, the claim is unfunded
// again, the funding transfer is reversed and the sender's reservation is held again; when the
// funding is mined again on the new chain, the claim is funded again.
func TestReorg_DroppedClaimFundingStepsBack(t *testing.T) {
	ctx := context.Background()
	chain := env().Chain
	sender := env().NewTenant(t)
	sender.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "100"}).Expect(t, 201)
	created := sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": harness.Phone("628"), "amountUsd": "25"}).Expect(t, 201).JSON(t)
	if created["status"] != "PENDING_CLAIM" || created["claimId"] == nil {
		t.Fatalf("unknown phone: %v", created)
	}
	claimID := created["claimId"].(string)
	claimPath := "/v1/offramp/claims/" + claimID

	// The funding transaction is mined in a block of its own; it is not indexed before it has
	// its confirmations.
	sent := harness.Poll(t, "claim "+claimID+" funding sent", func() map[string]any { return fundingSent(t, claimID) },
		func(m map[string]any) bool { return m["txHash"] != "" })
	fundTx := common.HexToHash(sent["txHash"].(string))
	receipt := harness.Poll(t, "funding mined", func() map[string]any {
		r, err := chain.Receipt(ctx, fundTx)
		if err != nil {
			t.Fatal(err)
		}
		return map[string]any{"status": string(r.Status), "block": r.BlockNumber}
	}, func(m map[string]any) bool { return m["status"] == "SUCCEEDED" })
	fundBlock := receipt["block"].(uint64)
	indexEscrow(t)
	if c := sender.Root.Get(claimPath).Expect(t, 200).JSON(t); c["funded"] != false {
		t.Fatalf("claim funded before %d confirmations: %v", confirmations, c)
	}
	harness.ExpectServiceBalance(t, sender.Root, 75_000_000, 25_000_000)
	mine(t, confirmations)
	indexEscrow(t)
	if c := sender.Root.Get(claimPath).Expect(t, 200).JSON(t); c["funded"] != true || c["fundTxHash"] == nil {
		t.Fatalf("claim after %d confirmations: %v", confirmations, c)
	}
	harness.ExpectServiceBalance(t, sender.Root, 75_000_000, 0)

	// A fork from the block before the funding drops it.
	parent, found, err := chain.BlockHash(ctx, fundBlock-1)
	if err != nil || !found {
		t.Fatalf("parent of the funding block: %v %v", found, err)
	}
	if err := chain.ForkSimulated(parent); err != nil {
		t.Fatal(err)
	}
	indexEscrow(t)
	c := sender.Root.Get(claimPath).Expect(t, 200).JSON(t)
	if c["funded"] != false || c["fundTxHash"] != nil || c["status"] != "OPEN" || c["paymentStatus"] != "PENDING_CLAIM" {
		t.Fatalf("claim after its funding was dropped: %v", c)
	}
	harness.ExpectServiceBalance(t, sender.Root, 75_000_000, 25_000_000)
	if n := countRows(t, `SELECT count(*) FROM ledger_transfers WHERE reference LIKE 'offramp:' || $1 || ':claim-reorg:%' AND type = 'REVERSAL'`,
		created["paymentId"].(string)); n != 1 {
		t.Fatalf("%d reversals of the funding, want 1", n)
	}

	// The new chain grows; the funding is mined again and, confirmed, funds the claim again.
	mine(t, confirmations+3)
	harness.Poll(t, "claim funded again", func() map[string]any {
		indexEscrow(t)
		return sender.Root.Get(claimPath).Expect(t, 200).JSON(t)
	}, func(c map[string]any) bool { return c["funded"] == true })
	harness.ExpectServiceBalance(t, sender.Root, 75_000_000, 0)
}

func mine(t *testing.T, blocks int) {
	t.Helper()
	for range blocks {
		if _, err := env().Chain.MineSimulated(); err != nil {
			t.Fatal(err)
		}
	}
}

func indexEscrow(t *testing.T) {
	t.Helper()
	if err := env().Service.Claims.IndexClaimEscrow(context.Background(), core.EnvTest); err != nil {
		t.Fatal(err)
	}
}

// fundingSent reads the claim's funding transaction, once the fund job has sent it.
func fundingSent(t *testing.T, claimID string) map[string]any {
	t.Helper()
	var hash string
	query(t, func(conn *pgx.Conn) error {
		return conn.QueryRow(context.Background(), `SELECT coalesce(fund_tx_hash, '') FROM offramp_claims WHERE id = $1`, claimID).Scan(&hash)
	})
	return map[string]any{"txHash": hash}
}

func countRows(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	query(t, func(conn *pgx.Conn) error { return conn.QueryRow(context.Background(), sql, args...).Scan(&n) })
	return n
}

func query(t *testing.T, fn func(conn *pgx.Conn) error) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := fn(conn); err != nil {
		t.Fatal(err)
	}
}
