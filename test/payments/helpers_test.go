package payments

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// owner is a test owner key, acting as a partner's signer would.
type owner struct {
	key     *ecdsa.PrivateKey
	address common.Address
}

func newOwners(t *testing.T, n int) []owner {
	t.Helper()
	out := make([]owner, n)
	for i := range out {
		key, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		out[i] = owner{key: key, address: crypto.PubkeyToAddress(key.PublicKey)}
	}
	return out
}

// testWallet is a deployed Safe of a tenant.
type testWallet struct {
	ID      string
	Address common.Address
	Owners  []owner
}

// usdc converts whole and fractional USDC ("12.5") to base units.
func usdc(t *testing.T, s string) *big.Int {
	t.Helper()
	units, err := core.ParseUSD("amount", s)
	if err != nil {
		t.Fatal(err)
	}
	return big.NewInt(units)
}

// newWallet returns a DEPLOYED wallet of ten owned by owners, holding fund USDC ("" for none).
// It goes through the wallets API once that capability is served end to end, and until then
// creates the row through the store and deploys and funds on the chain directly, as the
// wallets capability would.
func newWallet(t *testing.T, ten *harness.Tenant, owners []owner, threshold int, fund string) testWallet {
	t.Helper()
	var w testWallet
	if wiring.Features["wallets"] {
		w = walletThroughAPI(t, ten, owners, threshold)
	} else {
		w = walletThroughStore(t, ten.ID, owners, threshold, wallet.StatusDeployed)
	}
	if fund != "" {
		fundWallet(t, ten, w, fund)
	}
	return w
}

func walletThroughAPI(t *testing.T, ten *harness.Tenant, owners []owner, threshold int) testWallet {
	t.Helper()
	list := make([]map[string]any, len(owners))
	for i, o := range owners {
		list[i] = map[string]any{"address": o.address.Hex(), "role": "FINANCE_OWNER"}
	}
	created := ten.Root.Post("/v1/wallets", map[string]any{"name": "payments test", "owners": list, "threshold": threshold}).Expect(t, 201).JSON(t)
	id := created["id"].(string)
	got := poll(t, func() map[string]any { return ten.Root.Get("/v1/wallets/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "DEPLOYED" || m["status"] == "FAILED" })
	if got["status"] != "DEPLOYED" {
		t.Fatalf("wallet did not deploy: %v", got)
	}
	return testWallet{ID: id, Address: common.HexToAddress(got["address"].(string)), Owners: owners}
}

// walletThroughStore inserts a wallet row with the predicted address and, for a DEPLOYED one,
// deploys its Safe on the simulated chain.
func walletThroughStore(t *testing.T, tenantID string, owners []owner, threshold int, status wallet.Status) testWallet {
	t.Helper()
	ctx := context.Background()
	id := core.NewID(core.PrefixWallet)
	addrs := make([]common.Address, len(owners))
	domainOwners := make([]wallet.Owner, len(owners))
	for i, o := range owners {
		addrs[i] = o.address
		domainOwners[i] = wallet.Owner{Address: o.address.Hex(), Role: wallet.RoleFinanceOwner}
	}
	cfg := ports.SafeConfig{Owners: addrs, Threshold: threshold, SaltNonce: safe.SaltNonceFor(id)}
	address, err := env().Chain.PredictSafeAddress(cfg)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	w := wallet.Wallet{ID: id, TenantID: tenantID, Environment: core.EnvTest, Name: "payments test", Purpose: wallet.PurposeGeneral,
		ChainID: wallet.SandboxChainID, Address: address.Hex(), Owners: domainOwners, Threshold: threshold,
		Status: status, CreatedAt: now}
	if status == wallet.StatusDeployed {
		if _, deployed, err := env().Chain.DeploySafe(ctx, cfg); err != nil || deployed != address {
			t.Fatalf("deploy: %v (%s, predicted %s)", err, deployed, address)
		}
		w.DeployedAt = &now
	}
	err = env().Service.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		return tx.Wallets().CreateWallet(ctx, w)
	})
	if err != nil {
		t.Fatal(err)
	}
	return testWallet{ID: id, Address: address, Owners: owners}
}

// fundWallet sends USDC to the wallet: the faucet once it is served, else a direct mint.
func fundWallet(t *testing.T, ten *harness.Tenant, w testWallet, amount string) {
	t.Helper()
	if wiring.Features["faucet"] {
		drip := ten.Root.Post("/v1/wallets/"+w.ID+"/fund", map[string]any{"asset": "usdc", "amount": amount}).Expect(t, 201).JSON(t)
		id := drip["id"].(string)
		got := poll(t, func() map[string]any { return ten.Root.Get("/v1/faucet/drips/"+id).Expect(t, 200).JSON(t) },
			func(m map[string]any) bool { return m["status"] != "SUBMITTED" })
		if got["status"] != "CONFIRMED" {
			t.Fatalf("drip: %v", got)
		}
		return
	}
	if _, err := env().Chain.MintUSDC(context.Background(), w.Address, usdc(t, amount)); err != nil {
		t.Fatal(err)
	}
}

// poll calls get until done holds, within the harness's wait limit.
func poll(t *testing.T, get func() map[string]any, done func(map[string]any) bool) map[string]any {
	t.Helper()
	return harness.Poll(t, "a payment's state", get, done)
}

// waitStatus polls a payment until it reaches a terminal status (or want) and checks want.
func waitStatus(t *testing.T, c *harness.Client, id, want string) map[string]any {
	t.Helper()
	got := poll(t, func() map[string]any { return c.Get("/v1/payments/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool {
			s := m["status"]
			return s == want || s == "COMPLETED" || s == "FAILED" || s == "CANCELLED"
		})
	if got["status"] != want {
		t.Fatalf("payment %s is %v, want %s: %v", id, got["status"], want, got)
	}
	return got
}

// toAddress is a propose body paying amount USDC to an address on the sandbox chain.
func toAddress(w testWallet, to common.Address, amount string) map[string]any {
	return map[string]any{
		"sourceWalletId": w.ID,
		"destination":    map[string]any{"type": "address", "address": to.Hex(), "chainId": wallet.SandboxChainID},
		"amount":         map[string]any{"value": amount, "asset": "usdc"},
	}
}

func propose(t *testing.T, c *harness.Client, body map[string]any) map[string]any {
	t.Helper()
	return c.Post("/v1/payments", body).Expect(t, http.StatusCreated).JSON(t)
}

// signature is o's raw secp256k1 signature over the payment's safeTxHash, hex encoded.
func signature(t *testing.T, payment map[string]any, o owner) string {
	t.Helper()
	sig, err := safe.Sign(common.HexToHash(payment["safeTxHash"].(string)), o.key)
	if err != nil {
		t.Fatal(err)
	}
	return sig.Hex()
}

func sign(t *testing.T, c *harness.Client, payment map[string]any, o owner) *harness.Response {
	t.Helper()
	return c.Post("/v1/payments/"+payment["id"].(string)+"/sign", map[string]any{"signature": signature(t, payment, o)})
}

func randomAddress(t *testing.T) common.Address { return newOwners(t, 1)[0].address }

func balance(t *testing.T, a common.Address) *big.Int {
	t.Helper()
	b, err := env().Chain.USDCBalance(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func safeNonce(t *testing.T, a common.Address) uint64 {
	t.Helper()
	n, err := env().Chain.SafeNonce(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
