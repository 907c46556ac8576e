package safepayments

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
)

var _ kernel.Jobs = (*Service)(nil)

// RegisterWorkers adds the Safe payment execution worker.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	kernel.AddRetryingWorker(workers, paymentJobTimeout, paymentRetryCap, func(ctx context.Context, a ExecutePaymentArgs) error {
		return kernel.StepResult(s.RunExecution(ctx, a.TenantID, a.PaymentID))
	})
	kernel.AddWorker(workers, 0, func(ctx context.Context, _ ReapPaymentsArgs) error {
		_, err := s.ReapStuckExecutions(ctx)
		return err
	})
	kernel.AddRetryingWorker(workers, custodySignTimeout, paymentRetryCap, func(ctx context.Context, a CustodySignArgs) error {
		return s.SignCustodial(ctx, a.TenantID, a.PaymentID)
	})
}

// PeriodicJobs is the stuck-execution reaper; executions themselves are enqueued by the
// transitions that need them.
func (s *Service) PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(PaymentReapInterval),
		func() (river.JobArgs, *river.InsertOpts) {
			return ReapPaymentsArgs{}, &river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: PaymentReapInterval}}
		}, &river.PeriodicJobOpts{RunOnStart: true})}
}

// ExecutePaymentArgs is the durable job that relays one payment's Safe transaction and follows
// it to COMPLETED or FAILED. It is enqueued in the transaction that makes the payment ready
// (the threshold signature), that claims it (explicit execute), or that completes the payment
// holding the previous nonce.
type ExecutePaymentArgs struct {
	// TenantID routes the job's reads to the payment's shard; empty in a job enqueued before
	// jobs carried it (the repository then finds the payment by id alone).
	TenantID  string `json:"tenantId,omitempty"`
	PaymentID string `json:"paymentId"`
}

// Kind names the job.
func (ExecutePaymentArgs) Kind() string { return "payment.execute" }

const (
	// paymentJobMaxAttempts bounds runs that end in an error (a chain node that does not
	// answer). Waiting for a receipt snoozes, which River does not count as an attempt; that
	// wait is bounded by paymentReceiptTimeout.
	paymentJobMaxAttempts = 10
	// paymentJobTimeout bounds one run.
	paymentJobTimeout = time.Minute
	// paymentRetryCap caps the delay between failed runs.
	paymentRetryCap = 2 * time.Minute
)
