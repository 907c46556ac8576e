package recipients

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// DefaultSMSOutboxRetention is how long the sandbox outbox keeps a message by default.
const DefaultSMSOutboxRetention = 7 * 24 * time.Hour

// PurgeSMSOutboxArgs is the periodic job that deletes outbox messages older than the retention.
type PurgeSMSOutboxArgs struct{}

// Kind names the job.
func (PurgeSMSOutboxArgs) Kind() string { return "sms.outbox_purge" }

const (
	smsPurgeBatch      = 1000
	smsPurgeMaxBatches = 100
	smsPurgeInterval   = 10 * time.Minute
)

// PurgeSMSOutbox deletes the outbox messages older than the retention, at most 100 batches of
// 1000 per run, and says how many it deleted. Without an outbox it does nothing.
func (s *Service) PurgeSMSOutbox(ctx context.Context) (int, error) {
	if s.smsOutbox == nil {
		return 0, nil
	}
	before := s.clock.Now().Add(-s.smsOutboxRetention)
	total := 0
	for i := 0; i < smsPurgeMaxBatches; i++ {
		n, err := s.smsOutbox.PurgeSMS(ctx, before, smsPurgeBatch)
		total += n
		if err != nil || n < smsPurgeBatch {
			return total, err
		}
	}
	return total, nil
}

func (s *Service) smsPeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(smsPurgeInterval),
			func() (river.JobArgs, *river.InsertOpts) { return PurgeSMSOutboxArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
}
