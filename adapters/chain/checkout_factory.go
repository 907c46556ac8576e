package chain

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"corridor/ports"
)

var _ ports.CheckoutDeposits = (*Adapter)(nil)

// ErrCheckoutNotConfigured is every checkout factory method's answer on a chain configured
// without a checkoutFactory address.
var ErrCheckoutNotConfigured = errors.New("chain: the checkout deposit factory is not configured on this chain (no checkoutFactory address)")

// readCheckoutFactoryConfig checks the configured factory at start-up (it has code, sweeps this
// USDC, is operated by this relayer and settles to it) and returns its deposit code hash.
func (a *Adapter) readCheckoutFactoryConfig(ctx context.Context) (common.Hash, error) {
	address := a.addrs.CheckoutFactory
	if address == (common.Address{}) {
		return common.Hash{}, nil
	}
	if deployed, err := a.IsDeployed(ctx, address); err != nil {
		return common.Hash{}, err
	} else if !deployed {
		return common.Hash{}, fmt.Errorf("chain: no CheckoutDepositFactory contract at %s on chain %d", address.Hex(), a.chainID)
	}
	f := a.checkoutFactory
	token, err := callUnpack(ctx, a, address, f.PackToken(), f.UnpackToken)
	if err != nil {
		return common.Hash{}, err
	}
	operator, err := callUnpack(ctx, a, address, f.PackOperator(), f.UnpackOperator)
	if err != nil {
		return common.Hash{}, err
	}
	settlement, err := callUnpack(ctx, a, address, f.PackSettlement(), f.UnpackSettlement)
	if err != nil {
		return common.Hash{}, err
	}
	switch {
	case token != a.addrs.USDC:
		return common.Hash{}, fmt.Errorf("chain: the CheckoutDepositFactory at %s sweeps token %s, not the configured USDC %s", address.Hex(), token.Hex(), a.addrs.USDC.Hex())
	case operator != a.relay.from || settlement != a.relay.from:
		return common.Hash{}, fmt.Errorf("chain: the CheckoutDepositFactory at %s is operated by %s and settles to %s, not the relayer %s", address.Hex(), operator.Hex(), settlement.Hex(), a.relay.from.Hex())
	}
	hash, err := callUnpack(ctx, a, address, f.PackDepositCodeHash(), f.UnpackDepositCodeHash)
	return common.Hash(hash), err
}

// CheckoutFactoryAddress implements ports.CheckoutDeposits.
func (a *Adapter) CheckoutFactoryAddress() common.Address { return a.addrs.CheckoutFactory }

// CheckoutDepositAddress implements ports.CheckoutDeposits: CREATE2(factory, salt, code hash),
// what the factory's depositAddress answers, computed without a chain read.
func (a *Adapter) CheckoutDepositAddress(salt [32]byte) (common.Address, error) {
	if a.addrs.CheckoutFactory == (common.Address{}) {
		return common.Address{}, ErrCheckoutNotConfigured
	}
	return crypto.CreateAddress2(a.addrs.CheckoutFactory, salt, a.checkoutCodeHash[:]), nil
}

// SweepCheckoutDeposit implements ports.CheckoutDeposits through the factory's sweep. Concurrent
// sweeps of one salt and received total in this process send one transaction.
func (a *Adapter) SweepCheckoutDeposit(ctx context.Context, salt [32]byte, received int64) (common.Hash, error) {
	if a.addrs.CheckoutFactory == (common.Address{}) {
		return common.Hash{}, ErrCheckoutNotConfigured
	}
	if salt == ([32]byte{}) {
		return common.Hash{}, errors.New("chain: a checkout sweep needs a non-zero salt")
	}
	return a.relay.sendOnce(ctx, "checkout:sweep:"+hexutil.Encode(salt[:])+":"+strconv.FormatInt(received, 10), nil,
		call{to: &a.addrs.CheckoutFactory, data: a.checkoutFactory.PackSweep(salt)})
}
