package crash

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/jackc/pgx/v5"

	"corridor/adapters/chain"
	"corridor/adapters/devchain"
	"corridor/adapters/identity"
	"corridor/core/safe"
	"corridor/test/harness"
	"corridor/test/testdb"
)

// chainNode is a simulated chain served over HTTP by the test process: it outlives the killed
// service, as a real node would, and seals a block whenever a transaction waits.
type chainNode struct {
	*chain.Adapter
	env []string // CHAIN_RPC_URL, RELAYER_PRIVATE_KEY and CHAIN_ADDRESSES_FILE for the binary
}

func startChainNode(t *testing.T) chainNode {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	a, err := chain.NewSimulated(ctx, chain.SimulatedOptions{RelayerKey: key, HTTPAddr: addr})
	if err != nil {
		t.Fatalf("simulated chain over HTTP: %v", err)
	}
	a.AutoMine(ctx, 100*time.Millisecond)
	t.Cleanup(func() { cancel(); _ = a.Close() })
	raw, err := json.Marshal(devchain.Recorded{ChainID: chain.SandboxChainID, Deployer: a.RelayerAddress(), Addresses: a.Addresses(), DeployedAt: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), devchain.AddressesFile)
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return chainNode{Adapter: a, env: []string{"CHAIN_RPC_URL=http://" + addr, "RELAYER_PRIVATE_KEY=" + hex.EncodeToString(crypto.FromECDSA(key)),
		"CHAIN_ADDRESSES_FILE=" + file}}
}

// chainCrash is one chain crash test's world: its database, the binary, the node and a client
// environment pointing at the running service.
type chainCrash struct {
	url  string
	bin  string
	node chainNode
	env  *harness.Env
	conn *pgx.Conn
}

func newChainCrash(t *testing.T, point string) (*chainCrash, *service) {
	t.Helper()
	ctx := context.Background()
	c := &chainCrash{url: testdb.NewDatabase(ctx, t), bin: buildCrashBinary(t), node: startChainNode(t)}
	first := startService(t, c.bin, c.url, point, c.node.env...)
	idp, err := identity.NewSandbox(harness.SessionSecret)
	if err != nil {
		t.Fatal(err)
	}
	c.env = &harness.Env{BaseURL: first.base, DatabaseURL: c.url, Issuer: idp}
	if c.conn, err = pgx.Connect(ctx, c.url); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.conn.Close(context.Background()) })
	return c, first
}

// restart starts the binary again without a crash point and points the clients at it.
func (c *chainCrash) restart(t *testing.T) {
	t.Helper()
	c.env.BaseURL = startService(t, c.bin, c.url, "", c.node.env...).base
}

// check runs `corridor check` with the node, so the ledger is compared with the chain too.
func (c *chainCrash) check(t *testing.T) {
	t.Helper()
	if out, code := runCheck(t, c.bin, c.url, c.node.env...); code != 0 || !strings.Contains(out, "check OK") {
		t.Fatalf("corridor check after the crash: exit %d\n%s", code, out)
	}
}

// sends counts the relayer's transactions (nonces, fee bumps aside) to a contract.
func (c *chainCrash) sends(t *testing.T, to common.Address) int {
	t.Helper()
	return count(t, c.conn, `SELECT count(DISTINCT nonce) FROM relayer_transactions WHERE lower(to_address) = lower($1)`, to.Hex())
}

func owners(t *testing.T, n int) []map[string]any {
	t.Helper()
	out := make([]map[string]any, n)
	for i := range out {
		k, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		out[i] = map[string]any{"address": crypto.PubkeyToAddress(k.PublicKey).Hex(), "role": "FINANCE_OWNER"}
	}
	return out
}

// TestCrash_WalletDeploymentSentBeforeItsRecord: the service is killed right after it sent a
// wallet's Safe deployment and before it recorded it. Started again, the deployment job finds
// the Safe at its predicted address and records it without sending again: one deployment, the
// client's retried create replays the same wallet, and `corridor check` passes.
func TestCrash_WalletDeploymentSentBeforeItsRecord(t *testing.T) {
	t.Parallel()
	c, first := newChainCrash(t, "wallet.deployment.sent")
	ten := c.env.NewTenant(t)
	create := ten.Root.With("Idempotency-Key", "crash-wallet-"+ten.ID)
	body := map[string]any{"name": "crash", "owners": owners(t, 3), "threshold": 2}
	created := create.Post("/v1/wallets", body).Expect(t, 201).JSON(t)
	id, address := created["id"].(string), common.HexToAddress(created["address"].(string))

	first.waitKilled(t)
	factory := c.node.Addresses().SafeProxyFactory
	if n := c.sends(t, factory); n != 1 {
		t.Fatalf("%d deployments sent at the crash, want 1", n)
	}
	if status := text(t, c.conn, `SELECT status FROM wallets WHERE id = $1`, id); status == "DEPLOYED" {
		t.Fatal("the deployment was recorded before the crash point")
	}

	c.restart(t)
	again := create.Post("/v1/wallets", body).Expect(t, 201)
	if again.Header.Get("Idempotent-Replayed") != "true" || again.JSON(t)["id"] != id {
		t.Fatalf("the client's retry after the crash: %s", again.Body)
	}
	got := afterRestart(t, "the wallet is deployed after the restart", func() map[string]any {
		return ten.Root.Get("/v1/wallets/" + id).Expect(t, 200).JSON(t)
	}, func(m map[string]any) bool { return m["status"] == "DEPLOYED" || m["status"] == "FAILED" })
	if got["status"] != "DEPLOYED" || common.HexToAddress(got["address"].(string)) != address {
		t.Fatalf("after the restart: %v", got)
	}
	if n := c.sends(t, factory); n != 1 {
		t.Fatalf("%d deployments sent in all, want 1: the retry deployed again", n)
	}
	c.check(t)
}

// deployedWallet creates a 1-of-1 wallet of ten owned by key, waits until it is DEPLOYED and
// drips amount USDC into it.
func deployedWallet(t *testing.T, ten *harness.Tenant, key *ecdsa.PrivateKey, amount string) (string, common.Address) {
	t.Helper()
	body := map[string]any{"name": "crash", "threshold": 1,
		"owners": []map[string]any{{"address": crypto.PubkeyToAddress(key.PublicKey).Hex(), "role": "FINANCE_OWNER"}}}
	id := ten.Root.Post("/v1/wallets", body).Expect(t, 201).JSON(t)["id"].(string)
	w := harness.Poll(t, "the wallet deploys", func() map[string]any { return ten.Root.Get("/v1/wallets/" + id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "DEPLOYED" || m["status"] == "FAILED" })
	if w["status"] != "DEPLOYED" {
		t.Fatalf("wallet: %v", w)
	}
	drip := ten.Root.Post("/v1/wallets/"+id+"/fund", map[string]any{"asset": "usdc", "amount": amount}).Expect(t, 201).JSON(t)["id"].(string)
	if d := harness.Poll(t, "the drip lands", func() map[string]any { return ten.Root.Get("/v1/faucet/drips/" + drip).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] != "SUBMITTED" }); d["status"] != "CONFIRMED" {
		t.Fatalf("drip: %v", d)
	}
	return id, common.HexToAddress(w["address"].(string))
}

// TestCrash_SafeExecutionSentBeforeItsRecord: the service is killed right after it sent a Safe
// payment's execTransaction and before it recorded it. Started again, the payment completes
// without a second execution (the Safe's nonce refuses one): the destination is paid once, the
// Safe's nonce is 1, and `corridor check` passes.
func TestCrash_SafeExecutionSentBeforeItsRecord(t *testing.T) {
	t.Parallel()
	c, first := newChainCrash(t, "safepay.execution.sent")
	ten := c.env.NewTenant(t)
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	walletID, safeAddress := deployedWallet(t, ten, key, "20")
	to := common.HexToAddress("0x00000000000000000000000000000000000c4a54")
	pay := ten.Root.With("Idempotency-Key", "crash-pay-"+ten.ID).Post("/v1/payments", map[string]any{"sourceWalletId": walletID,
		"destination": map[string]any{"type": "address", "address": to.Hex(), "chainId": chain.SandboxChainID},
		"amount":      map[string]any{"value": "5", "asset": "usdc"}}).Expect(t, 201).JSON(t)
	id := pay["id"].(string)
	sig, err := safe.Sign(common.HexToHash(pay["safeTxHash"].(string)), key)
	if err != nil {
		t.Fatal(err)
	}
	// The threshold signature starts the execution, which may kill the process before the
	// signature's answer is read.
	go ten.Root.PostIgnoringAnswer("/v1/payments/"+id+"/sign", `{"signature":"`+sig.Hex()+`"}`)

	first.waitKilled(t)
	if n := c.sends(t, safeAddress); n != 1 {
		t.Fatalf("%d executions sent at the crash, want 1", n)
	}
	if status := text(t, c.conn, `SELECT status FROM safe_payments WHERE id = $1`, id); status == "COMPLETED" {
		t.Fatal("the execution was recorded before the crash point")
	}

	c.restart(t)
	done := afterRestart(t, "the payment completes after the restart", func() map[string]any {
		return ten.Root.Get("/v1/payments/" + id).Expect(t, 200).JSON(t)
	}, func(m map[string]any) bool { return m["status"] == "COMPLETED" || m["status"] == "FAILED" })
	if done["status"] != "COMPLETED" {
		t.Fatalf("after the restart: %v", done)
	}
	ctx := context.Background()
	if b, err := c.node.USDCBalance(ctx, to); err != nil || b.Int64() != 5*usd {
		t.Fatalf("the destination holds %v (%v), want 5 USDC once", b, err)
	}
	if n, err := c.node.SafeNonce(ctx, safeAddress); err != nil || n != 1 {
		t.Fatalf("Safe nonce %d (%v), want 1", n, err)
	}
	if n := c.sends(t, safeAddress); n != 1 {
		t.Fatalf("%d executions sent in all, want 1", n)
	}
	c.check(t)
}

// afterRestart polls get until ok holds, for up to 3 minutes: a killed process's job is retried
// only once River's leader lease has passed to the new process, its rescuer has run and its
// scheduler made the job available (see waitDelivered).
func afterRestart(t *testing.T, what string, get func() map[string]any, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		v := get()
		if ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: never; last %v", what, v)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
