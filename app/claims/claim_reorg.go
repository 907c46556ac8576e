package claims

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// Pass names of the claim background passes in background_failures.
const (
	PassClaimIndex  = "claim.index"
	PassClaimExpiry = "claim.expiry" //nolint:gosec // a pass name, not a credential
)

// escrowTransferSeparator joins an event key and the id of the funding transfer it posted in
// one recorded block item.
const escrowTransferSeparator = "|"

// escrowEventKey names an escrow log in recorded blocks and background_failures.
func escrowEventKey(txHash string, logIndex uint) string {
	return txHash + ":" + strconv.FormatUint(uint64(logIndex), 10)
}

// undoEscrowReorg checks the escrow indexer's recorded blocks against the chain and, after a
// reorg, forgets the events of the dropped blocks (so a transaction mined again is applied
// again), steps their claims back where that is safe (stepBackEscrowEvent), and moves the cursor
// back to the fork point, in one transaction.
func (s escrowIndexer) undoEscrowReorg(ctx context.Context, ch ports.Chain, env core.Environment) error {
	chainID := ch.ChainID()
	var recent []ports.IndexedBlock
	if err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		recent, err = tx.ChainIndex().RecentIndexedBlocks(ctx, ports.IndexerClaimEscrow, env, chainID, ports.MaxReorgDepth)
		return err
	}); err != nil {
		return err
	}
	fork, reorged, err := kernel.ForkPoint(ctx, ch, ports.IndexerClaimEscrow, recent)
	if err != nil || !reorged {
		return err
	}
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		now := s.clock.Now()
		cur, err := tx.Claims().LockEscrowCursor(ctx, env, chainID, now)
		if err != nil {
			return err
		}
		dropped, err := tx.ChainIndex().DeleteIndexedBlocksFrom(ctx, ports.IndexerClaimEscrow, env, chainID, fork)
		if err != nil {
			return err
		}
		for i := len(dropped) - 1; i >= 0; i-- {
			for j := len(dropped[i].Items) - 1; j >= 0; j-- {
				if err := s.stepBackEscrowEvent(ctx, tx, env, chainID, dropped[i], dropped[i].Items[j], now); err != nil {
					return err
				}
			}
		}
		s.log.Warn("claim escrow indexer: chain reorganised; events of dropped blocks undone",
			"environment", env, "chainId", chainID, "forkBlock", fork, "droppedBlocks", len(dropped))
		if cur.NextBlock <= fork {
			return nil
		}
		cur.NextBlock, cur.UpdatedAt = fork, now
		return tx.Claims().SaveEscrowCursor(ctx, cur)
	})
}

// stepBackEscrowEvent undoes one event of a dropped block. The rule (docs/claims.md): a dropped
// funding of a claim that is still OPEN with its payment still PENDING_CLAIM steps back, since
// nothing has been built on it: the funding transfer is reversed, the reservation is held again
// and the claim is unfunded (a redeem then answers CLAIM_NOT_FUNDED until the funding is mined
// again). Any other dropped event, or a funding the claim has moved on from (locked, released,
// refunded, canceled), cannot be undone by the indexer: money left the escrow account on the
// strength of it. That claim is recorded as DEAD in background_failures for an operator, with
// an error log line. Either way the event is forgotten, so the transaction, mined again, is
// applied again.
func (s escrowIndexer) stepBackEscrowEvent(ctx context.Context, tx txView, env core.Environment, chainID int64, b ports.IndexedBlock, item string, now time.Time) error {
	key, transferID, _ := strings.Cut(item, escrowTransferSeparator)
	txHash, index, ok := strings.Cut(key, ":")
	logIndex, err := strconv.ParseUint(index, 10, 32)
	if !ok || err != nil {
		return fmt.Errorf("claim escrow indexer: corrupt recorded item %q of block %d", item, b.Number)
	}
	claimID, kind, found, err := tx.Claims().DeleteEscrowEvent(ctx, chainID, txHash, uint(logIndex))
	if err != nil || !found {
		return err
	}
	c, err := tx.Claims().LockClaim(ctx, claimID)
	if err != nil {
		return err
	}
	pay, err := tx.Offramp().LockPayment(ctx, c.PaymentID)
	if err != nil {
		return err
	}
	switch {
	case kind == claim.EventExpiryShortened:
		return nil
	case kind == claim.EventFunded && transferID != "" && c.Funded && c.Status == claim.StatusOpen && pay.Status == offramp.StatusPendingClaim:
		return s.unfundClaim(ctx, tx, now, &c, &pay, transferID, b)
	}
	f, err := tx.ChainIndex().RecordFailure(ctx, PassClaimIndex, "reorg:"+claimID+":"+key, env,
		fmt.Sprintf("a reorg dropped block %d (%s) holding the claim's %s event after the claim moved on (claim %s, payment %s)", b.Number, b.Hash, kind, c.Status, pay.Status), 1, now)
	if err != nil {
		return err
	}
	s.log.Error("claim escrow indexer: a reorg dropped an event the claim has moved on from; an operator must reconcile it",
		"environment", env, "claimId", claimID, "event", key, "kind", kind, "claimStatus", c.Status, "paymentStatus", pay.Status, "attempts", f.Attempts)
	return nil
}

// unfundClaim steps a claim whose funding was dropped back to OPEN and unfunded, with its
// payment's reservation held again (docs/decisions/ledger.md: reserved, not funded).
func (s escrowIndexer) unfundClaim(ctx context.Context, tx txView, now time.Time, c *claim.Claim, pay *offramp.Payment, fundingID string, b ports.IndexedBlock) error {
	if _, err := s.payments.Post(ctx, tx.Ledger(), now, *pay, ledger.TransferSpec{Reference: "offramp:" + pay.ID + ":claim-reorg:" + fundingID,
		Type: ledger.TypeReversal, ReversedID: fundingID,
		Metadata: map[string]string{"claimId": c.ID, "droppedBlockNumber": strconv.FormatUint(b.Number, 10), "droppedBlockHash": b.Hash}}); err != nil {
		return err
	}
	accs, err := tx.Ledger().OpenAccounts(ctx, now, ledger.TenantAvailable(pay.Environment, kernel.ServiceAsset, pay.SenderTenantID), claimEscrowSpec(*c))
	if err != nil {
		return err
	}
	pay.Reservation++
	hold, err := s.payments.Post(ctx, tx.Ledger(), now, *pay, ledger.TransferSpec{Reference: pay.LedgerRef("reserve", pay.Reservation),
		Type: ledger.TypePending, Postings: ledger.Move(accs[0].ID, accs[1].ID, pay.SourceAmountBaseUnits),
		Metadata: map[string]string{"claimId": c.ID}})
	if err != nil {
		return err
	}
	pay.HoldTransferID, pay.UpdatedAt = hold.ID, now
	c.Funded, c.FundTxHash, c.UpdatedAt = false, "", now
	if err := saveClaim(ctx, tx, *c); err != nil {
		return err
	}
	s.log.Warn("claim escrow indexer: a reorg dropped a claim's funding; the claim is unfunded again",
		"claimId", c.ID, "paymentId", pay.ID, "droppedBlockNumber", b.Number)
	return s.payments.SavePayment(ctx, tx, *pay)
}
