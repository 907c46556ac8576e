package recipients

import (
	"github.com/riverqueue/river"

	"corridor/app/kernel"
)

var _ kernel.Jobs = (*Service)(nil)

// RegisterWorkers adds the SMS outbox's workers: sending queued texts and purging the sandbox
// outbox.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &PurgeSMSOutboxWorker{Service: s})
	river.AddWorker(workers, &SMSSendWorker{Service: s})
}

// PeriodicJobs are the SMS outbox's retention purge.
func (s *Service) PeriodicJobs() []*river.PeriodicJob { return s.smsPeriodicJobs() }
