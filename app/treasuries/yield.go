package treasuries

import (
	"context"
	"strconv"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/treasury"
	"github.com/corridorhq/corridor/ledger"
)

// YieldRef is the ledger reference of one bucket's accrual for one UTC day: posting it twice is
// a no-op, so accrual is idempotent per bucket and day whoever runs it.
func YieldRef(bucketID, day string) string { return ledger.TreasuryYieldRef(bucketID) + ":" + day }

// AccrueYield books the simulated yield of every earning bucket of env's accounts for the
// account's current simulated day, when that day is after the account's creation day (the
// creation day itself earns nothing). A bucket whose balance cannot be read earns nothing that
// day: an unknown balance is never treated as zero, nor guessed.
func (s *Service) AccrueYield(ctx context.Context, env core.Environment) error {
	after := ""
	for {
		var accounts []treasury.Account
		err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
			var err error
			accounts, err = tx.Treasury().ListYieldAccounts(ctx, env, after, yieldBatch)
			return err
		})
		if err != nil {
			return err
		}
		for _, a := range accounts {
			day := a.Now(s.clock.Now())
			if treasury.Day(day) <= treasury.Day(a.CreatedAt) {
				continue
			}
			readings := s.readBalances(ctx, a)
			err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
				return s.accrueDays(ctx, tx, a, readings, []time.Time{day})
			})
			if err != nil {
				s.log.Warn("treasury: accrual failed", "accountId", a.ID, "error", err.Error())
			}
		}
		if len(accounts) < yieldBatch {
			return nil
		}
		after = accounts[len(accounts)-1].ID
	}
}

// accrueDays books, inside tx, one accrual per earning bucket and day: the bucket's live
// on-chain balance as read (once, before the transaction), × apyBps / 10000 / 365, rounded down (treasury.DailyYield), from
// platform:sandbox_yield to treasury:{bucketId}:yield. Simple interest: the yield lives on the
// ledger, not in the Safe, so it does not compound. A bucket's day booked before (by an earlier
// run, from the balance it read then) stays as it was, and does not keep the account's other
// buckets from their day: each bucket and day is posted in a savepoint of its own.
func (s *Service) accrueDays(ctx context.Context, tx txView, a treasury.Account, readings []treasury.Reading, days []time.Time) error {
	now := s.clock.Now()
	for i, b := range a.Buckets {
		if b.ApyBps <= 0 || !readings[i].Readable {
			continue
		}
		amount := treasury.DailyYield(readings[i].Balance, b.ApyBps)
		if amount <= 0 {
			continue
		}
		accounts, err := tx.Ledger().OpenAccounts(ctx, now, ledger.Share(ledger.PlatformSandboxYield(a.Environment, ledger.AssetUSDC), a.TenantID),
			ledger.TreasuryYield(a.Environment, ledger.AssetUSDC, a.TenantID, b.ID))
		if err != nil {
			return err
		}
		for _, d := range days {
			day := treasury.Day(d)
			err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
				_, _, err := tx.Ledger().Post(ctx, now, ledger.TransferSpec{
					Reference: YieldRef(b.ID, day), Type: ledger.TypePosted, Environment: a.Environment, Asset: ledger.AssetUSDC,
					Postings: ledger.Move(accounts[0].ID, accounts[1].ID, amount),
					Metadata: map[string]string{"source": "treasury.yield", "accountId": a.ID, "bucketId": b.ID, "day": day,
						"balanceBaseUnits": strconv.FormatInt(readings[i].Balance, 10), "apyBps": strconv.Itoa(b.ApyBps)},
				})
				return err
			})
			if err != nil && !core.HasCode(err, core.CodeLedgerReferenceConflict) {
				return err
			}
		}
	}
	return nil
}
