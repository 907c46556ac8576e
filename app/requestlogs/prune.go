package requestlogs

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core/requestlog"
)

// PruneInterval is how often the prune job runs: entries outlive Retention by at most this.
const PruneInterval = time.Hour

// maxPruneSlices bounds one run (each slice an hour of entries, requestlog's store); a run that
// stops early leaves the rest to the next, which begins with the oldest.
const maxPruneSlices = 200

// PruneArgs is the periodic job that deletes entries older than requestlog.Retention. It is a
// River job, so a run that dies is retried and runs are single-flight across replicas.
type PruneArgs struct{}

// Kind names the job.
func (PruneArgs) Kind() string { return "request_logs.prune" }

// PruneWorker runs one prune.
type PruneWorker struct {
	river.WorkerDefaults[PruneArgs]
	Service *Service
}

// Work deletes old entries slice by slice until none is left or the run's bound is reached.
func (w *PruneWorker) Work(ctx context.Context, _ *river.Job[PruneArgs]) error {
	_, err := w.Service.Prune(ctx)
	return err
}

// Timeout bounds one run.
func (w *PruneWorker) Timeout(*river.Job[PruneArgs]) time.Duration { return 5 * time.Minute }

// Prune deletes the entries recorded before now less requestlog.Retention, and says how many.
func (s *Service) Prune(ctx context.Context) (int, error) {
	before, total := s.clock.Now().Add(-requestlog.Retention), 0
	for i := 0; i < maxPruneSlices; i++ {
		n, err := s.logs.PruneRequestLogs(ctx, before)
		if err != nil || n == 0 {
			return total, err
		}
		total += n
	}
	return total, nil
}

var _ kernel.Jobs = (*Service)(nil)

// RegisterWorkers adds the prune worker.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &PruneWorker{Service: s})
}

// PeriodicJobs prunes every PruneInterval, and once at start.
func (s *Service) PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(PruneInterval),
			func() (river.JobArgs, *river.InsertOpts) { return PruneArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
}
