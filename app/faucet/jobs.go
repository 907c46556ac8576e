package faucet

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
)

// jobTimeout bounds one run of a drip job; waiting for a receipt snoozes instead.
const jobTimeout = time.Minute

// RegisterWorkers adds the drip worker (faucet.drip), which sends and confirms one drip.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &kernel.StepWorker[DripArgs]{Limit: jobTimeout,
		Step: func(ctx context.Context, a DripArgs) (time.Duration, error) {
			return s.RunDrip(ctx, a.TenantID, a.DripID)
		},
		GiveUp: func(ctx context.Context, a DripArgs, cause error) error {
			return s.GiveUpDrip(ctx, a.TenantID, a.DripID, cause)
		}})
}

// PeriodicJobs: the faucet schedules nothing on an interval.
func (s *Service) PeriodicJobs() []*river.PeriodicJob { return nil }
