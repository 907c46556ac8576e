package offramps

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/core/offramp"
)

// Cadence of the off-ramp's periodic passes (defaults; configuration sets them).
const (
	// DefaultQuoteExpiryInterval is how often the quote-expiry pass runs.
	DefaultQuoteExpiryInterval = 10 * time.Second
	// DefaultHoldRecheckInterval is how often the hold recheck pass runs, and a held
	// payment's first backoff; maxHoldRecheckBackoff caps its doubling.
	DefaultHoldRecheckInterval = 30 * time.Second
	maxHoldRecheckBackoff      = time.Hour
	// DefaultPhoneReverifyAfter is how long a phone alias's verification holds for payments.
	DefaultPhoneReverifyAfter = 365 * 24 * time.Hour
	// maxSweepPayments bounds the payments one pass works on; the next pass carries on.
	maxSweepPayments = 100
)

// ExpireQuoteSets is the periodic quote-expiry pass (docs/api.md: AWAITING_RECIPIENT_CONFIRMATION,
// quote expiry → POLICY_CHECK, a fresh set produced). Each payment awaiting confirmation with
// no usable quote left has its set marked EXPIRED and goes through the composer again, in its
// own unit of work: a payment that fails is logged and tried again by the next pass, and the
// pass carries on with the rest.
func (s payoutJobs) ExpireQuoteSets(ctx context.Context) error {
	var ids []string
	if err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		ids, err = tx.Offramp().ExpiredQuotePaymentIDs(ctx, s.clock.Now(), maxSweepPayments)
		return err
	}); err != nil {
		return err
	}
	for _, id := range ids {
		err := s.preparedUnit(ctx, []string{id}, func(ctx context.Context, tx txView) error {
			now := s.clock.Now()
			pay, err := tx.Offramp().LockPayment(ctx, id)
			if err != nil || pay.Status != offramp.StatusAwaitingRecipientConfirmation {
				return err
			}
			quotes, err := tx.Offramp().ActiveQuotes(ctx, pay.SenderTenantID, pay.ID)
			if err != nil {
				return err
			}
			for _, q := range quotes {
				if q.Usable(now) {
					return nil // requoted since the list was read
				}
			}
			return s.requoteExpired(ctx, tx, now, &pay)
		})
		if err != nil && ctx.Err() != nil {
			return err
		}
		if err != nil {
			s.log.Error("offramp: quote expiry failed for a payment; the next pass tries again", "paymentId", id, "error", err.Error())
		}
	}
	return nil
}

// selfClearingHolds are the hold reasons whose cause may pass without anyone acting on the
// payment (docs/api.md: provider recovers, outage passes, operator tops up liquidity): the recheck
// pass re-runs the composer for payments held on them.
var selfClearingHolds = []offramp.HoldReason{offramp.HoldProviderUnavailable, offramp.HoldPolicySubsystemError,
	offramp.HoldInsufficientRouteLiquidity}

// RecheckHeldPayments is the periodic hold recheck pass: for at most maxSweepPayments held
// payments whose backoff has passed, oldest first, the composer runs again (a fresh quote
// set when the cause has passed, the same hold otherwise). A payment still held backs off,
// doubling from the pass interval up to an hour; one that left its hold is forgotten. Each
// payment is its own unit of work; a failure is logged and the pass carries on.
func (s payoutJobs) RecheckHeldPayments(ctx context.Context) error {
	var ids []string
	if err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		ids, err = tx.Offramp().RecheckDueHeldPaymentIDs(ctx, s.clock.Now(), selfClearingHolds, maxSweepPayments)
		return err
	}); err != nil {
		return err
	}
	for _, id := range ids {
		err := s.preparedUnit(ctx, []string{id}, func(ctx context.Context, tx txView) error {
			now := s.clock.Now()
			pay, err := tx.Offramp().LockPayment(ctx, id)
			if err != nil {
				return err
			}
			if held(pay.Status) {
				if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigHoldCleared}, now); err != nil {
					return err
				}
				if err := s.runPolicyCheck(ctx, tx, now, &pay); err != nil {
					return err
				}
				if err := savePayment(ctx, tx, pay); err != nil {
					return err
				}
			}
			if held(pay.Status) {
				return tx.Offramp().BackOffHoldRecheck(ctx, pay.SenderTenantID, pay.ID, now, s.holdRecheckInterval, maxHoldRecheckBackoff)
			}
			return tx.Offramp().ClearHoldRecheck(ctx, pay.SenderTenantID, pay.ID)
		})
		if err != nil && ctx.Err() != nil {
			return err
		}
		if err != nil {
			s.log.Error("offramp: hold recheck failed for a payment; the next pass tries again", "paymentId", id, "error", err.Error())
		}
	}
	return nil
}

func held(st offramp.Status) bool {
	return st == offramp.StatusPayoutSelectionRequired || st == offramp.StatusComplianceHold
}

// HoldRecheckArgs is one hold recheck pass.
type HoldRecheckArgs struct{}

// Kind names the job.
func (HoldRecheckArgs) Kind() string { return "offramp.hold_recheck" }

// QuoteExpiryArgs is one quote-expiry pass.
type QuoteExpiryArgs struct{}

// Kind names the job.
func (QuoteExpiryArgs) Kind() string { return "offramp.quote_expiry" }

// sweepPeriodicJobs are the off-ramp payments' own passes.
func (s payoutJobs) sweepPeriodicJobs() []*river.PeriodicJob {
	every, recheck := s.quoteExpiryInterval, s.holdRecheckInterval
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(every),
		func() (river.JobArgs, *river.InsertOpts) {
			return QuoteExpiryArgs{}, &river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: every}}
		}, &river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(recheck),
			func() (river.JobArgs, *river.InsertOpts) {
				return HoldRecheckArgs{}, &river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: recheck}}
			}, &river.PeriodicJobOpts{RunOnStart: true})}
}
