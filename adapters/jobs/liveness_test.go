package jobs_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/corridorhq/corridor/adapters/jobs"
)

type rescueArgs struct {
	Name string `json:"name"`
}

func (rescueArgs) Kind() string { return "test.rescue" }

type rescueWorker struct {
	river.WorkerDefaults[rescueArgs]
}

func (rescueWorker) Work(context.Context, *river.Job[rescueArgs]) error { return nil }

// startRescueRunner starts a runner on url whose only worker completes the jobs runningJob
// leaves, polling often so a rescued job runs at once.
func startRescueRunner(ctx context.Context, t *testing.T, url string, cfg jobs.Config) *jobs.Runner {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, rescueWorker{})
	cfg.DatabaseURL, cfg.Workers, cfg.FetchPollInterval = url, workers, 100*time.Millisecond
	return startRunner(ctx, t, cfg)
}

// runningJob inserts a job as the given worker left it when it died: running, attempted by it.
func runningJob(ctx context.Context, t *testing.T, pool *pgxpool.Pool, inserter *river.Client[pgx.Tx], name, clientID string) int64 {
	t.Helper()
	res, err := inserter.Insert(ctx, rescueArgs{Name: name}, &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now(),
		attempted_by = ARRAY[$2] WHERE id = $1`, res.Job.ID, clientID); err != nil {
		t.Fatal(err)
	}
	return res.Job.ID
}

// TestLiveness_DeadWorkersJobsRescuedInSeconds: a worker whose heartbeat went stale (its process
// was killed) left a job running and a periodic pass's lease held. A live runner, with River's
// stuck-job timeout at its hour, puts the job back to work and completes it, releases the lease
// and forgets the dead worker, within its dead-after bound; a job of a worker whose heartbeat is
// fresh stays running.
func TestLiveness_DeadWorkersJobsRescuedInSeconds(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard only
	defer cancel()
	pool, inserter := jobsDB(ctx, t)
	if _, err := pool.Exec(ctx, `INSERT INTO job_workers (client_id, replica, heartbeat_at) VALUES
		('ghost#01', 'ghost', now() - interval '1 minute'), ('alive#02', 'alive', now() + interval '1 hour')`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO pass_leases (name, holder, expires_at) VALUES
		('ghost pass', 'ghost#01#aa', now() + interval '1 hour'), ('alive pass', 'alive#02#bb', now() + interval '1 hour')`); err != nil {
		t.Fatal(err)
	}
	orphan := runningJob(ctx, t, pool, inserter, "orphan", "ghost#01")
	held := runningJob(ctx, t, pool, inserter, "held", "alive#02")
	started := time.Now()
	startRescueRunner(ctx, t, pool.Config().ConnString(), jobs.Config{Replica: "observer", HeartbeatEvery: 100 * time.Millisecond, DeadAfter: time.Second})

	waitJobState(ctx, t, inserter, orphan, rivertype.JobStateCompleted)
	t.Logf("the dead worker's job completed %s after the runner started", time.Since(started).Round(time.Millisecond))
	if got := jobState(ctx, t, inserter, held); got != rivertype.JobStateRunning {
		t.Fatalf("the live worker's job is %s, want still running", got)
	}
	var workers, leases []string
	rows, _ := pool.Query(ctx, `SELECT client_id FROM job_workers WHERE replica <> 'observer' ORDER BY 1`)
	for rows.Next() {
		var s string
		_ = rows.Scan(&s)
		workers = append(workers, s)
	}
	rows.Close()
	rows, _ = pool.Query(ctx, `SELECT name FROM pass_leases ORDER BY 1`)
	for rows.Next() {
		var s string
		_ = rows.Scan(&s)
		leases = append(leases, s)
	}
	rows.Close()
	if len(workers) != 1 || workers[0] != "alive#02" {
		t.Fatalf("workers left %v, want only the live one", workers)
	}
	if len(leases) != 1 || leases[0] != "alive pass" {
		t.Fatalf("pass leases left %v, want only the live worker's", leases)
	}
}

// TestLiveness_RestartRescuesItsPreviousIncarnation: a replica's previous process left a job
// running and its heartbeat still looks fresh (it died a moment ago). The replica's new process
// rescues that job as it starts, without waiting for the heartbeat to go stale; another
// replica's job with an equally fresh heartbeat is left alone.
func TestLiveness_RestartRescuesItsPreviousIncarnation(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard only
	defer cancel()
	pool, inserter := jobsDB(ctx, t)
	if _, err := pool.Exec(ctx, `INSERT INTO job_workers (client_id, replica) VALUES ('r1#old', 'r1'), ('r2#now', 'r2')`); err != nil {
		t.Fatal(err)
	}
	mine := runningJob(ctx, t, pool, inserter, "mine", "r1#old")
	theirs := runningJob(ctx, t, pool, inserter, "theirs", "r2#now")
	r := startRescueRunner(ctx, t, pool.Config().ConnString(), jobs.Config{Replica: "r1", DeadAfter: time.Hour})
	waitJobState(ctx, t, inserter, mine, rivertype.JobStateCompleted)
	if got := jobState(ctx, t, inserter, theirs); got != rivertype.JobStateRunning {
		t.Fatalf("the other replica's job is %s, want still running", got)
	}
	var errs []string
	if err := pool.QueryRow(ctx, `SELECT array(SELECT e->>'error' FROM river_job, unnest(errors) e WHERE id = $1)`, mine).Scan(&errs); err != nil {
		t.Fatal(err)
	}
	if len(errs) != 1 || errs[0] == "" {
		t.Fatalf("the rescued job records %v, want one error naming the dead worker", errs)
	}
	var replica string
	if err := pool.QueryRow(ctx, `SELECT replica FROM job_workers WHERE client_id = $1`, r.ClientID()).Scan(&replica); err != nil || replica != "r1" {
		t.Fatalf("the new incarnation's row: %q %v", replica, err)
	}
}

// TestLiveness_CleanRestartIsNoAlarm: a replica whose previous process stopped cleanly (its
// row marked stopped, no job left running) starts again with an info line, not the warning
// an operator reads as a crash; a previous process that died without stopping still warns.
func TestLiveness_CleanRestartIsNoAlarm(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard only
	defer cancel()
	pool, _ := jobsDB(ctx, t)
	url := pool.Config().ConnString()

	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	first := startRescueRunner(ctx, t, url, jobs.Config{Replica: "r1", DeadAfter: time.Hour})
	if err := first.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	startRescueRunner(ctx, t, url, jobs.Config{Replica: "r1", DeadAfter: time.Hour, Logger: logger})
	mu.Lock()
	got := logs.String()
	mu.Unlock()
	if strings.Contains(got, "level=WARN") || !strings.Contains(got, "job workers that stopped cleanly removed") {
		t.Fatalf("a clean restart logged:\n%s", got)
	}

	// A process of r2 that died (its heartbeat fresh, never marked stopped) is still a warning.
	if _, err := pool.Exec(ctx, `INSERT INTO job_workers (client_id, replica) VALUES ('r2#old', 'r2')`); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	logs.Reset()
	mu.Unlock()
	startRescueRunner(ctx, t, url, jobs.Config{Replica: "r2", DeadAfter: time.Hour, Logger: logger})
	mu.Lock()
	got = logs.String()
	mu.Unlock()
	if !strings.Contains(got, "level=WARN") || !strings.Contains(got, "job workers found dead") {
		t.Fatalf("a crashed incarnation logged:\n%s", got)
	}
}

// lockedWriter serializes a test logger's writes with the reads of its buffer.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
