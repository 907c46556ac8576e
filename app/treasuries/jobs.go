package treasuries

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
)

var _ kernel.Jobs = (*Service)(nil)

// Intervals of the treasury jobs.
const (
	// RuleRunnerInterval is how often the runner looks for rules whose interval has passed; it
	// is also why a rule's interval is at least treasury.MinIntervalSeconds.
	RuleRunnerInterval = time.Minute
	// YieldAccrualInterval is how often accrual looks for a new simulated day to book; each
	// bucket and day is booked once, so running more often than daily only books sooner.
	YieldAccrualInterval = time.Hour
	runJobMaxAttempts    = 3
	runJobTimeout        = 5 * time.Minute
)

// RegisterWorkers adds the runner and accrual workers.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	kernel.AddWorker(workers, runJobTimeout, func(ctx context.Context, _ RunRulesArgs) error {
		_, err := s.RunRules(ctx, core.EnvTest, "")
		return err
	})
	kernel.AddWorker(workers, runJobTimeout, func(ctx context.Context, a RunAccountRulesArgs) error {
		_, err := s.RunRules(ctx, core.EnvTest, a.AccountID)
		return err
	})
	kernel.AddWorker(workers, runJobTimeout, func(ctx context.Context, _ AccrueYieldArgs) error { return s.AccrueYield(ctx, core.EnvTest) })
}

// PeriodicJobs are the rule runner and the daily accrual, in TEST only (treasury is sandbox
// only).
func (s *Service) PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(RuleRunnerInterval), func() (river.JobArgs, *river.InsertOpts) {
			return RunRulesArgs{}, &river.InsertOpts{MaxAttempts: runJobMaxAttempts, UniqueOpts: river.UniqueOpts{ByPeriod: RuleRunnerInterval}}
		}, &river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(YieldAccrualInterval), func() (river.JobArgs, *river.InsertOpts) {
			return AccrueYieldArgs{}, &river.InsertOpts{MaxAttempts: runJobMaxAttempts, UniqueOpts: river.UniqueOpts{ByPeriod: YieldAccrualInterval}}
		}, &river.PeriodicJobOpts{RunOnStart: true}),
	}
}

// RunRulesArgs is one pass of the rule runner over every TEST account.
type RunRulesArgs struct{}

// Kind names the job.
func (RunRulesArgs) Kind() string { return "treasury.run_rules" }

// RunAccountRulesArgs runs one account's rules now, after the sandbox clock helper moved its
// clock.
type RunAccountRulesArgs struct {
	AccountID string `json:"accountId"`
}

// Kind names the job.
func (RunAccountRulesArgs) Kind() string { return "treasury.run_account_rules" }

// AccrueYieldArgs is one accrual pass over every earning TEST bucket.
type AccrueYieldArgs struct{}

// Kind names the job.
func (AccrueYieldArgs) Kind() string { return "treasury.accrue_yield" }
