package offramps

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
)

var _ kernel.Jobs = (*Service)(nil)

// RegisterWorkers adds the off-ramp payment workers: provider submission and polling, and
// the quote-expiry and hold recheck passes.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	jobs := newPayoutJobs(s)
	kernel.AddWorker(workers, offrampJobTimeout, func(ctx context.Context, a SubmitPayoutArgs) error { return jobs.RunSubmission(ctx, a.PaymentID) })
	river.AddWorker(workers, &PollPayoutWorker{Service: s})
	kernel.AddWorker(workers, offrampJobTimeout, func(ctx context.Context, a ReceiveDeliveryArgs) error { return payoutLedger{s}.receive(ctx, a) })
	kernel.AddWorker(workers, offrampJobTimeout, func(ctx context.Context, _ QuoteExpiryArgs) error { return jobs.ExpireQuoteSets(ctx) })
	kernel.AddWorker(workers, offrampJobTimeout, func(ctx context.Context, _ HoldRecheckArgs) error { return jobs.RecheckHeldPayments(ctx) })
}

// PeriodicJobs are the quote-expiry and hold recheck passes.
func (s *Service) PeriodicJobs() []*river.PeriodicJob { return newPayoutJobs(s).sweepPeriodicJobs() }

const (
	offrampJobMaxAttempts = 25
	offrampJobTimeout     = time.Minute
)

// SubmitPayoutArgs submits a FUNDS_LOCKED payment's attempt to its provider, after commit.
type SubmitPayoutArgs struct {
	PaymentID string `json:"paymentId"`
}

// Kind names the job.
func (SubmitPayoutArgs) Kind() string { return "offramp.submit" }

// PollPayoutArgs polls a submitted payment's provider until its status is final.
type PollPayoutArgs struct {
	PaymentID string `json:"paymentId"`
}

// Kind names the job.
func (PollPayoutArgs) Kind() string { return "offramp.poll" }

// PollPayoutWorker works offramp.poll jobs.
type PollPayoutWorker struct {
	river.WorkerDefaults[PollPayoutArgs]
	Service *Service
}

// DefaultPollWindow is how long a payout is polled without a final answer when
// OFFRAMP_POLL_WINDOW is unset.
const DefaultPollWindow = 72 * time.Hour

// Work polls once and snoozes until the next poll while the provider's answer is not final.
// Polling ends, and the payment is given up on (GiveUpPolling), when the answer is still not
// final once the poll window has passed since the job was enqueued (snoozes do not count as
// attempts, so without the window a provider that never finishes is polled forever), or when
// the poll fails on the job's last attempt.
func (w *PollPayoutWorker) Work(ctx context.Context, job *river.Job[PollPayoutArgs]) error {
	final, err := newPayoutJobs(w.Service).PollPayment(ctx, job.Args.PaymentID)
	switch {
	case err == nil && final:
		return nil
	case err != nil && job.Attempt < job.MaxAttempts:
		return err
	case err == nil && w.Service.clock.Now().Sub(job.CreatedAt) < w.Service.pollWindow:
		return river.JobSnooze(w.Service.pollInterval)
	}
	if gerr := newPayoutJobs(w.Service).GiveUpPolling(ctx, job.Args.PaymentID); gerr != nil {
		return errors.Join(err, gerr)
	}
	return nil
}

// Timeout bounds one run.
func (w *PollPayoutWorker) Timeout(*river.Job[PollPayoutArgs]) time.Duration {
	return offrampJobTimeout
}
