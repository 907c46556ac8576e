package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strconv"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/adapters/chain/bindings"
	"github.com/corridorhq/corridor/ports"
)

var _ ports.CheckoutDeposits = (*Adapter)(nil)

// CheckoutFactory is the checkout deposit factory's side of the adapter
// (ports.CheckoutDeposits): deposit addresses, sweeps and refunds.
type CheckoutFactory struct {
	*reader
	relay           *relayer
	checkoutFactory *bindings.CheckoutDepositFactory
	// checkoutCodeHash is the factory's depositCodeHash, read at start-up (zero without one).
	checkoutCodeHash common.Hash
}

// ErrCheckoutNotConfigured is every checkout factory method's answer on a chain configured
// without a checkoutFactory address.
var ErrCheckoutNotConfigured = errors.New("chain: the checkout deposit factory is not configured on this chain (no checkoutFactory address)")

// checkoutRefundLogRanges bounds CheckoutRefundTx's search: at most this many ranges of
// ports.MaxLogBlockRange blocks back from the head.
const checkoutRefundLogRanges = 200

var checkoutRefundedTop = bindings.NewCheckoutDepositFactory().GetABI().Events["Refunded"].ID

// errRefundPaid tells RefundCheckout that the refund id is already paid with the same
// destination and amount: nothing is sent.
var errRefundPaid = errors.New("chain: the checkout refund is already on chain")

// readCheckoutFactoryConfig checks the configured factory at start-up (it has code, sweeps this
// USDC, is operated by this relayer, settles to it and pays refunds once each) and returns its
// deposit code hash.
func (a *CheckoutFactory) readCheckoutFactoryConfig(ctx context.Context) (common.Hash, error) {
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
	// A factory from before refunds were paid through it has no refundOf: it cannot guard a
	// refund against being paid twice, so it is refused rather than used.
	if _, err := callUnpack(ctx, a, address, f.PackRefundOf([32]byte{}), f.UnpackRefundOf); err != nil {
		return common.Hash{}, fmt.Errorf("chain: the CheckoutDepositFactory at %s has no refundOf (it predates refunds paid once through the factory; deploy the current contract): %w", address.Hex(), err)
	}
	hash, err := callUnpack(ctx, a, address, f.PackDepositCodeHash(), f.UnpackDepositCodeHash)
	return common.Hash(hash), err
}

// CheckoutFactoryAddress implements ports.CheckoutDeposits.
func (a *CheckoutFactory) CheckoutFactoryAddress() common.Address { return a.addrs.CheckoutFactory }

// CheckoutDepositAddress implements ports.CheckoutDeposits: CREATE2(factory, salt, code hash),
// what the factory's depositAddress answers, computed without a chain read.
func (a *CheckoutFactory) CheckoutDepositAddress(salt [32]byte) (common.Address, error) {
	if a.addrs.CheckoutFactory == (common.Address{}) {
		return common.Address{}, ErrCheckoutNotConfigured
	}
	return crypto.CreateAddress2(a.addrs.CheckoutFactory, salt, a.checkoutCodeHash[:]), nil
}

// SweepCheckoutDeposit implements ports.CheckoutDeposits through the factory's sweep. Concurrent
// sweeps of one salt and received total in this process send one transaction.
func (a *CheckoutFactory) SweepCheckoutDeposit(ctx context.Context, salt [32]byte, received int64) (common.Hash, error) {
	if a.addrs.CheckoutFactory == (common.Address{}) {
		return common.Hash{}, ErrCheckoutNotConfigured
	}
	if salt == ([32]byte{}) {
		return common.Hash{}, errors.New("chain: a checkout sweep needs a non-zero salt")
	}
	return a.relay.sendOnce(ctx, "checkout:sweep:"+hexutil.Encode(salt[:])+":"+strconv.FormatInt(received, 10), nil,
		call{to: &a.addrs.CheckoutFactory, data: a.checkoutFactory.PackSweep(salt)})
}

// CheckoutRefundOf implements ports.CheckoutDeposits through the factory's refundOf.
func (a *CheckoutFactory) CheckoutRefundOf(ctx context.Context, refundID [32]byte) (ports.CheckoutRefundRecord, error) {
	if a.addrs.CheckoutFactory == (common.Address{}) {
		return ports.CheckoutRefundRecord{}, ErrCheckoutNotConfigured
	}
	out, err := callUnpack(ctx, a, a.addrs.CheckoutFactory, a.checkoutFactory.PackRefundOf(refundID), a.checkoutFactory.UnpackRefundOf)
	if err != nil {
		return ports.CheckoutRefundRecord{}, err
	}
	return ports.CheckoutRefundRecord{To: out.To, AmountBaseUnits: out.Amount}, nil
}

// RefundCheckout implements ports.CheckoutDeposits through the factory's refund, which pulls the
// USDC from the relayer (the factory's settlement) under an unlimited allowance the relayer
// grants the factory the first time it is short (mined before the refund is estimated); where
// the relayer mints TestUSDC, it first mints what its float lacks (mintRefundShortfall). The
// record is read before sending and again under the relayer's lock, so a retry of a paid refund
// sends nothing; a refund still pending when a second is sent makes the second revert
// (CDF:refunded) on chain, never pay.
func (a *CheckoutFactory) RefundCheckout(ctx context.Context, refundID [32]byte, to common.Address, amountBaseUnits *big.Int) (common.Hash, error) {
	if a.addrs.CheckoutFactory == (common.Address{}) {
		return common.Hash{}, ErrCheckoutNotConfigured
	}
	if err := positive(amountBaseUnits); err != nil {
		return common.Hash{}, err
	}
	if refundID == ([32]byte{}) || to == (common.Address{}) {
		return common.Hash{}, errors.New("chain: a checkout refund needs a non-zero refund id and destination")
	}
	check := func(ctx context.Context) error {
		r, err := a.CheckoutRefundOf(ctx, refundID)
		switch {
		case err != nil:
			return err
		case !r.Paid():
			return nil
		case r.To == to && r.AmountBaseUnits.Cmp(amountBaseUnits) == 0:
			return errRefundPaid
		}
		return &ports.RevertError{Reason: "CDF:refunded", Meaning: fmt.Sprintf(
			"the refund id %s already paid %s base units to %s", hexutil.Encode(refundID[:]), r.AmountBaseUnits, r.To.Hex())}
	}
	err := check(ctx)
	if err == nil {
		err = a.mintRefundShortfall(ctx, amountBaseUnits)
	}
	if err == nil {
		err = a.approveCheckoutRefunds(ctx, amountBaseUnits)
	}
	if err == nil {
		var hash common.Hash
		hash, err = a.relay.sendOnce(ctx, "checkout:refund:"+hexutil.Encode(refundID[:]), check,
			call{to: &a.addrs.CheckoutFactory, data: a.checkoutFactory.PackRefund(refundID, to, amountBaseUnits)})
		if err == nil {
			return hash, nil
		}
	}
	if errors.Is(err, errRefundPaid) {
		return common.Hash{}, nil
	}
	return common.Hash{}, err
}

// approveCheckoutRefunds makes sure the relayer lets the factory pull amount USDC from it (an
// unlimited approval, sent once and mined before returning). Only the factory's refund pulls
// under it, and only the relayer may call refund.
func (a *CheckoutFactory) approveCheckoutRefunds(ctx context.Context, amount *big.Int) error {
	relayer, factory := a.relay.from, a.addrs.CheckoutFactory
	allowance, err := callUnpack(ctx, a, a.addrs.USDC, a.usdc.PackAllowance(relayer, factory), a.usdc.UnpackAllowance)
	if err != nil {
		return err
	}
	if allowance.Cmp(amount) >= 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, fundingStepTimeout)
	defer cancel()
	unlimited := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	hash, err := a.relay.sendOnce(ctx, "checkout:approve:"+factory.Hex(), nil, call{to: &a.addrs.USDC, data: a.usdc.PackApprove(factory, unlimited)})
	if err != nil {
		return fmt.Errorf("chain: approving the checkout factory for refunds: %w", err)
	}
	_, err = a.relay.waitMined(ctx, hash)
	return err
}

// CheckoutRefundTx implements ports.CheckoutDeposits: the factory's Refunded log of refundID,
// read a range at a time from the head back to fromBlock (at most checkoutRefundLogRanges
// ranges). Removed (reorged) logs are skipped.
func (a *CheckoutFactory) CheckoutRefundTx(ctx context.Context, refundID [32]byte, fromBlock uint64) (common.Hash, bool, error) {
	if a.addrs.CheckoutFactory == (common.Address{}) {
		return common.Hash{}, false, ErrCheckoutNotConfigured
	}
	head, err := a.LatestBlock(ctx)
	if err != nil {
		return common.Hash{}, false, err
	}
	for to, ranges := head, 0; to >= fromBlock && ranges < checkoutRefundLogRanges; ranges++ {
		from := fromBlock
		if to-fromBlock >= ports.MaxLogBlockRange {
			from = to - ports.MaxLogBlockRange + 1
		}
		logs, err := a.client.FilterLogs(ctx, ethereum.FilterQuery{
			FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(to),
			Addresses: []common.Address{a.addrs.CheckoutFactory},
			Topics:    [][]common.Hash{{checkoutRefundedTop}, {common.Hash(refundID)}},
		})
		if err != nil {
			return common.Hash{}, false, fmt.Errorf("chain: checkout refund logs %d..%d: %w", from, to, err)
		}
		for i := len(logs) - 1; i >= 0; i-- {
			if !logs[i].Removed {
				return logs[i].TxHash, true, nil
			}
		}
		if from == 0 {
			break
		}
		to = from - 1
	}
	return common.Hash{}, false, nil
}

// SandboxPayCheckoutDeposit implements ports.CheckoutDeposits: the sandbox's payer is the
// relayer. It mints the amount to itself, waits for the mint (the transfer is estimated against
// the latest block, as a claim's fund is), then transfers it to the deposit, so the watcher reads
// a sender where a bare mint would have none and a refund has an address to go back to.
func (a *CheckoutFactory) SandboxPayCheckoutDeposit(ctx context.Context, to common.Address, amountBaseUnits *big.Int) (common.Hash, common.Address, error) {
	if err := positive(amountBaseUnits); err != nil {
		return common.Hash{}, common.Address{}, err
	}
	relayer := a.relay.from
	mintCtx, cancel := context.WithTimeout(ctx, fundingStepTimeout)
	defer cancel()
	mint, err := a.relay.sendOnce(mintCtx, "", nil, call{to: &a.addrs.USDC, data: a.usdc.PackMint(relayer, amountBaseUnits)})
	if err != nil {
		return common.Hash{}, common.Address{}, fmt.Errorf("chain: minting TestUSDC for a sandbox payment: %w", err)
	}
	if _, err := a.relay.waitMined(mintCtx, mint); err != nil {
		return common.Hash{}, common.Address{}, err
	}
	hash, err := a.relay.sendOnce(ctx, "", nil, call{to: &a.addrs.USDC, data: a.usdc.PackTransfer(to, amountBaseUnits)})
	if err != nil {
		return common.Hash{}, common.Address{}, fmt.Errorf("chain: sending a sandbox payment: %w", err)
	}
	return hash, relayer, nil
}
