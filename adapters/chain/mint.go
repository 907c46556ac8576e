package chain

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/ports"
)

// relayerMintsUSDC reports whether the configured USDC is a TestUSDC whose minter is relayer
// (the dev and simulated chains). Circle's USDC has no minter() and reverts: not a minter.
func relayerMintsUSDC(ctx context.Context, r *reader, relayer common.Address) (bool, error) {
	out, err := r.call(ctx, r.addrs.USDC, r.usdc.PackMinter())
	var revert *ports.RevertError
	if errors.As(err, &revert) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	minter, err := r.usdc.UnpackMinter(out)
	return err == nil && minter == relayer, nil
}

// mintRefundShortfall mints, where the relayer mints TestUSDC, what its USDC lacks of a
// checkout refund's amount, and waits for the mint. The relayer's USDC is one float that
// claims fund from too (minting only what they lack), so on the dev and simulated chains a
// claim funded after a checkout's sweep could take the swept USDC its refund pulls, leaving the
// refund reverting until the next mint. Elsewhere nothing is sent: a short float makes the
// refund revert and its job retry until the operator tops the relayer up.
func (a *CheckoutFactory) mintRefundShortfall(ctx context.Context, amount *big.Int) error {
	relayer := a.relay.from
	balance, err := a.USDCBalance(ctx, relayer)
	if err != nil {
		return err
	}
	shortfall := new(big.Int).Sub(amount, balance)
	if shortfall.Sign() <= 0 {
		return nil
	}
	mints, err := relayerMintsUSDC(ctx, a.reader, relayer)
	if err != nil || !mints {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, fundingStepTimeout)
	defer cancel()
	hash, err := a.relay.sendOnce(ctx, "", nil, call{to: &a.addrs.USDC, data: a.usdc.PackMint(relayer, shortfall)})
	if err != nil {
		return err
	}
	_, err = a.relay.waitMined(ctx, hash)
	return err
}
