package safepay

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"corridor/app/kernel"
)

var _ kernel.Jobs = (*Service)(nil)

// RegisterWorkers adds the Safe payment execution worker.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &ExecutePaymentWorker{Service: s})
	river.AddWorker(workers, &ReapPaymentsWorker{Service: s})
	river.AddWorker(workers, &CustodySignWorker{Service: s})
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

// ExecutePaymentWorker works payment.execute jobs.
type ExecutePaymentWorker struct {
	river.WorkerDefaults[ExecutePaymentArgs]
	Service *Service
}

// Work runs one execution step.
func (w *ExecutePaymentWorker) Work(ctx context.Context, job *river.Job[ExecutePaymentArgs]) error {
	return kernel.StepResult(w.Service.RunExecution(ctx, job.Args.PaymentID))
}

// NextRetry retries soon, then less often: 2 s, 4 s, 8 s, … capped at paymentRetryCap.
func (w *ExecutePaymentWorker) NextRetry(job *river.Job[ExecutePaymentArgs]) time.Time {
	return kernel.RetryAt(job.Attempt, paymentRetryCap)
}

// Timeout bounds one run.
func (w *ExecutePaymentWorker) Timeout(*river.Job[ExecutePaymentArgs]) time.Duration {
	return paymentJobTimeout
}
