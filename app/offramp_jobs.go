package app

import "github.com/riverqueue/river"

// registerOfframpWorkers adds the off-ramp workers (provider submission and polling, expiries).
func (a *App) registerOfframpWorkers(workers *river.Workers) {}

// offrampPeriodicJobs are the off-ramp's periodic jobs.
func (a *App) offrampPeriodicJobs() []*river.PeriodicJob { return nil }
