package main

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The commit pipeline's lanes, read from the started service's metrics listener
// (METRICS_ADDR): how many batches the scenario's requests shared, and where the lanes' time
// went per batch. Like the per-request counts, these compare across a busy machine better than
// rates: a lane that waits for its COMMIT, or for units to arrive, is idle whatever the load.

// laneCounters is one snapshot of the pipeline's counters; ok is false when unreadable.
type laneCounters struct {
	ok                            bool
	batches, units                float64 // corridor_pipeline_batch_units: count and sum
	laneSec, waitUnits, waitCommt float64 // corridor_pipeline_lane_(wait_)seconds_total
	// The tail's sources, where the service exports them (older builds do not): a unit's time
	// in the pipeline and its wait to join a batch, the batches' write and COMMIT (cumulative
	// histogram buckets by upper bound), reruns and affinity spills, and the Go runtime's
	// stop-the-world pauses (go_gc_duration_seconds: sum and count).
	unit, join, commit     histogram
	carried, alone, spills float64
	gcSec, gcCount         float64
}

// histogram is a Prometheus histogram's cumulative buckets: upper bound (seconds) → count.
type histogram map[float64]float64

// laneResult is the scenario's lanes, per batch (milliseconds summed over the lanes).
type laneResult struct {
	Batches        float64 `json:"batches"`
	UnitsPerBatch  float64 `json:"unitsPerBatch"`
	BusyMsPerBatch float64 `json:"busyMsPerBatch"` // running units, locking reads, BEGIN
	// WaitUnitsMsPerBatch is the lanes' wait for units to arrive (an empty queue, MaxWait).
	WaitUnitsMsPerBatch float64 `json:"waitUnitsMsPerBatch"`
	// WaitCommitMsPerBatch is the lanes' wait for a batch's write and COMMIT to return.
	WaitCommitMsPerBatch float64 `json:"waitCommitMsPerBatch"`
	// The tail inside the service (0 where the service does not export it): a unit's time in
	// the pipeline from its submission to its answer and its wait to join a batch, p50 / p99 /
	// p99.9 (interpolated in the histogram's buckets), the batches' write and COMMIT p50 / p99,
	// units run again per unit (carried to the next batch after meeting a held lock, or alone
	// after a refused COMMIT), affinity spills per unit, and the Go runtime's stop-the-world
	// pauses: per second of the scenario (ms) and the mean pause (ms).
	UnitMs            [3]float64 `json:"unitMs,omitempty"`
	JoinMs            [3]float64 `json:"joinMs,omitempty"`
	CommitMs          [2]float64 `json:"commitMs,omitempty"`
	CarriedPerUnit    float64    `json:"carriedPerUnit,omitempty"`
	AlonePerUnit      float64    `json:"alonePerUnit,omitempty"`
	SpillsPerUnit     float64    `json:"spillsPerUnit,omitempty"`
	GCPauseMsPerSec   float64    `json:"gcPauseMsPerSecond,omitempty"`
	GCPauseMeanMs     float64    `json:"gcPauseMeanMs,omitempty"`
	GCCyclesPerSecond float64    `json:"gcCyclesPerSecond,omitempty"`
}

// quantile interpolates the q-quantile (0..1) of the observations between two cumulative
// snapshots of a histogram, in milliseconds; 0 when there are none.
func quantile(before, after histogram, q float64) float64 {
	bounds := make([]float64, 0, len(after))
	for b := range after {
		bounds = append(bounds, b)
	}
	sort.Float64s(bounds)
	total := after[math.Inf(1)] - before[math.Inf(1)]
	if total <= 0 {
		return 0
	}
	rank := q * total
	prevBound, prevCount := 0.0, 0.0
	for _, b := range bounds {
		n := after[b] - before[b]
		if n >= rank {
			if math.IsInf(b, 1) {
				return round(prevBound*1000, 2) // beyond the last bound: report the bound
			}
			frac := 0.0
			if n > prevCount {
				frac = (rank - prevCount) / (n - prevCount)
			}
			return round((prevBound+frac*(b-prevBound))*1000, 2)
		}
		prevBound, prevCount = b, n
	}
	return 0
}

// laneSnapshot reads the lanes' counters from the metrics listener at base.
func laneSnapshot(ctx context.Context, base string) laneCounters {
	var c laneCounters
	if base == "" {
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return c
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return c
	}
	defer resp.Body.Close()
	fields := map[string]*float64{
		"corridor_pipeline_batch_units_count":                     &c.batches,
		"corridor_pipeline_batch_units_sum":                       &c.units,
		"corridor_pipeline_lane_seconds_total":                    &c.laneSec,
		`corridor_pipeline_lane_wait_seconds_total{for="units"}`:  &c.waitUnits,
		`corridor_pipeline_lane_wait_seconds_total{for="commit"}`: &c.waitCommt,
	}
	optional := map[string]*float64{
		`corridor_pipeline_unit_reruns_total{why="carried"}`: &c.carried,
		`corridor_pipeline_unit_reruns_total{why="alone"}`:   &c.alone,
		"corridor_pipeline_affinity_spills_total":            &c.spills,
		"go_gc_duration_seconds_sum":                         &c.gcSec,
		"go_gc_duration_seconds_count":                       &c.gcCount,
	}
	hists := map[string]*histogram{
		"corridor_pipeline_unit_seconds_bucket":         &c.unit,
		"corridor_pipeline_unit_join_seconds_bucket":    &c.join,
		"corridor_pipeline_batch_commit_seconds_bucket": &c.commit,
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	seen := 0
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if dst, found := optional[name]; ok && found {
			if v, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
				*dst = v
			}
			continue
		}
		if base, le, found := strings.Cut(name, `{le="`); ok && found && hists[base] != nil {
			bound, err1 := strconv.ParseFloat(strings.TrimSuffix(le, `"}`), 64)
			v, err2 := strconv.ParseFloat(strings.TrimSpace(value), 64)
			if err1 == nil && err2 == nil {
				if *hists[base] == nil {
					*hists[base] = histogram{}
				}
				(*hists[base])[bound] = v
			}
			continue
		}
		if dst, found := fields[name]; ok && found {
			if v, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
				*dst = v
				seen++
			}
		}
	}
	c.ok = seen == len(fields)
	return c
}

// lanesBetween is the lanes' figures per batch between two snapshots (nil when unreadable or
// when no batch committed).
func lanesBetween(before, after laneCounters, elapsed time.Duration) *laneResult {
	n := after.batches - before.batches
	if !before.ok || !after.ok || n <= 0 {
		return nil
	}
	perBatchMs := func(b, a float64) float64 { return round((a-b)*1000/n, 3) }
	waitU := after.waitUnits - before.waitUnits
	waitC := after.waitCommt - before.waitCommt
	busy := after.laneSec - before.laneSec - waitU - waitC
	r := &laneResult{Batches: n, UnitsPerBatch: round((after.units-before.units)/n, 2),
		BusyMsPerBatch: round(busy*1000/n, 3), WaitUnitsMsPerBatch: perBatchMs(before.waitUnits, after.waitUnits),
		WaitCommitMsPerBatch: perBatchMs(before.waitCommt, after.waitCommt)}
	if after.unit != nil {
		r.UnitMs = [3]float64{quantile(before.unit, after.unit, .5), quantile(before.unit, after.unit, .99), quantile(before.unit, after.unit, .999)}
		r.JoinMs = [3]float64{quantile(before.join, after.join, .5), quantile(before.join, after.join, .99), quantile(before.join, after.join, .999)}
		r.CommitMs = [2]float64{quantile(before.commit, after.commit, .5), quantile(before.commit, after.commit, .99)}
		if units := after.unit[math.Inf(1)] - before.unit[math.Inf(1)]; units > 0 {
			r.CarriedPerUnit = round((after.carried-before.carried)/units, 4)
			r.AlonePerUnit = round((after.alone-before.alone)/units, 4)
			r.SpillsPerUnit = round((after.spills-before.spills)/units, 4)
		}
	}
	if secs := elapsed.Seconds(); secs > 0 && after.gcCount > before.gcCount {
		r.GCPauseMsPerSec = round((after.gcSec-before.gcSec)*1000/secs, 3)
		r.GCPauseMeanMs = round((after.gcSec-before.gcSec)*1000/(after.gcCount-before.gcCount), 3)
		r.GCCyclesPerSecond = round((after.gcCount-before.gcCount)/secs, 2)
	}
	return r
}

// String is the console line.
func (l *laneResult) String() string {
	return fmt.Sprintf("%.0f batches, %.2f units per batch; per batch, summed over the lanes: busy %.2f ms, waiting for units %.2f ms, waiting for COMMIT %.2f ms",
		l.Batches, l.UnitsPerBatch, l.BusyMsPerBatch, l.WaitUnitsMsPerBatch, l.WaitCommitMsPerBatch)
}

// Tail is the console line of the tail's sources ("" when the service does not export them).
func (l *laneResult) Tail() string {
	if l.UnitMs == [3]float64{} {
		return ""
	}
	return fmt.Sprintf("a unit in the pipeline p50/p99/p99.9 %.1f/%.1f/%.1f ms (joining its batch %.1f/%.1f/%.1f); write and COMMIT p50/p99 %.1f/%.1f ms; per unit: carried %.4f, alone %.4f, spilled %.4f; GC pauses %.2f ms/s (%.2f/s, mean %.3f ms)",
		l.UnitMs[0], l.UnitMs[1], l.UnitMs[2], l.JoinMs[0], l.JoinMs[1], l.JoinMs[2], l.CommitMs[0], l.CommitMs[1],
		l.CarriedPerUnit, l.AlonePerUnit, l.SpillsPerUnit, l.GCPauseMsPerSec, l.GCCyclesPerSecond, l.GCPauseMeanMs)
}
