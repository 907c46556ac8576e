package mirror

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
)

// Timing of the ledger mirror's indexer.
const (
	// ChainIndexInterval is how often the periodic indexer runs per environment with a chain.
	ChainIndexInterval = 5 * time.Second
	// chainIndexTimeout bounds one run (maxIndexRangesPerRun ranges); the next run carries on.
	chainIndexTimeout = time.Minute
)

// ChainIndexArgs is one run of the ledger mirror's indexer for an environment.
type ChainIndexArgs struct {
	Environment string `json:"environment"`
}

// Kind names the job.
func (ChainIndexArgs) Kind() string { return "chain.index" }

// chainPeriodicJobs are the indexer's periodic jobs: one per environment that has a chain,
// deduplicated per interval so a slow run does not pile up twins.
func (s *Service) chainPeriodicJobs() []*river.PeriodicJob {
	var jobs []*river.PeriodicJob
	for _, env := range []core.Environment{core.EnvTest, core.EnvLive} {
		if _, err := s.chains.Chain(env); err != nil {
			continue
		}
		args := ChainIndexArgs{Environment: string(env)}
		jobs = append(jobs, river.NewPeriodicJob(river.PeriodicInterval(ChainIndexInterval),
			func() (river.JobArgs, *river.InsertOpts) {
				return args, &river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: ChainIndexInterval}}
			},
			&river.PeriodicJobOpts{RunOnStart: true}))
	}
	return jobs
}

// RegisterWorkers adds the indexer's worker.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	kernel.AddWorker(workers, chainIndexTimeout, func(ctx context.Context, a ChainIndexArgs) error {
		_, err := s.IndexChain(ctx, core.Environment(a.Environment))
		return err
	})
}

// PeriodicJobs are the indexer's runs (see chainPeriodicJobs).
func (s *Service) PeriodicJobs() []*river.PeriodicJob { return s.chainPeriodicJobs() }
