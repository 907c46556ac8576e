package wallets

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// DeployWalletArgs is the durable job that deploys one wallet's Safe.
type DeployWalletArgs struct {
	// TenantID routes the job's reads to the wallet's shard; empty in a job enqueued before
	// jobs carried it (the repository then finds the wallet by id alone).
	TenantID string `json:"tenantId,omitempty"`
	WalletID string `json:"walletId"`
}

// Kind names the job.
func (DeployWalletArgs) Kind() string { return "wallet.deploy" }

const (
	// deployJobMaxAttempts bounds job runs that end in an error (a chain that does not answer,
	// a deployment the node refuses). Submissions are bounded separately by
	// wallet.MaxDeployAttempts.
	deployJobMaxAttempts = 8
	// deployTimeout bounds how long a wallet may wait for its deployment to be mined (waiting
	// snoozes the job, which River does not count as an attempt).
	deployTimeout = 15 * time.Minute
	// receiptPollInterval is how soon a job looks again at a transaction still pending.
	receiptPollInterval = time.Second
)

// errStepDone: another run already moved the object on; this run has nothing left to do.
var errStepDone = errors.New("step already done")

// DeployWallet runs one step of a wallet's deployment and says when to look again (0 = done).
// Chain calls happen outside any transaction: the wallet is loaded in one, the chain is asked,
// and the outcome is recorded in another with the row locked and the state checked again, so a
// retried or concurrent run is harmless (DeploySafe itself is idempotent per address).
func (s *Service) DeployWallet(ctx context.Context, tenantID, walletID string) (snooze time.Duration, err error) {
	w, err := s.lockedWallet(ctx, tenantID, walletID)
	if err != nil || w.Status.Terminal() {
		return 0, err
	}
	chain, err := s.chains.ChainFor(w.Environment, w.ChainID)
	if err != nil {
		return 0, err
	}
	address := common.HexToAddress(w.Address)
	if deployed, err := chain.IsDeployed(ctx, address); err != nil {
		return 0, err
	} else if deployed {
		return 0, s.recordDeploy(ctx, tenantID, walletID, wallet.TriggerConfirmed, "", "")
	}
	if w.Status == wallet.StatusDeploying && w.DeployTxHash != "" {
		receipt, err := chain.Receipt(ctx, common.HexToHash(w.DeployTxHash))
		if err != nil {
			return 0, err
		}
		switch receipt.Status {
		case ports.TxPending:
			return s.deployPending(ctx, w)
		case ports.TxSucceeded:
			// Mined, yet no code at the address (checked above): the factory deployed elsewhere.
			return 0, s.recordDeploy(ctx, tenantID, walletID, wallet.TriggerGaveUp, "", "the deployment was mined but no Safe is at the predicted address")
		}
		// TxFailed: submit again below while attempts remain.
	}
	if w.DeployAttempts >= wallet.MaxDeployAttempts {
		return 0, s.recordDeploy(ctx, tenantID, walletID, wallet.TriggerGaveUp, "",
			fmt.Sprintf("the deployment failed %d times", w.DeployAttempts))
	}
	return s.submitDeploy(ctx, chain, w)
}

// submitDeploy sends the factory transaction, records it, and looks at its receipt once.
func (s *Service) submitDeploy(ctx context.Context, chain ports.Chain, w wallet.Wallet) (time.Duration, error) {
	hash, got, err := chain.DeploySafe(ctx, safeConfigOf(w))
	if err != nil {
		return 0, err
	}
	kernel.CrashPoint(kernel.CrashSafeDeploymentSent)
	if got != common.HexToAddress(w.Address) {
		return 0, s.recordDeploy(ctx, w.TenantID, w.ID, wallet.TriggerGaveUp, "",
			"the chain's Safe factory deploys this wallet to a different address than the one predicted")
	}
	if hash == (common.Hash{}) { // already deployed: nothing was sent
		return 0, s.recordDeploy(ctx, w.TenantID, w.ID, wallet.TriggerConfirmed, "", "")
	}
	trigger := wallet.TriggerSubmitted
	if w.Status == wallet.StatusDeploying {
		trigger = wallet.TriggerResubmitted
	}
	if err := s.recordDeploy(ctx, w.TenantID, w.ID, trigger, hash.Hex(), ""); err != nil {
		return 0, err
	}
	receipt, err := chain.Receipt(ctx, hash)
	switch {
	case err != nil:
		return 0, err
	case receipt.Status == ports.TxPending:
		return receiptPollInterval, nil
	}
	// Mined (or failed): the next step confirms by the code at the address, or resubmits.
	return s.DeployWallet(ctx, w.TenantID, w.ID)
}

// deployPending waits for a submitted deployment, up to deployTimeout after creation.
func (s *Service) deployPending(ctx context.Context, w wallet.Wallet) (time.Duration, error) {
	if s.clock.Now().Sub(w.CreatedAt) > deployTimeout {
		return 0, s.recordDeploy(ctx, w.TenantID, w.ID, wallet.TriggerGaveUp, "",
			fmt.Sprintf("the deployment was not mined within %s", deployTimeout))
	}
	return receiptPollInterval, nil
}

// GiveUpDeploy records FAILED after the job's attempts are exhausted.
func (s *Service) GiveUpDeploy(ctx context.Context, tenantID, walletID string, cause error) error {
	reason := "the chain did not accept the deployment after repeated attempts"
	var revert *ports.RevertError
	if errors.As(cause, &revert) {
		reason = "the deployment would revert: " + revert.Reason
	}
	return s.recordDeploy(ctx, tenantID, walletID, wallet.TriggerGaveUp, "", reason)
}

// lockedWallet loads a wallet by id in its own short transaction.
func (s *Service) lockedWallet(ctx context.Context, tenantID, id string) (wallet.Wallet, error) {
	var w wallet.Wallet
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		w, err = tx.Wallets().LockWallet(ctx, tenantID, id)
		return err
	})
	return w, err
}

// recordDeploy applies trigger to the locked row. A wallet that another run already finished
// is left alone; a transition the state machine refuses otherwise is an error.
func (s *Service) recordDeploy(ctx context.Context, tenantID, walletID string, trigger wallet.Trigger, txHash, reason string) error {
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		w, err := tx.Wallets().LockWallet(ctx, tenantID, walletID)
		if err != nil {
			return err
		}
		if w.Status.Terminal() {
			return errStepDone
		}
		next, err := w.Apply(trigger, s.clock.Now(), txHash, reason)
		if err != nil {
			return err
		}
		return tx.Wallets().UpdateWallet(ctx, next)
	})
	if errors.Is(err, errStepDone) {
		return nil
	}
	if errors.Is(err, core.ErrInvalidState) {
		return fmt.Errorf("wallets: wallet %s: %w", walletID, err)
	}
	return err
}
