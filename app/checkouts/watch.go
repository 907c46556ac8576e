package checkouts

import (
	"context"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// Bounds of the watcher.
const (
	watchBatch    = 100
	watchMaxPages = 50
	// watchMaxRanges bounds one reading of an address's history (MaxLogBlockRange blocks each).
	watchMaxRanges = 50
)

// WatchAll is one pass of the watcher over env's watched checkouts. One checkout's failure is
// logged and does not stop the pass.
func (s *Service) WatchAll(ctx context.Context, env core.Environment) error {
	if !s.Available(env) {
		return nil
	}
	after := ""
	for range watchMaxPages {
		var page []checkout.Checkout
		err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
			var err error
			page, err = tx.Checkouts().ListWatched(ctx, env, s.clock.Now().UTC(), after, watchBatch)
			return err
		})
		if err != nil {
			return err
		}
		for _, c := range page {
			if err := s.WatchOne(ctx, c.ID); err != nil {
				s.log.Warn("checkout: watch failed", "checkoutId", c.ID, "error", err.Error())
			}
			after = c.ID
		}
		if len(page) < watchBatch {
			return nil
		}
	}
	return nil
}

// WatchOne reads one checkout's deposit address outside any unit of work, then, under the
// checkout's lock, applies the reading (checkout.Observe), credits newly confirmed funds to
// the merchant's service balance and records the status reached. Once every transfer seen is
// confirmed, the deposit's balance is swept into the service's own account.
func (s *Service) WatchOne(ctx context.Context, id string) error {
	c, err := s.Public(ctx, id)
	if err != nil {
		return err
	}
	chain, deposits, err := s.deposits(c.Environment)
	if err != nil {
		return err
	}
	obs, balance, err := s.read(ctx, chain, c)
	if err != nil {
		return err
	}
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		locked, err := tx.Checkouts().LockCheckout(ctx, c.TenantID, id)
		if err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		next, changed := locked.Observe(obs, now)
		if credit := obs.Confirmed - next.Credited; credit > 0 {
			if err := s.credit(ctx, tx, next, obs.Confirmed, credit); err != nil {
				return err
			}
			next.Credited = obs.Confirmed
		}
		if !changed && next.Received == locked.Received && next.Credited == locked.Credited &&
			next.Confirmations == locked.Confirmations && next.TransactionHash == locked.TransactionHash {
			return nil
		}
		next.UpdatedAt = now
		if err := tx.Checkouts().UpdateCheckout(ctx, next); err != nil {
			return err
		}
		if changed {
			return recordPayment(ctx, tx, next)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if balance.Sign() > 0 && obs.Seen == obs.Confirmed {
		hash, err := deposits.SweepCheckoutDeposit(ctx, checkout.Salt(id), obs.Seen)
		if err != nil {
			return fmt.Errorf("checkout %s: sweep: %w", id, err)
		}
		kernel.CrashPoint(kernel.CrashCheckoutSweepSent)
		return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
			locked, err := tx.Checkouts().LockCheckout(ctx, c.TenantID, id)
			if err != nil {
				return err
			}
			locked.SweepTxHash, locked.UpdatedAt = hash.Hex(), s.clock.Now().UTC()
			return tx.Checkouts().UpdateCheckout(ctx, locked)
		})
	}
	return nil
}

// credit books amount newly confirmed for c to the merchant's service balance. The reference
// names the confirmed total reached, so a retried pass books nothing twice.
func (s *Service) credit(ctx context.Context, tx txView, c checkout.Checkout, total, amount int64) error {
	now := s.clock.Now().UTC()
	accs, err := tx.Ledger().OpenAccounts(ctx, now, ledger.Share(ledger.World(c.Environment, kernel.ServiceAsset, worldRail), c.TenantID),
		ledger.TenantAvailable(c.Environment, kernel.ServiceAsset, c.TenantID))
	if err != nil {
		return err
	}
	_, _, err = tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: "checkout:" + c.ID + ":credit:" + strconv.FormatInt(total, 10),
		Type: ledger.TypePosted, Environment: c.Environment, Asset: kernel.ServiceAsset, Postings: ledger.Move(accs[0].ID, accs[1].ID, amount),
		Metadata: map[string]string{"checkoutId": c.ID, "depositAddress": c.DepositAddress}}.MustValidate())
	return err
}

// read sums the USDC transfers to the deposit address since the checkout's start block (every
// one, and those at least the configured confirmations deep) and reads its current balance.
func (s *Service) read(ctx context.Context, chain ports.Chain, c checkout.Checkout) (checkout.Observation, *big.Int, error) {
	unavailable := func(err error) error { return fmt.Errorf("checkout %s: reading the chain: %w", c.ID, err) }
	address := common.HexToAddress(c.DepositAddress)
	head, err := chain.LatestBlock(ctx)
	if err != nil {
		return checkout.Observation{}, nil, unavailable(err)
	}
	var obs checkout.Observation
	from := c.StartBlock
	for range watchMaxRanges {
		if from > head {
			break
		}
		to := min(head, from+ports.MaxLogBlockRange-1)
		logs, err := chain.USDCTransferLogs(ctx, from, to, []common.Address{address})
		if err != nil {
			return checkout.Observation{}, nil, unavailable(err)
		}
		for _, l := range logs {
			if l.To != address || l.AmountBaseUnits == nil || !l.AmountBaseUnits.IsInt64() {
				continue
			}
			amount := l.AmountBaseUnits.Int64()
			depth := int64(head-l.BlockNumber) + 1 //nolint:gosec // a log is at or below the head
			obs.Seen += amount
			if uint64(depth) >= s.cfg.Confirmations { //nolint:gosec // positive
				obs.Confirmed += amount
			}
			if obs.Payer == "" && l.From != (common.Address{}) { // a mint has no payer to refund
				obs.Payer = l.From.Hex()
			}
			obs.LastTx, obs.LastConfirmations = strings.ToLower(l.TxHash.Hex()), depth
		}
		from = to + 1
	}
	balance, err := chain.USDCBalance(ctx, address)
	if err != nil {
		return checkout.Observation{}, nil, unavailable(err)
	}
	return obs, balance, nil
}
