package chain

import (
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"corridor/ports"
)

// TestCheckoutFactory_PredictsAndSweeps: the address computed off chain is the factory's own
// depositAddress; USDC sent there before anything is deployed is swept, whole, to the relayer;
// a second sweep of the same salt (a late transfer) works on the deployed deposit; a stranger
// cannot sweep.
func TestCheckoutFactory_PredictsAndSweeps(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	salt := crypto.Keccak256Hash([]byte("chk_test_salt"))
	predicted, err := a.CheckoutDepositAddress(salt)
	if err != nil {
		t.Fatal(err)
	}
	onChain, err := callUnpack(ctx, a, a.addrs.CheckoutFactory, a.checkoutFactory.PackDepositAddress(salt), a.checkoutFactory.UnpackDepositAddress)
	if err != nil || onChain != predicted {
		t.Fatalf("predicted %s, factory says %s (%v)", predicted.Hex(), onChain.Hex(), err)
	}
	if _, err := a.MintUSDC(ctx, predicted, usdc(5)); err != nil {
		t.Fatal(err)
	}
	before, err := a.USDCBalance(ctx, a.RelayerAddress())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.SweepCheckoutDeposit(ctx, salt, 5_000_000); err != nil {
		t.Fatal(err)
	}
	expectBalance(t, a, predicted, 0)
	after, _ := a.USDCBalance(ctx, a.RelayerAddress())
	if after.Sub(after, before).Cmp(usdc(5)) != 0 {
		t.Fatalf("relayer gained %s, want 5 USDC", after)
	}

	if _, err := a.MintUSDC(ctx, predicted, usdc(2)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SweepCheckoutDeposit(ctx, salt, 7_000_000); err != nil {
		t.Fatal(err)
	}
	expectBalance(t, a, predicted, 0)

	stranger, _ := crypto.GenerateKey()
	addrs := a.Addresses()
	addrs.ClaimEscrow, addrs.CardSpendModule, addrs.CheckoutFactory = common.Address{}, common.Address{}, common.Address{}
	other, err := New(ctx, a.client, stranger, addrs, a.relay.afterSend)
	if err != nil {
		t.Fatal(err)
	}
	other.addrs.CheckoutFactory = a.addrs.CheckoutFactory
	_, err = other.SweepCheckoutDeposit(ctx, salt, 7_000_000)
	var revert *ports.RevertError
	if !errors.As(err, &revert) || !strings.Contains(revert.Reason, "CDF:operator") {
		t.Fatalf("sweep by a stranger: %v", err)
	}
}

func expectBalance(t *testing.T, a *Adapter, address common.Address, want int64) {
	t.Helper()
	got, err := a.USDCBalance(testContext(t), address)
	if err != nil || got.Int64() != want {
		t.Fatalf("balance of %s: %v (%v), want %d", address.Hex(), got, err, want)
	}
}
