package harness

import (
	"crypto/ecdsa"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core/safe"
)

// Owner is a Safe owner's key, as a partner's signer holds it.
type Owner struct {
	Key     *ecdsa.PrivateKey
	Address common.Address
}

// NewOwner makes a fresh owner key.
func NewOwner(t testing.TB) Owner {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return Owner{Key: key, Address: crypto.PubkeyToAddress(key.PublicKey)}
}

// SignPayment signs the payment's safeTxHash with o (raw secp256k1, as docs/api.md asks) and posts
// the signature; the caller checks the response.
func (c *Client) SignPayment(t testing.TB, paymentID string, o Owner) *Response {
	t.Helper()
	pay := c.Get("/v1/payments/"+paymentID).Expect(t, 200).JSON(t)
	sig, err := safe.Sign(common.HexToHash(pay["safeTxHash"].(string)), o.Key)
	if err != nil {
		t.Fatal(err)
	}
	return c.Post("/v1/payments/"+paymentID+"/sign", map[string]any{"signature": sig.Hex()})
}

// WaitWalletDeployed polls the wallet until its deployment ends and requires DEPLOYED.
func (c *Client) WaitWalletDeployed(t testing.TB, walletID string) map[string]any {
	t.Helper()
	got := Poll(t, "wallet "+walletID+" deployed", func() map[string]any { return c.Get("/v1/wallets/"+walletID).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "DEPLOYED" || m["status"] == "FAILED" })
	if got["status"] != "DEPLOYED" {
		t.Fatalf("wallet %s did not deploy: %v", walletID, got)
	}
	return got
}

// Fund drips amount USDC from the sandbox faucet into the wallet and waits until the drip is
// CONFIRMED on chain.
func (c *Client) Fund(t testing.TB, walletID, amount string) map[string]any {
	t.Helper()
	drip := c.Post("/v1/wallets/"+walletID+"/fund", map[string]any{"asset": "usdc", "amount": amount}).Expect(t, 201).JSON(t)
	got := Poll(t, "drip confirmed", func() map[string]any { return c.Get("/v1/faucet/drips/"+drip["id"].(string)).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] != "SUBMITTED" })
	if got["status"] != "CONFIRMED" {
		t.Fatalf("drip: %v", got)
	}
	return got
}
