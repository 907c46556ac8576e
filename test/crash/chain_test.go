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

	"github.com/corridorhq/corridor/adapters/chain"
	"github.com/corridorhq/corridor/adapters/devchain"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/test/testdb"
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

// newChainCrash starts the world and the first run of the binary, armed at point; extra is more
// environment for every run.
func newChainCrash(t *testing.T, point string, extra ...string) (*chainCrash, *service) {
	t.Helper()
	ctx := context.Background()
	c := &chainCrash{url: testdb.NewDatabase(ctx, t), bin: buildCrashBinary(t), node: startChainNode(t)}
	c.node.env = append(c.node.env, extra...)
	first := startService(t, c.bin, c.url, point, c.node.env...)
	c.env = crashEnv(t, first.base, c.url)
	c.conn = dbConn(t, c.url)
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
	chaosOnly(t)
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
		return ten.Root.Get("/v1/wallets/"+id).Expect(t, 200).JSON(t)
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
	w := harness.Poll(t, "the wallet deploys", func() map[string]any { return ten.Root.Get("/v1/wallets/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "DEPLOYED" || m["status"] == "FAILED" })
	if w["status"] != "DEPLOYED" {
		t.Fatalf("wallet: %v", w)
	}
	drip := ten.Root.Post("/v1/wallets/"+id+"/fund", map[string]any{"asset": "usdc", "amount": amount}).Expect(t, 201).JSON(t)["id"].(string)
	if d := harness.Poll(t, "the drip lands", func() map[string]any { return ten.Root.Get("/v1/faucet/drips/"+drip).Expect(t, 200).JSON(t) },
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
		return ten.Root.Get("/v1/payments/"+id).Expect(t, 200).JSON(t)
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

// checkoutEnv makes the checkout watcher quick and a deposit final in its own block.
var checkoutEnv = []string{"CHECKOUT_CONFIRMATIONS=1", "CHECKOUT_POLL_INTERVAL=200ms"}

// paidCheckout creates a checkout of amount USD and pays its deposit address through the
// sandbox, returning its id and deposit address.
func paidCheckout(t *testing.T, c *harness.Client, amount float64) (string, common.Address) {
	t.Helper()
	ck := c.Post("/v1/payments", map[string]any{"amount": amount, "currency": "USD", "cryptocurrency": "USDC",
		"description": "crash order", "customer": map[string]any{"email": "payer@example.com"}}).Expect(t, 201).JSON(t)
	id := ck["id"].(string)
	c.Post("/v1/sandbox/payments/"+id+"/pay", nil).Expect(t, 201)
	return id, common.HexToAddress(ck["deposit_address"].(string))
}

// TestCrash_CheckoutSweepSentBeforeItsRecord: the service is killed right after it sent the sweep
// of a paid checkout's deposit and before it recorded the sweep. Started again, the checkout is
// completed and credited once, the deposit address is empty, and no second sweep is sent.
func TestCrash_CheckoutSweepSentBeforeItsRecord(t *testing.T) {
	chaosOnly(t)
	t.Parallel()
	c, first := newChainCrash(t, "checkout.sweep.sent", checkoutEnv...)
	ten := c.env.NewTenant(t)
	id, deposit := paidCheckout(t, ten.Root, 6)

	first.waitKilled(t)
	factory := c.node.Addresses().CheckoutFactory
	if n := c.sends(t, factory); n != 1 {
		t.Fatalf("%d sweeps sent at the crash, want 1", n)
	}

	c.restart(t)
	ck := afterRestart(t, "the checkout completes after the restart", func() map[string]any {
		return ten.Root.Get("/v1/payments/"+id).Expect(t, 200).JSON(t)
	}, func(m map[string]any) bool { return m["status"] == "completed" })
	if ck["status"] != "completed" {
		t.Fatalf("checkout: %v", ck)
	}
	afterRestart(t, "the deposit address is empty after the restart", func() map[string]any {
		b, err := c.node.USDCBalance(context.Background(), deposit)
		if err != nil {
			t.Fatal(err)
		}
		return map[string]any{"balance": b.String(), "sweeps": c.sends(t, factory)}
	}, func(m map[string]any) bool { return m["balance"] == "0" })
	harness.ExpectServiceBalance(t, ten.Root, 6*usd, 0)
	time.Sleep(time.Second) // a few more watcher passes, which must send nothing
	if n := c.sends(t, factory); n != 1 {
		t.Fatalf("%d sweeps sent in all, want 1", n)
	}
	c.check(t)
}

// TestCrash_CheckoutRefundSentBeforeItsRecord: the service is killed right after it sent a
// checkout refund and before it recorded its hash. Started again, the refund job finds the key
// paid on chain (the factory pays a key once) and adopts that transaction: the customer is paid
// once, the refund is processed, and the client's retried refund replays the same one.
func TestCrash_CheckoutRefundSentBeforeItsRecord(t *testing.T) {
	t.Parallel()
	c, first := newChainCrash(t, "checkout.refund.sent", checkoutEnv...)
	ten := c.env.NewTenant(t)
	factory := c.node.Addresses().CheckoutFactory
	id, deposit := paidCheckout(t, ten.Root, 9)
	harness.Poll(t, "the checkout completes and is swept", func() map[string]any {
		b, _ := c.node.USDCBalance(context.Background(), deposit)
		return map[string]any{"status": ten.Root.Get("/v1/payments/"+id).Expect(t, 200).JSON(t)["status"], "swept": b != nil && b.Sign() == 0}
	}, func(m map[string]any) bool { return m["status"] == "completed" && m["swept"] == true })
	sweeps := c.sends(t, factory)

	to := common.HexToAddress("0x00000000000000000000000000000000000c4a55")
	refund := ten.Root.With("Idempotency-Key", "crash-refund-"+id)
	body := map[string]any{"amount": 4, "address": to.Hex()}
	refundID := refund.Post("/v1/payments/"+id+"/refund", body).Expect(t, 201).JSON(t)["id"].(string)

	first.waitKilled(t)
	if n := c.sends(t, factory) - sweeps; n != 1 {
		t.Fatalf("%d refunds sent at the crash, want 1", n)
	}

	c.restart(t)
	if again := refund.Post("/v1/payments/"+id+"/refund", body).Expect(t, 201).JSON(t); again["id"] != refundID {
		t.Fatalf("the client's retried refund: %v", again)
	}
	afterRestart(t, "the refund is processed after the restart", func() map[string]any {
		return ten.Root.Get("/v1/payments/"+id+"/refunds").Expect(t, 200).JSON(t)
	}, func(m map[string]any) bool {
		data := m["data"].([]any)
		return len(data) == 1 && data[0].(map[string]any)["status"] == "processed"
	})
	if b, err := c.node.USDCBalance(context.Background(), to); err != nil || b.Int64() != 4*usd {
		t.Fatalf("the customer holds %v (%v), want 4 USDC once", b, err)
	}
	if n := c.sends(t, factory) - sweeps; n != 1 {
		t.Fatalf("%d refunds sent in all, want 1", n)
	}
	c.check(t)
}

// TestCrash_CardSettlementSentBeforeItsRecord: the service is killed right after it sent a
// captured card spend's settlement to the card module and before it recorded it. Started
// again, the settlement job finds the reference settled (the module refuses a reference it has
// seen) and confirms it: the Safe paid the capture once.
func TestCrash_CardSettlementSentBeforeItsRecord(t *testing.T) {
	chaosOnly(t)
	t.Parallel()
	c, first := newChainCrash(t, "card.settlement.sent")
	ten := c.env.NewTenant(t)
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	walletID, safeAddress := deployedWallet(t, ten, key, "30")
	cardID := ten.Root.Post("/v1/wallets/"+walletID+"/cards", map[string]any{"dailyUsd": "20"}).Expect(t, 201).JSON(t)["cardId"].(string)
	a := ten.Root.Post("/v1/sandbox/cards/"+cardID+"/authorizations", map[string]any{"amountUsd": "7", "mcc": "5411", "merchantName": "Corner Shop"}).
		Expect(t, 201).JSON(t)
	if a["status"] != "APPROVED" {
		t.Fatalf("authorization: %v", a)
	}
	module := c.node.Addresses().CardSpendModule
	before := c.sends(t, module)
	aid := a["authorizationId"].(string)
	// The capture enqueues the settlement, which may kill the process before its answer is read.
	go ten.Root.PostIgnoringAnswer("/v1/sandbox/card-authorizations/"+aid+"/capture", `{"amountUsd":"7"}`)

	first.waitKilled(t)
	if n := c.sends(t, module) - before; n != 1 {
		t.Fatalf("%d settlements sent at the crash, want 1", n)
	}

	c.restart(t)
	afterRestart(t, "the settlement is confirmed after the restart", func() map[string]any {
		for _, raw := range ten.Root.Get("/v1/cards/"+cardID+"/authorizations").Expect(t, 200).JSON(t)["authorizations"].([]any) {
			if m := raw.(map[string]any); m["authorizationId"] == aid {
				return m
			}
		}
		return nil
	}, func(m map[string]any) bool {
		return m != nil && (m["settlementStatus"] == "CONFIRMED" || m["settlementStatus"] == "FAILED")
	})
	if b, err := c.node.USDCBalance(context.Background(), safeAddress); err != nil || b.Int64() != 23*usd {
		t.Fatalf("the Safe holds %v (%v) after the settlement, want 23 USDC: paid once", b, err)
	}
	if n := c.sends(t, module) - before; n != 1 {
		t.Fatalf("%d settlements sent in all, want 1", n)
	}
	c.check(t)
}

// TestCrash_ClaimEscrowSentBeforeItsRecord: the service is killed right after it sent a pending
// claim's escrow funding and before it recorded the transaction. Started again, the claim job
// finds the escrow funded for the claim's id (the contract refuses a second funding) and
// records it: the escrow holds the amount once, the sender is debited once, the client's
// retried create replays the same payment, and `corridor check` (escrow against chain
// included) passes.
func TestCrash_ClaimEscrowSentBeforeItsRecord(t *testing.T) {
	t.Parallel()
	c, first := newChainCrash(t, "claim.chain.sent")
	sender := c.env.NewTenant(t)
	sender.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "40"}).Expect(t, 201)
	create := sender.Root.With("Idempotency-Key", "crash-claim-"+sender.ID)
	body := map[string]any{"phone": "+16285550147", "amountUsd": "15"}
	created := create.Post("/v1/offramp/payments", body).Expect(t, 201).JSON(t)
	if created["status"] != "PENDING_CLAIM" {
		t.Fatalf("created %v", created)
	}
	payID, claimID := created["paymentId"].(string), created["claimId"].(string)

	first.waitKilled(t)
	escrow := c.node.Addresses().ClaimEscrow
	if n := c.sends(t, escrow); n != 1 {
		t.Fatalf("%d escrow transactions sent at the crash, want 1", n)
	}

	c.restart(t)
	again := create.Post("/v1/offramp/payments", body).Expect(t, 201)
	if again.Header.Get("Idempotent-Replayed") != "true" || again.JSON(t)["paymentId"] != payID {
		t.Fatalf("the client's retry after the crash: %s", again.Body)
	}
	afterRestart(t, "the claim is funded after the restart", func() map[string]any {
		return sender.Root.Get("/v1/offramp/claims/"+claimID).Expect(t, 200).JSON(t)
	}, func(m map[string]any) bool { return m["funded"] == true })
	if b, err := c.node.USDCBalance(context.Background(), escrow); err != nil || b.Int64() != 15*usd {
		t.Fatalf("the escrow holds %v (%v), want 15 USDC once", b, err)
	}
	harness.ExpectServiceBalance(t, sender.Root, 25*usd, 0)
	if n := c.sends(t, escrow); n != 1 {
		t.Fatalf("%d escrow transactions sent in all, want 1", n)
	}
	c.check(t)
}
