package chain

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/ports"
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

// TestCheckoutFactory_RefundPaysOnce: a refund pays its destination from the relayer through the
// factory (the relayer's approval comes with the first refund) and is recorded under its id;
// the same refund again sends nothing and pays nothing; the same id with another destination
// or amount, sent to the contract itself, reverts CDF:refunded; the paying transaction is
// found from the id; only the operator may refund.
func TestCheckoutFactory_RefundPaysOnce(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	id := crypto.Keccak256Hash([]byte("crf_test_refund"))
	to := common.HexToAddress("0x00000000000000000000000000000000000000c1")
	if _, err := a.MintUSDC(ctx, a.RelayerAddress(), usdc(10)); err != nil {
		t.Fatal(err)
	}
	start, err := a.LatestBlock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := a.CheckoutRefundOf(ctx, id); err != nil || r.Paid() {
		t.Fatalf("refundOf before = %+v (%v), want unpaid", r, err)
	}
	hash, err := a.RefundCheckout(ctx, id, to, usdc(3))
	if err != nil || hash == (common.Hash{}) {
		t.Fatalf("refund: %s (%v)", hash.Hex(), err)
	}
	if receipt, err := a.Receipt(ctx, hash); err != nil || receipt.Status != ports.TxSucceeded {
		t.Fatalf("refund receipt %+v (%v)", receipt, err)
	}
	expectBalance(t, a, to, 3_000_000)
	if r, err := a.CheckoutRefundOf(ctx, id); err != nil || r.To != to || r.AmountBaseUnits.Cmp(usdc(3)) != 0 {
		t.Fatalf("refundOf after = %+v (%v), want 3 USDC to %s", r, err, to.Hex())
	}
	if found, ok, err := a.CheckoutRefundTx(ctx, id, start); err != nil || !ok || found != hash {
		t.Fatalf("refund tx = %s %v (%v), want %s", found.Hex(), ok, err, hash.Hex())
	}

	// A retry of the same refund: nothing sent, nothing paid.
	again, err := a.RefundCheckout(ctx, id, to, usdc(3))
	if err != nil || again != (common.Hash{}) {
		t.Fatalf("retried refund: %s (%v), want nothing sent", again.Hex(), err)
	}
	expectBalance(t, a, to, 3_000_000)
	// Another destination or amount under the id: refused before sending.
	var revert *ports.RevertError
	if _, err := a.RefundCheckout(ctx, id, to, usdc(4)); !errors.As(err, &revert) || revert.Reason != "CDF:refunded" {
		t.Fatalf("refund of another amount under a paid id: %v", err)
	}
	// The contract itself refuses a paid id (the adapter's own check bypassed).
	_, err = a.relay.sendOnce(ctx, "", nil, call{to: &a.addrs.CheckoutFactory, data: a.checkoutFactory.PackRefund(id, to, usdc(3))})
	if !errors.As(err, &revert) || revert.Reason != "CDF:refunded" {
		t.Fatalf("second refund of one id sent to the contract: %v", err)
	}
	expectBalance(t, a, to, 3_000_000)
	if unknown, ok, err := a.CheckoutRefundTx(ctx, crypto.Keccak256Hash([]byte("crf_never")), start); err != nil || ok {
		t.Fatalf("tx of an unpaid id = %s %v (%v), want none", unknown.Hex(), ok, err)
	}

	stranger, _ := crypto.GenerateKey()
	addrs := a.Addresses()
	addrs.ClaimEscrow, addrs.CardSpendModule, addrs.CheckoutFactory = common.Address{}, common.Address{}, common.Address{}
	other, err := New(ctx, a.client, stranger, addrs, a.relay.afterSend)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.SendETH(ctx, other.RelayerAddress(), big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
	other.addrs.CheckoutFactory = a.addrs.CheckoutFactory
	_, err = other.relay.sendOnce(ctx, "", nil, call{to: &other.addrs.CheckoutFactory,
		data: other.checkoutFactory.PackRefund(crypto.Keccak256Hash([]byte("crf_stranger")), to, usdc(1))})
	if !errors.As(err, &revert) || revert.Reason != "CDF:operator" {
		t.Fatalf("refund by a stranger: %v", err)
	}
	expectBalance(t, a, to, 3_000_000)
}

// TestCheckoutFactory_WithoutRefundsIsRefused: a configured factory that cannot pay a refund
// once (no refundOf: a factory from before refunds, here stood in for by the card module, which
// answers token, operator and settlement alike) stops start-up instead of being used.
func TestCheckoutFactory_WithoutRefundsIsRefused(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	addrs := a.Addresses()
	addrs.CheckoutFactory = addrs.CardSpendModule
	_, err := New(ctx, a.client, a.relay.key, addrs, a.relay.afterSend)
	if err == nil || !strings.Contains(err.Error(), "has no refundOf") {
		t.Fatalf("start-up with a factory lacking refundOf: %v", err)
	}
}

// TestCheckoutFactory_RefundMintsWhatTheFloatLacks: on a chain where the relayer mints TestUSDC,
// a refund whose USDC the relayer's float no longer holds (a claim funded from the same float
// took it) mints the shortfall and pays, instead of reverting until the next mint.
func TestCheckoutFactory_RefundMintsWhatTheFloatLacks(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	relayer := a.RelayerAddress()
	if held, err := a.USDCBalance(ctx, relayer); err != nil {
		t.Fatal(err)
	} else if held.Sign() > 0 {
		sink := common.HexToAddress("0x00000000000000000000000000000000000f10a7")
		if _, err := a.TransferUSDC(ctx, sink, held); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.MintUSDC(ctx, relayer, usdc(1)); err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0x00000000000000000000000000000000000c0de5")
	id := crypto.Keccak256Hash([]byte("crf_float_short"))
	hash, err := a.RefundCheckout(ctx, id, to, usdc(3))
	if err != nil {
		t.Fatalf("refund from a short float: %v", err)
	}
	if r, err := a.Receipt(ctx, hash); err != nil || r.Status != ports.TxSucceeded {
		t.Fatalf("refund %s: %+v (%v)", hash.Hex(), r, err)
	}
	expectBalance(t, a, to, 3_000_000)
}
