package app

import (
	"github.com/riverqueue/river"
)

// RegisterWorkers adds every worker of the application to River's registry. Each capability
// registers its own in its own file.
func (a *App) RegisterWorkers(workers *river.Workers) {
	a.registerOfframpWorkers(workers)
	a.registerClaimWorkers(workers)
}

// PeriodicJobs are the jobs River schedules on an interval.
func (a *App) PeriodicJobs() []*river.PeriodicJob {
	var jobs []*river.PeriodicJob
	jobs = append(jobs, a.offrampPeriodicJobs()...)
	return append(jobs, a.claimPeriodicJobs()...)
}
