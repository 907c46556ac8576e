package fake_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

func signAll(t *testing.T, hash common.Hash, keys ...*ecdsa.PrivateKey) []byte {
	t.Helper()
	var sigs []safe.OwnerSignature
	for _, k := range keys {
		sig, err := safe.Sign(hash, k)
		if err != nil {
			t.Fatal(err)
		}
		sigs = append(sigs, safe.OwnerSignature{Signer: crypto.PubkeyToAddress(k.PublicKey), Signature: sig})
	}
	packed, err := safe.PackSignatures(sigs)
	if err != nil {
		t.Fatal(err)
	}
	return packed
}

// The fake chain executes a USDC transfer from a Safe as the contract would: threshold owner
// signatures over the SafeTx hash, the current nonce only, once per SafeTx hash.
func TestChain_ExecSafeTransaction(t *testing.T) {
	ctx := context.Background()
	c := fake.NewChain(84532)
	k1, _ := crypto.GenerateKey()
	k2, _ := crypto.GenerateKey()
	_, address, err := c.DeploySafe(ctx, ports.SafeConfig{Owners: []common.Address{crypto.PubkeyToAddress(k1.PublicKey), crypto.PubkeyToAddress(k2.PublicKey)},
		Threshold: 2, SaltNonce: big.NewInt(7)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.MintUSDC(ctx, address, big.NewInt(10)); err != nil {
		t.Fatal(err)
	}
	payee := common.HexToAddress("0x00000000000000000000000000000000000000b0")
	tx, err := safe.TokenTransfer(c.USDCAddress(), payee, big.NewInt(4), 0)
	if err != nil {
		t.Fatal(err)
	}
	hash := safe.TransactionHash(c.ChainID(), address, tx)
	var revert *ports.RevertError
	if _, err := c.ExecSafeTransaction(ctx, address, tx, signAll(t, hash, k1)); !errors.As(err, &revert) || revert.Reason != "GS026" {
		t.Fatalf("one signature of two: %v", err)
	}
	sent, err := c.ExecSafeTransaction(ctx, address, tx, signAll(t, hash, k1, k2))
	if err != nil {
		t.Fatal(err)
	}
	if again, err := c.ExecSafeTransaction(ctx, address, tx, signAll(t, hash, k1, k2)); err != nil || again != sent {
		t.Fatalf("a repeated execution: %s, %v; want %s", again.Hex(), err, sent.Hex())
	}
	if got, _ := c.USDCBalance(ctx, payee); got.Int64() != 4 {
		t.Fatalf("payee holds %v", got)
	}
	if got, _ := c.USDCBalance(ctx, address); got.Int64() != 6 {
		t.Fatalf("Safe holds %v", got)
	}
	if n, _ := c.SafeNonce(ctx, address); n != 1 {
		t.Fatalf("nonce %d", n)
	}
	if found, ok, _ := c.SafeExecution(ctx, address, hash); !ok || found != sent {
		t.Fatalf("SafeExecution = %s, %v", found.Hex(), ok)
	}
	stale, _ := safe.TokenTransfer(c.USDCAddress(), payee, big.NewInt(1), 0)
	staleHash := safe.TransactionHash(c.ChainID(), address, stale)
	if _, err := c.ExecSafeTransaction(ctx, address, stale, signAll(t, staleHash, k1, k2)); !errors.Is(err, ports.ErrSafeNonceUsed) {
		t.Fatalf("a used nonce: %v", err)
	}
	tooMuch, _ := safe.TokenTransfer(c.USDCAddress(), payee, big.NewInt(7), 1)
	if _, err := c.ExecSafeTransaction(ctx, address, tooMuch, signAll(t, safe.TransactionHash(c.ChainID(), address, tooMuch), k1, k2)); !errors.As(err, &revert) {
		t.Fatalf("more than the Safe holds: %v", err)
	}
}
