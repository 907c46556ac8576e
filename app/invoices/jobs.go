package invoices

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
)

var _ kernel.Jobs = (*Service)(nil)

const (
	pollJobMaxAttempts = 3
	pollJobTimeout     = 2 * time.Minute
)

// RegisterWorkers adds the poller's workers.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	kernel.AddWorker(workers, pollJobTimeout, func(ctx context.Context, _ PollInvoicesArgs) error { return s.PollInvoices(ctx, core.EnvTest) })
	kernel.AddWorker(workers, pollJobTimeout, func(ctx context.Context, a PollInvoiceArgs) error { return s.PollInvoice(ctx, a.InvoiceID) })
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

// PollInvoiceArgs polls one invoice now (after the sandbox clock helper moved its clock).
type PollInvoiceArgs struct {
	InvoiceID string `json:"invoiceId"`
}

// Kind names the job.
func (PollInvoiceArgs) Kind() string { return "invoices.poll_one" }
