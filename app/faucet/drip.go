package faucet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

const (
	// dripConfirmTimeout bounds how long a sent drip may stay unmined before it is FAILED.
	dripConfirmTimeout = 15 * time.Minute
	// dripRecoveryGrace is how long an interrupted USDC send is looked for on chain before the
	// drip is FAILED (a transaction may be in the mempool and not yet in a block).
	dripRecoveryGrace = 2 * time.Minute
	// recoveryPollInterval is how soon an interrupted send is looked for again.
	recoveryPollInterval = 5 * time.Second
)

// RunDrip runs one step of a drip and says when to look again (0 = done). The job sends at most
// once per drip: the intent to send is committed before the send, the hash is committed before
// waiting for the receipt, and a run that finds the intent without a hash never sends again.
func (s *Service) RunDrip(ctx context.Context, tenantID, dripID string) (snooze time.Duration, err error) {
	d, err := s.lockedDrip(ctx, tenantID, dripID)
	if err != nil || d.Status.Terminal() {
		return 0, err
	}
	chain, err := s.chains.ChainFor(d.Environment, d.ChainID)
	if err != nil {
		return 0, err
	}
	switch {
	case d.TxHash != "":
		return s.confirmDrip(ctx, chain, d)
	case d.SendStartedAt != nil:
		return s.recoverDrip(ctx, chain, d)
	}
	return s.sendDrip(ctx, chain, d)
}

// sendDrip commits the intent, sends, and commits the hash.
func (s *Service) sendDrip(ctx context.Context, chain ports.Chain, d wallet.Drip) (time.Duration, error) {
	fromBlock, err := chain.LatestBlock(ctx)
	if err != nil {
		return 0, err
	}
	d, err = s.recordDrip(ctx, d.TenantID, d.ID, wallet.DripSendStarted, "", fromBlock, "")
	if errors.Is(err, errStepDone) {
		return receiptPollInterval, nil // another run is sending; look again shortly
	}
	if err != nil {
		return 0, err
	}
	to := common.HexToAddress(d.Address)
	var hash common.Hash
	if d.Asset == wallet.AssetETH {
		hash, err = chain.SendETH(ctx, to, dripAmount(d))
	} else {
		hash, err = chain.MintUSDC(ctx, to, dripAmount(d))
	}
	var revert *ports.RevertError
	if errors.As(err, &revert) { // refused at estimation: nothing was sent
		return 0, s.failDrip(ctx, d.TenantID, d.ID, "the faucet transaction would revert: "+revert.Reason)
	}
	if err != nil {
		return 0, err // perhaps sent: the retry takes the recovery path and never sends again
	}
	d, err = s.recordDrip(ctx, d.TenantID, d.ID, wallet.DripSent, hash.Hex(), 0, "")
	if errors.Is(err, errStepDone) {
		// A run that found the send started but not recorded adopted this mint from the chain
		// (recoverDrip), or the drip ended: look again, as that run does.
		return receiptPollInterval, nil
	}
	if err != nil {
		return 0, err
	}
	return s.confirmDrip(ctx, chain, d)
}

// confirmDrip records the receipt's outcome, or waits for it up to dripConfirmTimeout.
func (s *Service) confirmDrip(ctx context.Context, chain ports.Chain, d wallet.Drip) (time.Duration, error) {
	receipt, err := chain.Receipt(ctx, common.HexToHash(d.TxHash))
	if err != nil {
		return 0, err
	}
	switch receipt.Status {
	case ports.TxSucceeded:
		_, err := s.recordDrip(ctx, d.TenantID, d.ID, wallet.DripMined, d.TxHash, 0, "")
		return 0, ignoreDone(err)
	case ports.TxFailed:
		reason := "the faucet transaction reverted"
		if receipt.FailureReason != "" {
			reason += ": " + receipt.FailureReason
		}
		return 0, s.failDrip(ctx, d.TenantID, d.ID, reason)
	}
	if d.SendStartedAt != nil && s.clock.Now().Sub(*d.SendStartedAt) > dripConfirmTimeout {
		return 0, s.failDrip(ctx, d.TenantID, d.ID, fmt.Sprintf("the faucet transaction was not mined within %s", dripConfirmTimeout))
	}
	return receiptPollInterval, nil
}

// recoverDrip handles a send whose outcome was never recorded (the process stopped, or the
// node's answer was lost). A USDC mint leaves a Transfer log from the zero address, so the
// drip adopts a matching mint not claimed by another drip; ETH transfers leave none. Without
// evidence the drip is FAILED rather than sent again.
func (s *Service) recoverDrip(ctx context.Context, chain ports.Chain, d wallet.Drip) (time.Duration, error) {
	if d.Asset == wallet.AssetUSDC {
		hash, found, err := s.findMint(ctx, chain, d)
		if err != nil {
			return 0, err
		}
		if found {
			d, err = s.recordDrip(ctx, d.TenantID, d.ID, wallet.DripSent, hash.Hex(), 0, "")
			if errors.Is(err, errStepDone) {
				return receiptPollInterval, nil // the sender recorded its hash meanwhile: look again
			}
			if err != nil {
				return 0, err
			}
			return s.confirmDrip(ctx, chain, d)
		}
		if s.clock.Now().Sub(*d.SendStartedAt) < dripRecoveryGrace {
			return recoveryPollInterval, nil
		}
	}
	return 0, s.failDrip(ctx, d.TenantID, d.ID, "the faucet could not tell whether its transaction was sent and, to never fund twice, did not send again; request a new drip")
}

// findMint looks for a mint of exactly the drip's amount to its address since the block
// recorded before the send, skipping transactions another drip already recorded.
func (s *Service) findMint(ctx context.Context, chain ports.Chain, d wallet.Drip) (common.Hash, bool, error) {
	latest, err := chain.LatestBlock(ctx)
	if err != nil || latest < d.SendFromBlock {
		return common.Hash{}, false, err
	}
	to := min(latest, d.SendFromBlock+ports.MaxLogBlockRange-1)
	address := common.HexToAddress(d.Address)
	logs, err := chain.USDCTransferLogs(ctx, d.SendFromBlock, to, []common.Address{address})
	if err != nil {
		return common.Hash{}, false, err
	}
	for _, l := range logs {
		if l.From != (common.Address{}) || l.To != address || l.AmountBaseUnits.Cmp(dripAmount(d)) != 0 {
			continue
		}
		var used bool
		err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
			var err error
			used, err = tx.Drips().DripTxHashUsed(ctx, d.TenantID, d.ChainID, l.TxHash.Hex())
			return err
		})
		if err != nil {
			return common.Hash{}, false, err
		}
		if !used {
			return l.TxHash, true, nil
		}
	}
	return common.Hash{}, false, nil
}

// GiveUpDrip records FAILED after the job's attempts are exhausted.
func (s *Service) GiveUpDrip(ctx context.Context, tenantID, dripID string, _ error) error {
	return s.failDrip(ctx, tenantID, dripID, "the faucet could not reach the chain after repeated attempts")
}

func (s *Service) failDrip(ctx context.Context, tenantID, dripID, reason string) error {
	_, err := s.recordDrip(ctx, tenantID, dripID, wallet.DripFailedOnChain, "", 0, reason)
	return ignoreDone(err)
}

func (s *Service) lockedDrip(ctx context.Context, tenantID, id string) (wallet.Drip, error) {
	var d wallet.Drip
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		d, err = tx.Drips().LockDrip(ctx, tenantID, id)
		return err
	})
	return d, err
}

// recordDrip applies trigger to the locked row and returns the drip as saved. A drip another
// run already moved on (terminal, or the step already taken) answers errStepDone.
func (s *Service) recordDrip(ctx context.Context, tenantID, dripID string, trigger wallet.DripTrigger, txHash string, fromBlock uint64, reason string) (wallet.Drip, error) {
	var out wallet.Drip
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		d, err := tx.Drips().LockDrip(ctx, tenantID, dripID)
		if err != nil {
			return err
		}
		if d.Status.Terminal() {
			return errStepDone
		}
		next, err := d.Apply(trigger, s.clock.Now(), txHash, fromBlock, reason)
		if errors.Is(err, core.ErrInvalidState) {
			return errStepDone
		}
		if err != nil {
			return err
		}
		out = next
		return tx.Drips().UpdateDrip(ctx, next)
	})
	return out, err
}

func ignoreDone(err error) error {
	if errors.Is(err, errStepDone) {
		return nil
	}
	return err
}
