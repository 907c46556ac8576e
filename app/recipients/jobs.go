package recipients

import (
	"context"
	"github.com/riverqueue/river"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
)

var _ kernel.Jobs = (*Service)(nil)

// RegisterWorkers adds the SMS outbox's workers: sending queued texts and purging the sandbox
// outbox.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	kernel.AddWorker(workers, time.Minute, func(ctx context.Context, _ PurgeSMSOutboxArgs) error {
		_, err := s.PurgeSMSOutbox(ctx)
		return err
	})
	kernel.AddWorker(workers, smsSendTimeout, func(ctx context.Context, a SMSSendArgs) error { return s.SendQueuedSMS(ctx, a) })
}

// PeriodicJobs are the SMS outbox's retention purge.
func (s *Service) PeriodicJobs() []*river.PeriodicJob { return s.smsPeriodicJobs() }
