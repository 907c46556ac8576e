package twofa

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/test/harness"
)

// freshAddress is a random address no other test pays.
func freshAddress(t *testing.T) string {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return crypto.PubkeyToAddress(key.PublicKey).Hex()
}

// newWallet creates a wallet through the wallets API and waits until it is DEPLOYED.
func newWallet(t *testing.T, ten *harness.Tenant) string {
	t.Helper()
	created := ten.Root.Post("/v1/wallets", map[string]any{"name": "approvals",
		"owners": []map[string]any{{"address": harness.NewOwner(t).Address.Hex(), "role": "FINANCE_OWNER"}}}).Expect(t, http.StatusCreated).JSON(t)
	id := created["id"].(string)
	ten.Root.WaitWalletDeployed(t, id)
	return id
}

func payTo(walletID, address, amount string) map[string]any {
	return map[string]any{
		"sourceWalletId": walletID,
		"destination":    map[string]any{"type": "address", "address": address, "chainId": wallet.SandboxChainID},
		"amount":         map[string]any{"value": amount},
	}
}

func withChallenge(body map[string]any, id string) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		out[k] = v
	}
	out["twofaChallengeId"] = id
	return out
}

var keySeq atomic.Int64

// keyed is c with a fresh Idempotency-Key.
func keyed(c *harness.Client) *harness.Client {
	return c.With("Idempotency-Key", "twofa-"+strconv.FormatInt(time.Now().UnixNano(), 36)+"-"+strconv.FormatInt(keySeq.Add(1), 10))
}

// code is a TOTP code of secret the service accepts now (see harness.TOTP).
func code(t *testing.T, secret string) string {
	t.Helper()
	return harness.TOTP(t, secret)
}

// wrongCode is a well-formed code that is not secret's code now nor in the adjacent steps.
func wrongCode(t *testing.T, secret string) string {
	t.Helper()
	taken := map[string]bool{}
	for _, d := range []time.Duration{-30 * time.Second, 0, 30 * time.Second, 60 * time.Second} {
		c, err := totp.GenerateCodeCustom(secret, time.Now().Add(d), totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			t.Fatal(err)
		}
		taken[c] = true
	}
	for i := 0; ; i++ {
		c := strconv.Itoa(100000 + i*7919%900000)
		if !taken[c] {
			return c
		}
	}
}

// enroll enrolls and activates a TOTP factor of c's tenant; it returns the factor and its secret.
func enroll(t *testing.T, c *harness.Client) (map[string]any, string) {
	t.Helper()
	f := c.Post("/v1/twofactor/factors", map[string]any{"label": "phone"}).Expect(t, http.StatusCreated).JSON(t)
	secret := f["secret"].(string)
	got := c.Post("/v1/twofactor/factors/"+f["id"].(string)+"/verify", map[string]any{"code": code(t, secret)}).Expect(t, http.StatusOK).JSON(t)
	if got["status"] != "ACTIVE" {
		t.Fatalf("factor after verify: %v", got)
	}
	return got, secret
}

func putSettings(t *testing.T, c *harness.Client, body map[string]any) map[string]any {
	t.Helper()
	return c.Do(http.MethodPut, "/v1/twofactor/settings", body).Expect(t, http.StatusOK).JSON(t)
}

func details(t *testing.T, e map[string]any) map[string]any {
	t.Helper()
	d, ok := e["details"].(map[string]any)
	if !ok {
		t.Fatalf("no details in %v", e)
	}
	return d
}
