package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// maxFailureKinds bounds the distinct failure kinds kept per scenario.
const maxFailureKinds = 8

// observed runs attack and records what happens around it: the machine's load average, the
// started service's peak RSS over the scenario and, with -profile, its profiles.
func observed(ctx context.Context, o options, t *target, e *env, s scenario) (scenarioResult, error) {
	// The targets are built (and their setup requests sent) before anything is measured.
	tr, err := s.Targets(ctx, e)
	if err != nil {
		return scenarioResult{}, err
	}
	costsBefore := t.snapshot(ctx, true)
	lanesBefore, lanesFrom := laneSnapshot(ctx, t.metricsURL), time.Now()
	if o.profile != "" {
		t.resetStatements(ctx)
		costsBefore.statements = 0
	}
	pid := t.pid()
	reset := pid > 0 && resetPeakRSS(pid)
	load := loadAverage()
	cpuBefore, cpuOK := cpuSeconds(pid)
	pgBefore, pgOK := postgresCPUSeconds(t.pgData)
	selfBefore, selfOK := cpuSeconds(os.Getpid())
	var wait func() []string
	if o.profile != "" && t.debugURL != "" {
		p := profiler{base: t.debugURL, dir: o.profile}
		wait = p.during(ctx, s.Name, o.duration)
	}
	r, err := attack(ctx, o, tr, s)
	if wait != nil {
		for _, line := range wait() {
			fmt.Printf("\n  profile %s", line)
		}
		fmt.Print("\n" + strings.Repeat(" ", 25))
	}
	if err != nil {
		return r, err
	}
	r.LoadAverage = [2]float64{load, loadAverage()}
	if pid > 0 && reset {
		r.ServerPeakRSSMiB = peakRSSMiB(pid)
	}
	perRequest := func(before, after float64) float64 {
		return round((after-before)*1000/float64(max(r.Requests, 1)), 3)
	}
	if cpuAfter, ok := cpuSeconds(pid); pid > 0 && ok && cpuOK {
		r.ServerCPUMsPerRequest = perRequest(cpuBefore, cpuAfter)
	}
	if pgAfter, ok := postgresCPUSeconds(t.pgData); t.cmd != nil && ok && pgOK {
		r.DatabaseCPUMsPerRequest = perRequest(pgBefore, pgAfter)
	}
	if selfAfter, ok := cpuSeconds(os.Getpid()); ok && selfOK {
		r.LoadGeneratorCPUMsPerRequest = perRequest(selfBefore, selfAfter)
	}
	r.Lanes = lanesBetween(lanesBefore, laneSnapshot(ctx, t.metricsURL), time.Since(lanesFrom))
	r.perRequest(costsBefore, t.snapshot(ctx, true))
	if o.profile != "" {
		path := filepath.Join(o.profile, s.Name+".statements.txt")
		if err := t.dumpStatements(ctx, path, r.Requests); err != nil {
			fmt.Printf("\n  statements: %v", err)
		} else {
			fmt.Printf("\n  statements %s\n%s", path, strings.Repeat(" ", 25))
		}
	}
	return r, nil
}

// attack runs one scenario for o.duration with a fresh vegeta Attacker (an Attacker cannot be
// reused once an attack ended) and summarises its results.
func attack(ctx context.Context, o options, tr vegeta.Targeter, s scenario) (scenarioResult, error) {
	workers := scenarioWorkers(o, s)
	// Our own transport, so the scenario's keep-alive connections can be closed when it ends:
	// idle connections left open would otherwise pile up across scenarios and hold up the
	// service's graceful shutdown.
	transport := &http.Transport{
		DialContext:         (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: workers,
	}
	defer transport.CloseIdleConnections()
	rate := scenarioRate(o, s)
	w, maxW := uint64(workers), uint64(workers)
	if rate > 0 {
		// Open loop: a fixed arrival rate holds only if a late response does not delay the
		// next request, so vegeta may add workers up to this bound.
		maxW = max(w, maxPacedWorkers)
	}
	atk := vegeta.NewAttacker(vegeta.Client(&http.Client{Timeout: o.timeout, Transport: transport}),
		vegeta.Workers(w), vegeta.MaxWorkers(maxW))
	// With Freq 0 the pacer never waits: the attack runs as fast as the workers allow.
	pacer := vegeta.ConstantPacer{Freq: rate, Per: time.Second}

	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			atk.Stop()
		case <-stopped:
		}
	}()

	var m vegeta.Metrics
	replayed := uint64(0)
	failures := map[string]int{}
	for res := range atk.Attack(tr, pacer, o.duration, s.Name) {
		m.Add(res)
		if res.Headers.Get("Idempotent-Replayed") == "true" {
			replayed++
		}
		if res.Code < 200 || res.Code >= 400 {
			k := failureKind(res)
			if _, seen := failures[k]; !seen && len(failures) >= maxFailureKinds {
				k = "other"
			}
			failures[k]++
		}
	}
	m.Close()
	if m.Requests == 0 {
		return scenarioResult{}, fmt.Errorf("no request was sent")
	}
	return scenarioResult{
		Name: s.Name, Requests: m.Requests, Rate: rate, Workers: workers,
		RPS: round(m.Rate, 1), OKPerSecond: round(m.Throughput, 1),
		P50Ms: ms(m.Latencies.P50), P99Ms: ms(m.Latencies.P99), MaxMs: ms(m.Latencies.Max),
		Success: round(m.Success, 4), StatusCodes: m.StatusCodes, Replayed: replayed, Failures: failures,
	}, nil
}

// scenarioWorkers is -workers when given, else the scenario's own concurrency, else 32.
func scenarioWorkers(o options, s scenario) int {
	if o.workersSet || s.Workers == 0 {
		return o.workers
	}
	return s.Workers
}

// maxPacedWorkers bounds the workers of a fixed-rate scenario.
const maxPacedWorkers = 1000

// scenarioRate is -rate, else the scenario's own fixed rate, else 0 (as fast as possible).
func scenarioRate(o options, s scenario) int {
	if o.rate > 0 {
		return o.rate
	}
	return s.Rate
}

// failureKind names a failed response by its status and the error envelope's code, or the
// transport error when there was no response.
func failureKind(r *vegeta.Result) string {
	if r.Code == 0 {
		if len(r.Error) > 80 {
			return r.Error[:80] + "…"
		}
		return r.Error
	}
	var env struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(r.Body, &env) == nil && env.Code != "" {
		return strconv.Itoa(int(r.Code)) + " " + env.Code
	}
	return strconv.Itoa(int(r.Code))
}

func ms(d time.Duration) float64 { return round(float64(d)/float64(time.Millisecond), 3) }

func round(f float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(f*p) / p
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
