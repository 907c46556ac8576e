package kernel

import "github.com/riverqueue/river"

// Jobs is what a capability with background work implements: it adds its River workers to the
// registry and lists the jobs River schedules on an interval. Wiring collects every
// capability's jobs into one runner, so a new capability brings its workers with it and no
// central list must learn their names.
type Jobs interface {
	RegisterWorkers(workers *river.Workers)
	PeriodicJobs() []*river.PeriodicJob
}

// RegisterWorkers adds the workers of every capability to one registry.
func RegisterWorkers(workers *river.Workers, capabilities ...Jobs) {
	for _, c := range capabilities {
		c.RegisterWorkers(workers)
	}
}

// PeriodicJobs lists the periodic jobs of every capability.
func PeriodicJobs(capabilities ...Jobs) []*river.PeriodicJob {
	var out []*river.PeriodicJob
	for _, c := range capabilities {
		out = append(out, c.PeriodicJobs()...)
	}
	return out
}
