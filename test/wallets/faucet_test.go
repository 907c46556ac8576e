package wallets

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

func TestFaucet_USDCDripConfirmsWithTxHash(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	w := newWallet(t, ten.Root)
	id, address := w["id"].(string), addr(w["address"])
	d := ten.Root.Post("/v1/wallets/"+id+"/fund", map[string]any{"asset": "usdc", "amount": "12.5"}).Expect(t, 201).JSON(t)
	if !strings.HasPrefix(d["id"].(string), "drp_") || d["status"] != "SUBMITTED" || d["walletId"] != id || d["asset"] != "usdc" ||
		d["amount"] != "12.5" || d["chainId"].(float64) != 84532 || d["createdAt"] == nil {
		t.Fatalf("drip: %v", d)
	}
	for _, k := range []string{"txHash", "failureReason"} {
		if v, has := d[k]; !has || v != nil {
			t.Fatalf("%s must be present and null: %v", k, d)
		}
	}
	done := waitDrip(t, ten.Root, d["id"].(string))
	if done["status"] != "CONFIRMED" || done["failureReason"] != nil {
		t.Fatalf("drip: %v", done)
	}
	hash, _ := done["txHash"].(string)
	if len(hash) != 66 {
		t.Fatalf("txHash %q", hash)
	}
	ctx := ctxFor(t)
	receipt, err := e.Chain.Receipt(ctx, common.HexToHash(hash))
	if err != nil || receipt.Status != ports.TxSucceeded {
		t.Fatalf("receipt %+v %v", receipt, err)
	}
	balance, err := e.Chain.USDCBalance(ctx, address)
	if err != nil || balance.Cmp(units("125", 5)) != 0 {
		t.Fatalf("on-chain USDC %v %v, want 12.5", balance, err)
	}
	got := ten.Root.Get("/v1/wallets/"+id).Expect(t, 200).JSON(t)
	if b := got["balances"].([]any)[0].(map[string]any); b["asset"] != "usdc" || b["amount"] != "12.5" {
		t.Fatalf("balances: %v", got["balances"])
	}
	list := ten.Root.Get("/v1/faucet/drips?walletId="+id).Expect(t, 200).JSON(t)
	if list["total"].(float64) != 1 || list["drips"].([]any)[0].(map[string]any)["txHash"] != hash {
		t.Fatalf("list: %v", list)
	}
}

func TestFaucet_ETHDrip(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	w := newWallet(t, ten.Root)
	d := ten.Root.Post("/v1/wallets/"+w["id"].(string)+"/fund", map[string]any{"asset": "eth"}).Expect(t, 201).JSON(t)
	if d["amount"] != "0.02" || d["asset"] != "eth" {
		t.Fatalf("eth default: %v", d)
	}
	if done := waitDrip(t, ten.Root, d["id"].(string)); done["status"] != "CONFIRMED" {
		t.Fatalf("drip: %v", done)
	}
	balance, err := e.Chain.ETHBalance(ctxFor(t), addr(w["address"]))
	if err != nil || balance.Cmp(units("2", 16)) != 0 {
		t.Fatalf("on-chain ETH %v %v, want 0.02", balance, err)
	}
	eth := ten.Root.Get("/v1/wallets/"+w["id"].(string)).Expect(t, 200).JSON(t)["balances"].([]any)[1].(map[string]any)
	if eth["asset"] != "eth" || eth["amount"] != "0.02" || eth["decimals"].(float64) != 18 {
		t.Fatalf("eth balance: %v", eth)
	}
}

func TestFaucet_AmountBounds(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := newWallet(t, ten.Root)["id"].(string)
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"above the usdc maximum", map[string]any{"amount": "1000.000001"}, "amount"},
		{"zero", map[string]any{"amount": "0"}, "amount"},
		{"negative", map[string]any{"amount": "-5"}, "amount"},
		{"seven decimals", map[string]any{"amount": "1.0000001"}, "amount"},
		{"exponent", map[string]any{"amount": "1e2"}, "amount"},
		{"a number, not a string", map[string]any{"amount": 5}, "amount"},
		{"above the eth maximum", map[string]any{"asset": "eth", "amount": "0.020000000000000001"}, "amount"},
		{"unknown asset", map[string]any{"asset": "btc"}, "asset"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := ten.Root.Post("/v1/wallets/"+id+"/fund", tc.body).ExpectError(t, 400, "VALIDATION_FAILED")
			if harness.Field(m, tc.field) == "" {
				t.Fatalf("details.fields.%s missing: %v", tc.field, m["details"])
			}
		})
	}
	if d := ten.Root.Post("/v1/wallets/"+id+"/fund", nil).Expect(t, 201).JSON(t); d["amount"] != "250" || d["asset"] != "usdc" {
		t.Fatalf("defaults: %v", d)
	}
	if d := ten.Root.Post("/v1/wallets/"+id+"/fund", map[string]any{"amount": "1000"}).Expect(t, 201).JSON(t); d["amount"] != "1000" {
		t.Fatalf("maximum: %v", d)
	}
	if list := ten.Root.Get("/v1/faucet/drips").Expect(t, 200).JSON(t); list["total"].(float64) != 2 {
		t.Fatalf("refused requests created drips: %v", list)
	}
}

// TestFaucet_RateLimits: per wallet, then per tenant, over the rolling window, with Retry-After.
func TestFaucet_RateLimits(t *testing.T) {
	t.Parallel()
	srv := harness.NewServer(t, func(c *wiring.Config) { c.Faucet = wallet.FaucetLimits{PerWallet: 2, PerTenant: 3} })
	ten := srv.NewTenant(t)
	first, second := newWallet(t, ten.Root)["id"].(string), newWallet(t, ten.Root)["id"].(string)
	for i := 0; i < 2; i++ {
		ten.Root.Post("/v1/wallets/"+first+"/fund", map[string]any{"amount": "1"}).Expect(t, 201)
	}
	r := ten.Root.Post("/v1/wallets/"+first+"/fund", map[string]any{"amount": "1"})
	m := r.ExpectError(t, 429, "RATE_LIMITED")
	retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || retry < 3590 || retry > 3600 {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	if d := m["details"].(map[string]any); d["scope"] != "wallet" || d["limit"].(float64) != 2 {
		t.Fatalf("details: %v", d)
	}
	ten.Root.Post("/v1/wallets/"+second+"/fund", map[string]any{"amount": "1"}).Expect(t, 201)
	r = ten.Root.Post("/v1/wallets/"+second+"/fund", map[string]any{"amount": "1"})
	if d := r.ExpectError(t, 429, "RATE_LIMITED")["details"].(map[string]any); d["scope"] != "tenant" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("tenant limit: %v %q", d, r.Header.Get("Retry-After"))
	}
	// Another tenant has its own window; a 429 is not stored under an Idempotency-Key.
	other := srv.NewTenant(t)
	other.Root.Post("/v1/wallets/"+newWallet(t, other.Root)["id"].(string)+"/fund", map[string]any{"amount": "1"}).Expect(t, 201)
	ten.Root.With("Idempotency-Key", "limited").Post("/v1/wallets/"+second+"/fund", map[string]any{"amount": "1"}).ExpectError(t, 429, "RATE_LIMITED")
	ten.Root.With("Idempotency-Key", "limited").Post("/v1/wallets/"+second+"/fund", map[string]any{"amount": "1"}).ExpectError(t, 429, "RATE_LIMITED")
}

// TestFaucet_IdempotentUnderParallelRequests: ten concurrent requests with one Idempotency-Key
// make one drip and one on-chain mint.
func TestFaucet_IdempotentUnderParallelRequests(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	w := newWallet(t, ten.Root)
	id := w["id"].(string)
	client := ten.Root.With("Idempotency-Key", "fund-once-"+id)
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	dripIDs := map[string]bool{}
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := client.Post("/v1/wallets/"+id+"/fund", map[string]any{"amount": "3"})
			mu.Lock()
			defer mu.Unlock()
			statuses[r.Status]++
			if r.Status == 201 {
				dripIDs[r.JSON(t)["id"].(string)] = true
			}
		}()
	}
	wg.Wait()
	if statuses[201] == 0 || statuses[201]+statuses[409] != 10 || len(dripIDs) != 1 {
		t.Fatalf("statuses %v, drips %v", statuses, dripIDs)
	}
	replay := client.Post("/v1/wallets/"+id+"/fund", map[string]any{"amount": "3"}).Expect(t, 201)
	var dripID string
	for k := range dripIDs {
		dripID = k
	}
	if replay.JSON(t)["id"] != dripID || replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %s", replay.Body)
	}
	if done := waitDrip(t, ten.Root, dripID); done["status"] != "CONFIRMED" {
		t.Fatalf("drip: %v", done)
	}
	if list := ten.Root.Get("/v1/faucet/drips?walletId="+id).Expect(t, 200).JSON(t); list["total"].(float64) != 1 {
		t.Fatalf("drips: %v", list)
	}
	balance, err := e.Chain.USDCBalance(ctxFor(t), addr(w["address"]))
	if err != nil || balance.Cmp(units("3", 6)) != 0 {
		t.Fatalf("on-chain USDC %v %v, want exactly one mint of 3", balance, err)
	}
}
