package chainstall

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/test/harness"
)

// TestChainStall_PendingWalletAndDripOutlastAnOutage: a wallet created and a faucet drip asked
// for while the node does not answer are accepted (201, pending) and wait for it. Their jobs
// spend no attempt on the outage: they used to be retried at 2, 4, 8, … seconds and give up
// after 8 attempts, which recorded the wallet and the drip FAILED for good 3 to 4.5 minutes into
// an outage (measured on make run), before CorridorChainDown pages. Once the node answers, the
// wallet is DEPLOYED and the drip CONFIRMED.
func TestChainStall_PendingWalletAndDripOutlastAnOutage(t *testing.T) {
	env := harness.Shared()
	ten := env.NewTenant(t)
	funded, _ := deployedWallet(t, ten)
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}

	env.StallChain(true)
	t.Cleanup(func() { env.StallChain(false) })
	created := ten.Root.Post("/v1/wallets", map[string]any{"name": "made during the outage",
		"owners": []map[string]any{{"address": crypto.PubkeyToAddress(key.PublicKey).Hex(), "role": "FINANCE_OWNER"}}, "threshold": 1}).
		Expect(t, 201).JSON(t)
	walletID := created["id"].(string)
	dripID := ten.Root.Post("/v1/wallets/"+funded+"/fund", map[string]any{"asset": "usdc", "amount": "3"}).
		Expect(t, 201).JSON(t)["id"].(string)
	// With the node's 2 s deadline the old schedule had spent three attempts of each job by now.
	time.Sleep(14 * time.Second)
	for kind, attempts := range stepJobAttempts(t, env.DatabaseURL, walletID, dripID) {
		if attempts > 1 {
			t.Errorf("%s: %d attempts spent while the node did not answer, want none counted", kind, attempts)
		}
	}
	if got := ten.Root.Get("/v1/wallets/"+walletID).Expect(t, 200).JSON(t); got["status"] != "PENDING_DEPLOYMENT" {
		t.Fatalf("wallet during the outage: %v", got)
	}

	env.StallChain(false)
	deadline := time.Now().Add(60 * time.Second)
	var wallet, drip map[string]any
	for time.Now().Before(deadline) {
		wallet = ten.Root.Get("/v1/wallets/"+walletID).Expect(t, 200).JSON(t)
		drip = ten.Root.Get("/v1/faucet/drips/"+dripID).Expect(t, 200).JSON(t)
		if wallet["status"] == "DEPLOYED" && drip["status"] == "CONFIRMED" {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("after the outage: wallet %v %v, drip %v %v", wallet["status"], wallet["failureReason"], drip["status"], drip["failureReason"])
}

// stepJobAttempts reads the attempt counts of the wallet's deployment job and the drip's job.
func stepJobAttempts(t *testing.T, databaseURL, walletID, dripID string) map[string]int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT kind, max(attempt) FROM river_job
		WHERE (kind = 'wallet.deploy' AND args->>'walletId' = $1) OR (kind = 'faucet.drip' AND args->>'dripId' = $2)
		GROUP BY kind`, walletID, dripID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for rows.Next() {
		var kind string
		var attempts int
		if err := rows.Scan(&kind, &attempts); err != nil {
			t.Fatal(err)
		}
		out[kind] = attempts
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 {
		t.Fatalf("jobs of the wallet and the drip: %v", out)
	}
	return out
}
