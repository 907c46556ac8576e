package main

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// split is one workload's processor time on one database, by process: this process (the
// service and its HTTP clients, or the ledger workload's client), the coordinator (on
// PostgreSQL, the one server) and each worker. The capacity model needs them apart: each tier
// scales differently with machines.
type split struct {
	service, coordinator time.Duration
	workers              []time.Duration
}

// perTransfer is the split in milliseconds per transfer: service, coordinator, the workers'
// sum (each transfer's worker work lands on its tenant's worker, so the sum over workers per
// transfer is what one transfer costs the worker tier).
func (s split) perTransfer(transfers int) (service, coordinator, workers float64) {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(max(transfers, 1)) }
	var w time.Duration
	for _, d := range s.workers {
		w += d
	}
	return ms(s.service), ms(s.coordinator), ms(w)
}

// capacity is the model's transfers per second of Citus with n workers of cores cores each
// and a coordinator of cores cores, from the milliseconds of processor time one transfer costs
// the coordinator and the worker tier: T(n) = min(cores/c, n·cores/w). It also names the bound
// that holds. A tier that costs nothing bounds nothing.
func capacity(cores, n int, coordinatorMs, workersMs float64) (float64, string) {
	bound := func(ms float64, machines int) float64 {
		if ms <= 0 {
			return math.Inf(1)
		}
		return float64(machines*cores) * 1000 / ms
	}
	c, w := bound(coordinatorMs, 1), bound(workersMs, n)
	if c <= w {
		return c, "coordinator"
	}
	return w, "workers"
}

// postgresCapacity is one PostgreSQL server's transfers per second on cores cores: cores/p.
func postgresCapacity(cores int, serverMs float64) float64 {
	if serverMs <= 0 {
		return math.Inf(1)
	}
	return float64(cores) * 1000 / serverMs
}

// modelWorkers are the cluster sizes the model is printed for.
var modelWorkers = []int{1, 2, 4, 8, 16}

// printModel prints, per workload, the processor time per transfer by tier and what the model
// makes of it: one PostgreSQL server of cores cores, and Citus with N workers of as many cores.
func printModel(results []result, cores int) {
	printSplit(results)
	fmt.Printf("\ncapacity model, machines of K=%d cores (-model-cores), CPU-bound, tenants spread evenly:\n", cores)
	fmt.Printf("  PostgreSQL: T = K/p (p: the server's ms per transfer)\n")
	fmt.Printf("  Citus: T(N) = min(K/c, N·K/w) (c: the coordinator's ms per transfer, w: the workers' summed)\n")
	fmt.Printf("  the service tier, on machines of its own, needs a cores per 1,000 transfers/s (a: its ms per transfer)\n")
	fmt.Printf("  the coordinator bounds Citus from N* = w/c workers on\n")
	header := fmt.Sprintf("%-9s %7s %7s %7s %7s %11s", "workload", "a", "p", "c", "w", "PostgreSQL")
	for _, n := range modelWorkers {
		header += fmt.Sprintf(" %9s", fmt.Sprintf("N=%d", n))
	}
	fmt.Println(header + " " + fmt.Sprintf("%7s", "N*"))
	half := len(results) / 2
	for i := range half {
		printModelLine(results[i], results[i+half], cores)
	}
}

// printSplit prints each result's processor time per transfer by process (also for -only,
// which has no model).
func printSplit(results []result) {
	fmt.Printf("\nprocessor time per transfer by process (ms): service = this process (the service and its clients)\n")
	fmt.Printf("%-9s %-9s %9s %12s %s\n", "database", "workload", "service", "coordinator", "workers")
	for _, r := range results {
		s, c, _ := r.split.perTransfer(r.transfers)
		workers := make([]string, len(r.split.workers))
		for i, d := range r.split.workers {
			workers[i] = fmt.Sprintf("%.3f", float64(d.Microseconds())/1000/float64(max(r.transfers, 1)))
		}
		fmt.Printf("%-9s %-9s %9.3f %12.3f %s\n", r.database, r.workload, s, c, strings.Join(workers, " "))
	}
}

// printModelLine is one workload's line of the model: pg and ci are its two measurements.
func printModelLine(pg, ci result, cores int) {
	_, p, _ := pg.split.perTransfer(pg.transfers)
	a, c, w := ci.split.perTransfer(ci.transfers)
	line := fmt.Sprintf("%-9s %7.3f %7.3f %7.3f %7.3f %11.0f", ci.workload, a, p, c, w, postgresCapacity(cores, p))
	for _, n := range modelWorkers {
		t, _ := capacity(cores, n, c, w)
		line += fmt.Sprintf(" %9.0f", t)
	}
	fmt.Printf("%s %7.1f\n", line, saturation(c, w))
}

// saturation is N* = w/c, the number of workers past which the coordinator, not the workers,
// bounds the cluster (+Inf when the coordinator costs nothing per transfer).
func saturation(coordinatorMs, workersMs float64) float64 {
	if coordinatorMs <= 0 {
		return math.Inf(1)
	}
	return workersMs / coordinatorMs
}
