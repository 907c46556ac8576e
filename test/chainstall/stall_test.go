package chainstall

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/test/harness"
)

// deployedWallet creates a wallet through the API and waits until its Safe is deployed.
func deployedWallet(t *testing.T, ten *harness.Tenant) (id, owner string) {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	owner = crypto.PubkeyToAddress(key.PublicKey).Hex()
	created := ten.Root.Post("/v1/wallets", map[string]any{"name": "stall test",
		"owners": []map[string]any{{"address": owner, "role": "FINANCE_OWNER"}}, "threshold": 1}).Expect(t, 201).JSON(t)
	id = created["id"].(string)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if got := ten.Root.Get("/v1/wallets/"+id).Expect(t, 200).JSON(t); got["status"] == "DEPLOYED" {
			return id, owner
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("wallet %s did not deploy", id)
	return "", ""
}

// TestChainStall_UnrelatedRequestsKeepAnswering points the service at a node that never
// answers and sends many more chain-dependent requests than the pool has connections.
func TestChainStall_UnrelatedRequestsKeepAnswering(t *testing.T) {
	env := harness.Shared()
	ten := env.NewTenant(t)
	walletID, owner := deployedWallet(t, ten)
	other := env.NewTenant(t)
	proposal := func(amount string) map[string]any {
		return map[string]any{"sourceWalletId": walletID,
			"destination": map[string]any{"type": "address", "address": owner, "chainId": wallet.SandboxChainID},
			"amount":      map[string]any{"value": amount, "asset": "usdc"}}
	}
	once := ten.Root.With("Idempotency-Key", "before-the-stall")
	pending := once.Post("/v1/payments", proposal("1")).Expect(t, 201).JSON(t)["id"].(string)
	wellFormed := "0x" + strings.Repeat("11", 64) + "1b"

	env.StallChain(true)
	t.Cleanup(func() { env.StallChain(false) })

	// A retry of a request that succeeded before the node went silent still replays.
	if r := once.Post("/v1/payments", proposal("1")).Expect(t, 201); r.Header.Get("Idempotent-Replayed") != "true" || r.JSON(t)["id"] != pending {
		t.Fatalf("the retry was not a replay: %s", r.Body)
	}

	const chainRequests = 4 * poolSize
	type answer struct {
		status int
		code   string
		took   time.Duration
	}
	answers := make(chan answer, chainRequests)
	var wg sync.WaitGroup
	for i := range chainRequests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			var r *harness.Response
			c := ten.Root.With("Idempotency-Key", fmt.Sprintf("stall-%d", i))
			if i%2 == 0 {
				r = c.Post("/v1/payments", proposal("2"))
			} else {
				r = c.Post("/v1/payments/"+pending+"/sign", map[string]any{"signature": wellFormed})
			}
			code, _ := r.JSON(t)["code"].(string)
			answers <- answer{status: r.Status, code: code, took: time.Since(start)}
		}()
	}

	// While every chain-dependent request waits on the node, unrelated requests answer at
	// once: authenticated reads, ledger reads, and another tenant's work.
	time.Sleep(300 * time.Millisecond)
	for round := range 5 {
		for _, read := range []struct {
			c    *harness.Client
			path string
		}{{ten.Root, "/v1/wallets"}, {ten.Root, "/v1/balances"}, {ten.Root, "/v1/ledger/accounts"},
			{other.Root, "/v1/ledger/entries"}, {other.Root, "/v1/api-keys"}} {
			start := time.Now()
			read.c.Get(read.path).Expect(t, 200)
			if took := time.Since(start); took > rpcTimeout/2 {
				t.Errorf("round %d: GET %s took %v while the node hangs", round, read.path, took)
			}
		}
	}
	wg.Wait()
	close(answers)
	for a := range answers {
		if a.status != 503 || a.code != "CHAIN_UNAVAILABLE" {
			t.Errorf("a chain-dependent request answered %d %s, want 503 CHAIN_UNAVAILABLE", a.status, a.code)
		}
		if a.took > rpcTimeout+3*time.Second {
			t.Errorf("a chain-dependent request took %v, deadline %v", a.took, rpcTimeout)
		}
	}
}
