package spendguard

import (
	"context"
	"encoding/hex"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/test/harness"
)

func deposit(t *testing.T, c *harness.Client, amountUSD string) {
	t.Helper()
	c.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": amountUSD}).Expect(t, 201)
}

// serviceBalance is the tenant's available service balance in base units, as a string.
func serviceBalance(t *testing.T, c *harness.Client) string {
	t.Helper()
	got := c.Get("/v1/balances").Expect(t, 200).JSON(t)
	for _, b := range got["balances"].([]any) {
		if m := b.(map[string]any); m["asset"] == "USDC" {
			return m["availableBaseUnits"].(string)
		}
	}
	return "0"
}

func createAgent(t *testing.T, c *harness.Client, name string) string {
	t.Helper()
	return c.Post("/v1/agents", map[string]any{"name": name}).Expect(t, http.StatusCreated).JSON(t)["id"].(string)
}

// agentClient mints a key for the agent with scopes and returns a client using it.
func agentClient(t *testing.T, c *harness.Client, agentID string, scopes ...string) *harness.Client {
	t.Helper()
	k := c.Post("/v1/agents/"+agentID+"/keys", map[string]any{"name": "agent key", "scopes": scopes}).Expect(t, http.StatusCreated).JSON(t)
	return env().Client(t).WithKey(k["key"].(string))
}

// agentWallet provisions the agent's Safe owned by o, waits until DEPLOYED, funds it with fund.
func agentWallet(t *testing.T, ten *harness.Tenant, agentID string, o harness.Owner, fund string) string {
	t.Helper()
	w := ten.Root.Post("/v1/agents/"+agentID+"/wallet", map[string]any{
		"owners": []map[string]any{{"address": o.Address.Hex(), "role": "AGENT"}}}).Expect(t, http.StatusAccepted).JSON(t)
	id := w["id"].(string)
	ten.Root.WaitWalletDeployed(t, id)
	if fund != "" {
		ten.Root.Fund(t, id, fund)
	}
	return id
}

// custodialWallet makes a 1-of-1 Safe the service signs for, DEPLOYED and funded.
func custodialWallet(t *testing.T, ten *harness.Tenant, fund string) string {
	t.Helper()
	w := ten.Root.Post("/v1/wallets", map[string]any{"customer_id": "cus_guard", "currencies": []string{"USDC"}}).Expect(t, 201).JSON(t)
	id := w["wallet_id"].(string)
	ten.Root.WaitWalletDeployed(t, id)
	if fund != "" {
		ten.Root.Fund(t, id, fund)
	}
	return id
}

var payee = common.HexToAddress("0x00000000000000000000000000000000000000aa")

func payBody(walletID, amount string) map[string]any {
	return map[string]any{
		"sourceWalletId": walletID,
		"destination":    map[string]any{"type": "address", "address": payee.Hex(), "chainId": wallet.SandboxChainID},
		"amount":         map[string]any{"value": amount, "asset": "usdc"},
	}
}

// calldata is selector (8 hex digits) followed by the words, each left-padded to 32 bytes.
func calldata(selector string, words ...[]byte) string {
	var b strings.Builder
	b.WriteString("0x" + selector)
	for _, w := range words {
		b.WriteString(hex.EncodeToString(common.LeftPadBytes(w, 32)))
	}
	return b.String()
}

func addressWord(a common.Address) []byte { return a.Bytes() }

func amountWord(units *big.Int) []byte { return units.Bytes() }

func usdcAddress(t *testing.T) common.Address {
	t.Helper()
	return env().Chain.USDCAddress()
}

func usdcBalance(t *testing.T, a common.Address) int64 {
	t.Helper()
	b, err := env().Chain.USDCBalance(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	return b.Int64()
}

func poll(t *testing.T, what string, get func() map[string]any, done func(map[string]any) bool) map[string]any {
	t.Helper()
	return harness.Poll(t, what, get, done)
}
