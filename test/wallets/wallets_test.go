package wallets

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// TestWallets_TwoOfThreeFundedBeforeDeployment is the wallets capability's main flow: a 2-of-3
// wallet answers at once with its predicted address, is funded there before deployment
// (directly and by the faucet), deploys to exactly that address with the configured owners,
// and keeps the funds.
func TestWallets_TwoOfThreeFundedBeforeDeployment(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	_, addrs := owners(t, 3)
	body := walletBody("Treasury", addrs, 2)
	body["owners"].([]map[string]any)[1]["role"] = "FINANCE_OWNER"
	body["owners"].([]map[string]any)[1]["label"] = "CFO"
	w := ten.Root.Post("/v1/wallets", body).Expect(t, 201).JSON(t)
	if !strings.HasPrefix(w["id"].(string), "wal_") || w["status"] != "PENDING_DEPLOYMENT" || w["predictedAddress"] != true ||
		w["threshold"].(float64) != 2 || w["chainId"].(float64) != 84532 || w["name"] != "Treasury" || w["purpose"] != "GENERAL" || w["createdAt"] == nil {
		t.Fatalf("create response: %v", w)
	}
	if _, has := w["balances"]; has {
		t.Fatalf("balances belong to get-one only: %v", w)
	}
	if w["failureReason"] != nil {
		t.Fatalf("failureReason: %v", w["failureReason"])
	}
	owners := w["owners"].([]any)
	if len(owners) != 3 || owners[1].(map[string]any)["role"] != "FINANCE_OWNER" || owners[1].(map[string]any)["label"] != "CFO" ||
		owners[0].(map[string]any)["label"] != nil {
		t.Fatalf("owners: %v", owners)
	}
	id, predicted := w["id"].(string), addr(w["address"])
	if w["address"] != predicted.Hex() {
		t.Fatalf("address not EIP-55: %v", w["address"])
	}

	// Fund the predicted address before the deployment job has run: a direct mint, mined at once,
	// then a faucet drip.
	ctx := ctxFor(t)
	direct := big.NewInt(7_000_000)
	if _, err := e.Chain.MintUSDC(ctx, predicted, direct); err != nil {
		t.Fatal(err)
	}
	if deployed, err := e.Chain.IsDeployed(ctx, predicted); err != nil {
		t.Fatal(err)
	} else if deployed {
		t.Log("the deployment job beat the direct mint; the funds-before-deployment check is weaker this run")
	}
	drip := ten.Root.Post("/v1/wallets/"+id+"/fund", map[string]any{"amount": "100"}).Expect(t, 201).JSON(t)

	got := waitDeployed(t, ten.Root, id)
	if got["predictedAddress"] != false || got["address"] != predicted.Hex() {
		t.Fatalf("deployed wallet: %v", got)
	}
	if deployed, err := e.Chain.IsDeployed(ctx, predicted); err != nil || !deployed {
		t.Fatalf("no Safe at the predicted address: %v %v", deployed, err)
	}
	chainOwners, err := e.Chain.SafeOwners(ctx, predicted)
	if err != nil {
		t.Fatal(err)
	}
	if !sameAddresses(chainOwners, addrs) {
		t.Fatalf("on-chain owners %v, want %v", chainOwners, addrs)
	}
	if th, err := e.Chain.SafeThreshold(ctx, predicted); err != nil || th != 2 {
		t.Fatalf("on-chain threshold %d %v", th, err)
	}
	if d := waitDrip(t, ten.Root, drip["id"].(string)); d["status"] != "CONFIRMED" {
		t.Fatalf("drip: %v", d)
	}
	balance, err := e.Chain.USDCBalance(ctx, predicted)
	if err != nil || balance.Cmp(big.NewInt(107_000_000)) != 0 {
		t.Fatalf("on-chain USDC %v %v, want 107 USDC", balance, err)
	}
	balances := ten.Root.Get("/v1/wallets/"+id).Expect(t, 200).JSON(t)["balances"].([]any)
	want := []map[string]any{{"asset": "usdc", "amount": "107", "decimals": float64(6), "held": "0", "available": "107"}, {"asset": "eth", "amount": "0", "decimals": float64(18)}}
	if fmt.Sprint(balances) != fmt.Sprint([]any{want[0], want[1]}) {
		t.Fatalf("balances %v, want %v", balances, want)
	}
}

func sameAddresses(got []common.Address, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	a := make([]string, len(got))
	for i, g := range got {
		a[i] = g.Hex()
	}
	b := append([]string(nil), want...)
	sort.Strings(a)
	sort.Strings(b)
	return strings.Join(a, ",") == strings.Join(b, ",")
}

func TestWallets_Validation(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	_, addrs := owners(t, 2)
	one := []map[string]any{{"address": addrs[0], "role": "AGENT"}}
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"no name", map[string]any{"owners": one}, "name"},
		{"no owners", map[string]any{"name": "w"}, "owners"},
		{"empty owners", map[string]any{"name": "w", "owners": []any{}}, "owners"},
		{"bad address", map[string]any{"name": "w", "owners": []map[string]any{{"address": "0x12", "role": "AGENT"}}}, "owners[0].address"},
		{"bad checksum", map[string]any{"name": "w", "owners": []map[string]any{{"address": mangleChecksum(addrs[0]), "role": "AGENT"}}}, "owners[0].address"},
		{"zero address", map[string]any{"name": "w", "owners": []map[string]any{{"address": "0x0000000000000000000000000000000000000000", "role": "AGENT"}}}, "owners[0].address"},
		{"sentinel address", map[string]any{"name": "w", "owners": []map[string]any{{"address": "0x0000000000000000000000000000000000000001", "role": "AGENT"}}}, "owners[0].address"},
		{"duplicate owner", map[string]any{"name": "w", "owners": []map[string]any{{"address": addrs[0], "role": "AGENT"}, {"address": strings.ToLower(addrs[0]), "role": "AGENT"}}}, "owners[1].address"},
		{"unknown role", map[string]any{"name": "w", "owners": []map[string]any{{"address": addrs[0], "role": "BOSS"}}}, "owners[0].role"},
		{"missing role", map[string]any{"name": "w", "owners": []map[string]any{{"address": addrs[0]}}}, "owners[0].role"},
		{"threshold above owners", map[string]any{"name": "w", "owners": one, "threshold": 2}, "threshold"},
		{"zero threshold", map[string]any{"name": "w", "owners": one, "threshold": 0}, "threshold"},
		{"threshold not an integer", map[string]any{"name": "w", "owners": one, "threshold": "1"}, "threshold"},
		{"live chain with a test key", map[string]any{"name": "w", "owners": one, "chainId": 8453}, "chainId"},
		{"unknown chain", map[string]any{"name": "w", "owners": one, "chainId": 1}, "chainId"},
		{"unknown field", map[string]any{"name": "w", "owners": one, "salt": 1}, "salt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := ten.Root.Post("/v1/wallets", tc.body).ExpectError(t, 400, "VALIDATION_FAILED")
			if harness.Field(m, tc.field) == "" {
				t.Fatalf("details.fields.%s missing: %v", tc.field, m["details"])
			}
		})
	}
	// Defaults: threshold 1, the environment's chain; an explicit matching chainId is accepted.
	w := ten.Root.Post("/v1/wallets", map[string]any{"name": "d", "owners": one, "chainId": 84532}).Expect(t, 201).JSON(t)
	if w["threshold"].(float64) != 1 || w["chainId"].(float64) != 84532 {
		t.Fatalf("defaults: %v", w)
	}
	if list := ten.Root.Get("/v1/wallets").Expect(t, 200).JSON(t); list["total"].(float64) != 1 {
		t.Fatalf("refused requests created wallets: %v", list)
	}
}

// mangleChecksum flips the case of the first letter of a checksummed address.
func mangleChecksum(a string) string {
	b := []byte(a)
	for i := 2; i < len(b); i++ {
		switch {
		case b[i] >= 'a' && b[i] <= 'f':
			b[i] -= 'a' - 'A'
			return string(b)
		case b[i] >= 'A' && b[i] <= 'F':
			b[i] += 'a' - 'A'
			return string(b)
		}
	}
	return a
}

func TestWallets_OtherTenantsAndScopes(t *testing.T) {
	t.Parallel()
	e := env()
	a, b := e.NewTenant(t), e.NewTenant(t)
	w := newWallet(t, a.Root)
	id := w["id"].(string)
	drip := a.Root.Post("/v1/wallets/"+id+"/fund", map[string]any{"amount": "1"}).Expect(t, 201).JSON(t)

	b.Root.Get("/v1/wallets/"+id).ExpectError(t, 404, "WALLET_NOT_FOUND")
	b.Root.Post("/v1/wallets/"+id+"/fund", nil).ExpectError(t, 404, "WALLET_NOT_FOUND")
	b.Root.Get("/v1/faucet/drips?walletId="+id).ExpectError(t, 404, "WALLET_NOT_FOUND")
	b.Root.Get("/v1/faucet/drips/"+drip["id"].(string)).ExpectError(t, 404, "DRIP_NOT_FOUND")
	b.Root.Do("PUT", "/v1/directory/handle", map[string]any{"handle": "stolen-" + id[len(id)-8:], "walletId": id}).ExpectError(t, 404, "WALLET_NOT_FOUND")
	if list := b.Root.Get("/v1/wallets").Expect(t, 200).JSON(t); list["total"].(float64) != 0 {
		t.Fatalf("another tenant's wallets listed: %v", list)
	}
	a.Root.Get("/v1/wallets/wal_nope").ExpectError(t, 404, "WALLET_NOT_FOUND")

	reader := e.Client(t).WithKey(e.NewKey(t, a.Root, map[string]any{"name": "r", "scopes": []string{"wallets:read"}}))
	reader.Get("/v1/wallets/"+id).Expect(t, 200)
	m := reader.Post("/v1/wallets", walletBody("x", []string{w["owners"].([]any)[0].(map[string]any)["address"].(string)}, 1)).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	if m["details"].(map[string]any)["required"] != "wallets:write" {
		t.Fatalf("details: %v", m["details"])
	}
	reader.Post("/v1/wallets/"+id+"/fund", nil).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	reader.Get("/v1/faucet/drips").ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	reader.Do("PUT", "/v1/directory/handle", map[string]any{"handle": "abc", "walletId": id}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
}

func TestWallets_ListPaging(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	var ids []string
	for i := 0; i < 3; i++ {
		ids = append(ids, newWallet(t, ten.Root)["id"].(string))
	}
	page := ten.Root.Get("/v1/wallets?take=2").Expect(t, 200).JSON(t)
	if page["total"].(float64) != 3 || len(page["wallets"].([]any)) != 2 {
		t.Fatalf("first page: %v", page)
	}
	rest := ten.Root.Get("/v1/wallets?skip=2&take=2").Expect(t, 200).JSON(t)
	got := []string{}
	for _, p := range [][]any{page["wallets"].([]any), rest["wallets"].([]any)} {
		for _, w := range p {
			got = append(got, w.(map[string]any)["id"].(string))
			if _, has := w.(map[string]any)["balances"]; has {
				t.Fatal("list entries carry no balances")
			}
		}
	}
	if strings.Join(got, ",") != strings.Join(ids, ",") {
		t.Fatalf("paged ids %v, want %v (oldest first)", got, ids)
	}
	m := ten.Root.Get("/v1/wallets?take=500").ExpectError(t, 400, "VALIDATION_FAILED")
	if harness.Field(m, "take") == "" {
		t.Fatalf("take not named: %v", m)
	}
}

// TestWallets_LiveKey: LIVE has no chain in this deployment (503 CHAIN_UNAVAILABLE) and the faucet
// is sandbox only (403 SANDBOX_ONLY); the TEST wallets stay invisible to the LIVE key.
func TestWallets_LiveKey(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	testWallet := newWallet(t, ten.Root)
	live := liveClient(t, ten)
	_, addrs := owners(t, 1)
	live.Post("/v1/wallets", walletBody("live", addrs, 1)).ExpectError(t, 503, "CHAIN_UNAVAILABLE")
	m := live.Post("/v1/wallets", map[string]any{"name": "live", "owners": []map[string]any{{"address": addrs[0], "role": "AGENT"}}, "chainId": 84532}).
		ExpectError(t, 400, "VALIDATION_FAILED")
	if harness.Field(m, "chainId") == "" {
		t.Fatalf("a sandbox chain with a live key: %v", m)
	}
	live.Post("/v1/wallets/"+testWallet["id"].(string)+"/fund", nil).ExpectError(t, 403, "SANDBOX_ONLY")
	live.Get("/v1/faucet/drips").ExpectError(t, 403, "SANDBOX_ONLY")
	live.Get("/v1/wallets/"+testWallet["id"].(string)).ExpectError(t, 404, "WALLET_NOT_FOUND")
	if list := live.Get("/v1/wallets").Expect(t, 200).JSON(t); list["total"].(float64) != 0 {
		t.Fatalf("live list: %v", list)
	}
}

func TestWallets_CapabilitiesReportBuilt(t *testing.T) {
	t.Parallel()
	caps := env().Client(t).Get("/v1/capabilities").Expect(t, 200).JSON(t)
	features := caps["features"].(map[string]any)
	for _, f := range []string{"wallets", "faucet", "handles"} {
		if features[f] != true {
			t.Fatalf("feature %s = %v", f, features[f])
		}
	}
	for _, c := range caps["chains"].([]any) {
		chain := c.(map[string]any)
		if chain["chainId"].(float64) == 84532 && (chain["available"] != true || chain["usdcAddress"] != env().Chain.USDCAddress().Hex()) {
			t.Fatalf("sandbox chain: %v", chain)
		}
	}
}

// unreadableChain is the simulated chain whose balance reads fail.
type unreadableChain struct{ ports.Chain }

func (unreadableChain) USDCBalance(context.Context, common.Address) (*big.Int, error) {
	return nil, errors.New("rpc: connection refused")
}

// TestWallets_BalancesNullWhenChainUnreadable: the wallet is still served, with balances null
// (never a made-up zero).
func TestWallets_BalancesNullWhenChainUnreadable(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := newWallet(t, ten.Root)["id"].(string)
	broken := harness.NewServer(t, func(c *wiring.Config) {
		c.ChainAdapters = map[core.Environment]ports.Chain{core.EnvTest: unreadableChain{env().Chain}}
	})
	r := broken.Client(t).WithKey(ten.RootKey).Get("/v1/wallets/"+id).Expect(t, 200)
	m := r.JSON(t)
	if v, has := m["balances"]; !has || v != nil || m["id"] != id {
		t.Fatalf("balances must be present and null: %s", r.Body)
	}
}
