package invoices

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"corridor/app/kernel"
	"corridor/core"
)

var _ kernel.Jobs = (*Service)(nil)

const (
	pollJobMaxAttempts = 3
	pollJobTimeout     = 2 * time.Minute
)

// RegisterWorkers adds the poller's workers.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &PollInvoicesWorker{Service: s})
	river.AddWorker(workers, &PollInvoiceWorker{Service: s})
}

// PeriodicJobs is the balance poller, in TEST only (invoices are sandbox only).
func (s *Service) PeriodicJobs() []*river.PeriodicJob {
	every := s.pollInterval
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(every), func() (river.JobArgs, *river.InsertOpts) {
			return PollInvoicesArgs{}, &river.InsertOpts{MaxAttempts: pollJobMaxAttempts, UniqueOpts: river.UniqueOpts{ByPeriod: every}}
		}, &river.PeriodicJobOpts{RunOnStart: true}),
	}
}

// PollInvoicesArgs is one pass of the balance poller over every watched TEST invoice.
type PollInvoicesArgs struct{}

// Kind names the job.
func (PollInvoicesArgs) Kind() string { return "invoices.poll" }

// PollInvoicesWorker works invoices.poll jobs.
type PollInvoicesWorker struct {
	river.WorkerDefaults[PollInvoicesArgs]
	Service *Service
}

// Work runs one pass.
func (w *PollInvoicesWorker) Work(ctx context.Context, _ *river.Job[PollInvoicesArgs]) error {
	return w.Service.PollInvoices(ctx, core.EnvTest)
}

// Timeout bounds one pass.
func (w *PollInvoicesWorker) Timeout(*river.Job[PollInvoicesArgs]) time.Duration {
	return pollJobTimeout
}

// PollInvoiceArgs polls one invoice now (after the sandbox clock helper moved its clock).
type PollInvoiceArgs struct {
	InvoiceID string `json:"invoiceId"`
}

// Kind names the job.
func (PollInvoiceArgs) Kind() string { return "invoices.poll_one" }

// PollInvoiceWorker works invoices.poll_one jobs.
type PollInvoiceWorker struct {
	river.WorkerDefaults[PollInvoiceArgs]
	Service *Service
}

// Work polls the invoice.
func (w *PollInvoiceWorker) Work(ctx context.Context, job *river.Job[PollInvoiceArgs]) error {
	return w.Service.PollInvoice(ctx, job.Args.InvoiceID)
}

// Timeout bounds one poll.
func (w *PollInvoiceWorker) Timeout(*river.Job[PollInvoiceArgs]) time.Duration { return pollJobTimeout }
