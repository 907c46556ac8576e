package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
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
}

// laneResult is the scenario's lanes, per batch (milliseconds summed over the lanes).
type laneResult struct {
	Batches        float64 `json:"batches"`
	UnitsPerBatch  float64 `json:"unitsPerBatch"`
	BusyMsPerBatch float64 `json:"busyMsPerBatch"` // running units, locking reads, BEGIN
	// WaitUnitsMsPerBatch is the lanes' wait for units to arrive (an empty queue, MaxWait).
	WaitUnitsMsPerBatch float64 `json:"waitUnitsMsPerBatch"`
	// WaitCommitMsPerBatch is the lanes' wait for a batch's write and COMMIT to return.
	WaitCommitMsPerBatch float64 `json:"waitCommitMsPerBatch"`
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
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	seen := 0
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
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
func lanesBetween(before, after laneCounters) *laneResult {
	n := after.batches - before.batches
	if !before.ok || !after.ok || n <= 0 {
		return nil
	}
	perBatchMs := func(b, a float64) float64 { return round((a-b)*1000/n, 3) }
	waitU := after.waitUnits - before.waitUnits
	waitC := after.waitCommt - before.waitCommt
	busy := after.laneSec - before.laneSec - waitU - waitC
	return &laneResult{Batches: n, UnitsPerBatch: round((after.units-before.units)/n, 2),
		BusyMsPerBatch: round(busy*1000/n, 3), WaitUnitsMsPerBatch: perBatchMs(before.waitUnits, after.waitUnits),
		WaitCommitMsPerBatch: perBatchMs(before.waitCommt, after.waitCommt)}
}

// String is the console line.
func (l *laneResult) String() string {
	return fmt.Sprintf("%.0f batches, %.2f units per batch; per batch, summed over the lanes: busy %.2f ms, waiting for units %.2f ms, waiting for COMMIT %.2f ms",
		l.Batches, l.UnitsPerBatch, l.BusyMsPerBatch, l.WaitUnitsMsPerBatch, l.WaitCommitMsPerBatch)
}
