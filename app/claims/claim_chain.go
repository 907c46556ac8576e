package claims

import (
	"context"
	"errors"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/ports"
)

// RunClaimChain sends one escrow transaction for a claim when the claim still needs it, then
// records its hash and enqueues an indexer run. The claim's status changes only when the
// indexer sees the contract's event. Retries are safe: the adapter sends nothing when the
// contract already reflects the effect.
func (s *Service) RunClaimChain(ctx context.Context, claimID, action string) error {
	var c claim.Claim
	if err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		c, err = tx.Claims().LockClaim(ctx, claimID)
		return err
	}); err != nil {
		return err
	}
	esc, err := s.escrow(c.Environment)
	if err != nil {
		return err
	}
	id, err := claim.Bytes32(c.OnchainID)
	if err != nil {
		return err
	}
	hash, sent, err := s.sendClaimAction(ctx, esc, c, id, action)
	if !sent || err != nil {
		return err
	}
	kernel.CrashPoint(kernel.CrashClaimChainSent)
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		if hash != (common.Hash{}) {
			c, err := tx.Claims().LockClaim(ctx, claimID)
			if err != nil {
				return err
			}
			recordClaimTx(&c, action, hash.Hex())
			c.UpdatedAt = s.clock.Now()
			if err := saveClaim(ctx, tx, c); err != nil {
				return err
			}
		}
		return s.jobs.Enqueue(ctx, ClaimIndexArgs{Environment: string(c.Environment)}, ports.JobOptions{MaxAttempts: 3})
	})
}

// sendClaimAction sends action's transaction for c when the claim's state still calls for it.
// sent is false when there was nothing to send (the state moved on, or the contract refused a
// step the service can do without); the caller then records nothing.
func (s *Service) sendClaimAction(ctx context.Context, esc ports.ClaimEscrow, c claim.Claim, id [32]byte, action string) (hash common.Hash, sent bool, err error) {
	now := s.clock.Now()
	var revert *ports.RevertError
	switch action {
	case claimActionFund:
		if c.Status != claim.StatusOpen || c.Funded || c.Expired(now) {
			return hash, false, nil
		}
		meta, err := claim.Bytes32(c.MetadataHash)
		if err != nil {
			return hash, false, err
		}
		hash, err = esc.FundClaim(ctx, id, c.AmountBig(), c.ExpiresAt, meta)
		return hash, err == nil, err
	case claimActionLock:
		if c.Status != claim.StatusOpen || c.RedeemedAt == nil {
			return hash, false, nil
		}
		hash, err = esc.LockClaim(ctx, id)
		if errors.As(err, &revert) {
			// The lock only marks the claim as being paid out; a release works without it.
			s.log.Warn("claim escrow lock refused", "claimId", c.ID, "reason", revert.Reason)
			return hash, false, nil
		}
		return hash, err == nil, err
	case claimActionRelease:
		if c.DecisionHash == "" || (c.Status != claim.StatusOpen && c.Status != claim.StatusLocked) {
			return hash, false, nil
		}
		decision, err := claim.Bytes32(c.DecisionHash)
		if err != nil {
			return hash, false, err
		}
		hash, err = esc.ReleaseClaim(ctx, id, esc.SettlementAddress(), decision)
		return hash, err == nil, err
	case claimActionRefund:
		hash, err = s.refundOnChain(ctx, esc, c, id, now)
		return hash, err == nil, err
	case claimActionCancel:
		if c.Status != claim.StatusExpired || c.Funded {
			return hash, false, nil
		}
		hash, err = esc.CancelClaim(ctx, id)
		if errors.As(err, &revert) {
			// Funded meanwhile: the indexer's ClaimFunded takes the refund path instead.
			return hash, false, s.enqueueClaimIndex(ctx, c.Environment)
		}
		return hash, err == nil, err
	}
	return hash, false, errors.New("offramp: unknown claim chain action " + action)
}

// refundOnChain refunds an expired claim: an expiry the service decided before the contract's
// (the sandbox helper) first brings the on-chain expiry forward. A refund the contract still
// refuses (the grace period of a locked claim) fails the job, which River retries later.
func (s *Service) refundOnChain(ctx context.Context, esc ports.ClaimEscrow, c claim.Claim, id [32]byte, now time.Time) (common.Hash, error) {
	if c.Status.Absorbing() {
		return common.Hash{}, nil
	}
	on, err := esc.EscrowClaim(ctx, id)
	if err != nil {
		return common.Hash{}, err
	}
	if on.State == ports.EscrowFunded && on.ExpiresAt.After(now) && c.Status == claim.StatusExpired {
		if _, err := esc.ExpireClaimNow(ctx, id); err != nil {
			return common.Hash{}, err
		}
	}
	return esc.RefundClaim(ctx, id)
}

func recordClaimTx(c *claim.Claim, action, hash string) {
	switch action {
	case claimActionFund:
		c.FundTxHash = hash
	case claimActionLock:
		c.LockTxHash = hash
	case claimActionRelease:
		c.ReleaseTxHash = hash
	case claimActionRefund:
		c.RefundTxHash = hash
	case claimActionCancel:
		c.CancelTxHash = hash
	}
}

func (s *Service) enqueueClaimIndex(ctx context.Context, env core.Environment) error {
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		return s.jobs.Enqueue(ctx, ClaimIndexArgs{Environment: string(env)}, ports.JobOptions{MaxAttempts: 3})
	})
}
