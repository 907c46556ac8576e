package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
)

// Performance targets of the ledger: at concurrency 32 it reaches 0.7 of the raw-SQL ceiling,
// and a hot account keeps at least half of the spread throughput.
const (
	targetCeilingRatio = 0.7
	targetHotRatio     = 0.5
	// The commit pipeline: 10,000 transfers/s at concurrency 64, or 4× the one-commit ceiling;
	// its hot account at 0.9 of spread.
	targetPipelineRate    = 10_000
	targetPipelineRatio   = 4
	targetPipelineHotRate = 0.9
)

type machine struct {
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpuModel"`
	MemoryGiB int    `json:"memoryGiB"`
	OS        string `json:"os"`
	Go        string `json:"go"`
	Postgres  string `json:"postgres"`
	Settings  string `json:"settings"`
	// LoadAverage is /proc/loadavg's one-minute figure at the start and at the end of the run:
	// other work on the machine shows here.
	LoadAverage [2]string `json:"loadAverageStartEnd"`
}

type ratios struct {
	// Medians over the rounds at concurrency 32 of the ratio within each round.
	LedgerToCeilingAt32   float64   `json:"ledgerToCeilingAt32"`
	LedgerToCeilingRounds []float64 `json:"ledgerToCeilingRounds"`
	HotToSpreadAt32       float64   `json:"hotToSpreadAt32"`
	HotToSpreadRounds     []float64 `json:"hotToSpreadRounds"`
	// The same two comparisons for the raw SQL: how much a hot row costs PostgreSQL itself.
	CeilingHotToSpreadAt32    float64 `json:"ceilingHotToSpreadAt32"`
	HotLedgerToHotCeilingAt32 float64 `json:"hotLedgerToHotCeilingAt32"`
	CeilingTargetMet          bool    `json:"ceilingTargetMet"`
	HotTargetMet              bool    `json:"hotTargetMet"`
	// The commit pipeline at concurrency 64: over the one-commit ceiling at 64 of the same
	// round, and its hot scenario over its spread one.
	PipelineToCeilingAt64     float64   `json:"pipelineToCeilingAt64"`
	PipelineToCeilingRounds   []float64 `json:"pipelineToCeilingRounds"`
	PipelineHotToSpreadAt64   float64   `json:"pipelineHotToSpreadAt64"`
	PipelineHotToSpreadRounds []float64 `json:"pipelineHotToSpreadRounds"`
	PipelineTargetMet         bool      `json:"pipelineTargetMet"`
	PipelineHotTargetMet      bool      `json:"pipelineHotTargetMet"`
	// ByConcurrency is ledger single-transfer throughput over the ceiling at each concurrency.
	ByConcurrency map[string]float64 `json:"byConcurrency"`
}

type report struct {
	GeneratedAt     time.Time `json:"generatedAt"`
	Machine         machine   `json:"machine"`
	Database        string    `json:"database"`
	SecondsEach     float64   `json:"secondsPerScenario"`
	Rounds          int       `json:"roundsAt32"`
	SpreadAccounts  int       `json:"spreadAccounts"`
	ChainStripes    int       `json:"chainStripes"`
	Scenarios       []result  `json:"scenarios"`
	Ceiling         []ceiling `json:"ceiling"`
	CeilingDescribe string    `json:"ceilingDescribe"`
	Ratios          ratios    `json:"ratios"`
	// Pipeline is how the pipeline scenarios' store was configured and what it did.
	Pipeline pipelineSettings `json:"pipeline"`
}

type pipelineSettings struct {
	Lanes     int                    `json:"lanes"`
	MaxBatch  int                    `json:"maxBatch"`
	MaxWait   string                 `json:"maxWait"`
	Overlap   bool                   `json:"overlap"`
	Stats     postgres.PipelineStats `json:"stats"`
	MeanBatch float64                `json:"meanUnitsPerBatch"`
	// LaneTime is where the lanes' time went during the pipeline scenarios (summed over lanes).
	LaneTime laneTime `json:"laneTime"`
}

type laneTime struct {
	TimeMs       float64 `json:"timeMs"`
	WaitUnitsMs  float64 `json:"waitUnitsMs"`
	WaitCommitMs float64 `json:"waitCommitMs"`
}

// addLaneTime adds what the lanes did between two snapshots of the pipeline's counters.
func (s *pipelineSettings) addLaneTime(before, after postgres.PipelineStats) {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	s.LaneTime.TimeMs += ms(after.LaneTime - before.LaneTime)
	s.LaneTime.WaitUnitsMs += ms(after.LaneWaitUnits - before.LaneWaitUnits)
	s.LaneTime.WaitCommitMs += ms(after.LaneWaitCommit - before.LaneWaitCommit)
}

func newReport(o options, d database) *report {
	return &report{
		GeneratedAt: time.Now().UTC().Truncate(time.Second), Database: d.source, SecondsEach: o.duration.Seconds(), Rounds: max(o.rounds, 1),
		SpreadAccounts: o.accounts, ChainStripes: postgres.ChainStripes,
		CeilingDescribe: "pgbench -M prepared: UPDATE two balances, INSERT transfer, INSERT two postings, COMMIT (same tables)",
		Machine: machine{CPUs: runtime.NumCPU(), CPUModel: cpuModel(), MemoryGiB: memoryGiB(), OS: runtime.GOOS + "/" + runtime.GOARCH,
			Go: runtime.Version(), Postgres: postgresVersion(), Settings: d.settings, LoadAverage: [2]string{loadAverage()}},
	}
}

func (r *report) add(res result)         { r.Scenarios = append(r.Scenarios, res) }
func (r *report) addCeiling(res ceiling) { r.Ceiling = append(r.Ceiling, res) }

// runs lists, in run order, the throughput of every run of a ledger scenario.
func (r *report) runs(name string, c int) []float64 {
	var out []float64
	for _, s := range r.Scenarios {
		if s.Name == name && s.Concurrency == c {
			out = append(out, s.TransfersPerSecond)
		}
	}
	return out
}

// ceilingRuns lists, in run order, the throughput of every pgbench run.
func (r *report) ceilingRuns(c int, hot bool) []float64 {
	var out []float64
	for _, x := range r.Ceiling {
		if x.Concurrency == c && x.Hot == hot {
			out = append(out, x.TransactionsPerSecond)
		}
	}
	return out
}

// pairedRatio divides the i-th run of a by the i-th run of b (runs of one round ran back to
// back, on the same machine state) and returns the median ratio and every round's ratio. On a
// machine shared with other work, a ratio within a round is steadier than a ratio of medians.
func pairedRatio(a, b []float64) (float64, []float64) {
	var ratios []float64
	for i := 0; i < len(a) && i < len(b); i++ {
		if b[i] > 0 {
			ratios = append(ratios, round3(a[i]/b[i]))
		}
	}
	if len(ratios) == 0 {
		return 0, nil
	}
	sorted := append([]float64(nil), ratios...)
	sort.Float64s(sorted)
	return sorted[len(sorted)/2], ratios
}

func (r *report) finish() {
	r.Machine.LoadAverage[1] = loadAverage()
	r.Ratios.ByConcurrency = map[string]float64{}
	for _, c := range []int{1, 8, 32, 64} {
		ceilings := r.ceilingRuns(c, false)
		if c == 64 { // the first ceiling at 64 runs beside single; the others beside pipeline
			ceilings = ceilings[:min(len(ceilings), len(r.runs("single", 64)))]
		}
		if ratio, rounds := pairedRatio(r.runs("single", c), ceilings); len(rounds) > 0 {
			r.Ratios.ByConcurrency[fmt.Sprint(c)] = ratio
		}
	}
	single32 := r.runs("single", 32)
	r.Ratios.LedgerToCeilingAt32, r.Ratios.LedgerToCeilingRounds = pairedRatio(single32, r.ceilingRuns(32, false))
	r.Ratios.HotToSpreadAt32, r.Ratios.HotToSpreadRounds = pairedRatio(r.runs("hot", 32), single32)
	r.Ratios.CeilingHotToSpreadAt32, _ = pairedRatio(r.ceilingRuns(32, true), r.ceilingRuns(32, false))
	r.Ratios.HotLedgerToHotCeilingAt32, _ = pairedRatio(r.runs("hot", 32), r.ceilingRuns(32, true))
	ceil64 := r.ceilingRuns(64, false)
	ceil64 = ceil64[min(len(ceil64), len(r.runs("single", 64))):]
	pipe := r.runs("pipeline", 64)
	r.Ratios.PipelineToCeilingAt64, r.Ratios.PipelineToCeilingRounds = pairedRatio(pipe, ceil64)
	r.Ratios.PipelineHotToSpreadAt64, r.Ratios.PipelineHotToSpreadRounds = pairedRatio(r.runs("pipeline-hot", 64), pipe)
	r.Ratios.PipelineTargetMet = r.Ratios.PipelineToCeilingAt64 >= targetPipelineRatio || median(pipe) >= targetPipelineRate
	r.Ratios.PipelineHotTargetMet = r.Ratios.PipelineHotToSpreadAt64 >= targetPipelineHotRate
	r.Ratios.CeilingTargetMet = r.Ratios.LedgerToCeilingAt32 >= targetCeilingRatio
	r.Ratios.HotTargetMet = r.Ratios.HotToSpreadAt32 >= targetHotRatio
}

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "\nLedger store (%s; %d CPUs, %s; PostgreSQL %s; load average %s at the start, %s at the end)\n",
		r.Database, r.Machine.CPUs, r.Machine.CPUModel, r.Machine.Postgres, r.Machine.LoadAverage[0], r.Machine.LoadAverage[1])
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tconcurrency\ttransfers/s\tp50 ms\tp99 ms\tunits\terrors\tserver CPU ms/transfer\tclient CPU ms/transfer\t")
	for _, s := range r.Scenarios {
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.2f\t%.2f\t%d\t%d\t%.3f\t%.3f\t\n", s.Name, s.Concurrency, s.TransfersPerSecond, s.P50Ms, s.P99Ms, s.Units, s.Errors,
			s.ServerCPUMsPerTransfer, s.ClientCPUMsPerTransfer)
	}
	for _, c := range r.Ceiling {
		name := map[bool]string{false: "pgbench ceiling", true: "pgbench ceiling, hot"}[c.Hot]
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.2f\t%.2f\t%d\t0\t%.3f\t%.3f\t\n", name, c.Concurrency, c.TransactionsPerSecond, c.P50Ms, c.P99Ms, c.Transactions,
			c.ServerCPUMsPerTransfer, c.ClientCPUMsPerTransfer)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nratios: the median over %d rounds of the ratio within a round (a round runs single, pgbench, hot, pgbench-hot back to back)\n", r.Rounds)
	fmt.Fprintf(w, "ledger / ceiling at concurrency 32: %.3f (target ≥ %.1f: %s); by concurrency: %v\n",
		r.Ratios.LedgerToCeilingAt32, targetCeilingRatio, met(r.Ratios.CeilingTargetMet), r.Ratios.ByConcurrency)
	fmt.Fprintf(w, "  rounds: %v\n", r.Ratios.LedgerToCeilingRounds)
	fmt.Fprintf(w, "hot / spread at concurrency 32: %.3f (target ≥ %.1f: %s); the raw SQL's own hot / spread: %.3f; ledger hot / raw hot: %.3f\n",
		r.Ratios.HotToSpreadAt32, targetHotRatio, met(r.Ratios.HotTargetMet), r.Ratios.CeilingHotToSpreadAt32, r.Ratios.HotLedgerToHotCeilingAt32)
	fmt.Fprintf(w, "  rounds: %v\n", r.Ratios.HotToSpreadRounds)
	fmt.Fprintf(w, "pipeline / ceiling at concurrency 64: %.3f, median %.0f transfers/s (target ≥ %d× or ≥ %d/s: %s); rounds %v\n",
		r.Ratios.PipelineToCeilingAt64, median(r.runs("pipeline", 64)), targetPipelineRatio, targetPipelineRate, met(r.Ratios.PipelineTargetMet), r.Ratios.PipelineToCeilingRounds)
	fmt.Fprintf(w, "pipeline hot / spread at concurrency 64: %.3f (target ≥ %.1f: %s); rounds %v\n",
		r.Ratios.PipelineHotToSpreadAt64, targetPipelineHotRate, met(r.Ratios.PipelineHotTargetMet), r.Ratios.PipelineHotToSpreadRounds)
	fmt.Fprintf(w, "pipeline: %d lanes, batches of at most %d, wait %s, overlap %t; %+v, %.1f units per batch\n",
		r.Pipeline.Lanes, r.Pipeline.MaxBatch, r.Pipeline.MaxWait, r.Pipeline.Overlap, r.Pipeline.Stats, r.Pipeline.MeanBatch)
	if l := r.Pipeline.LaneTime; l.TimeMs > 0 {
		fmt.Fprintf(w, "pipeline lanes' time in the pipeline scenarios: %.1f %% waiting for units, %.1f %% waiting for a COMMIT, %.1f %% running\n",
			100*l.WaitUnitsMs/l.TimeMs, 100*l.WaitCommitMs/l.TimeMs, 100*(l.TimeMs-l.WaitUnitsMs-l.WaitCommitMs)/l.TimeMs)
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func (r *report) write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench-ledger: wrote %s\n", path)
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func memoryGiB() int {
	b, _ := os.ReadFile("/proc/meminfo")
	var kb int
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "MemTotal:") {
			if _, err := fmt.Sscanf(strings.TrimPrefix(line, "MemTotal:"), "%d", &kb); err != nil {
				return 0
			}
		}
	}
	return (kb + 512*1024) / (1024 * 1024)
}

func postgresVersion() string {
	bin, err := findPgbench("")
	if err != nil {
		return "unknown"
	}
	out, err := execOutput(bin, "--version")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(strings.TrimPrefix(out, "pgbench (PostgreSQL)"))
}

func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.SplitN(string(b), " ", 2)[0]
}
