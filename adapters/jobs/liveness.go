package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Liveness defaults. A worker renews its heartbeat every DefaultHeartbeatEvery; one whose
// heartbeat is older than DefaultDeadAfter is taken as dead and its jobs go back to work. Five
// missed beats is far beyond a scheduling hiccup, and still seconds: a crash costs at most
// DefaultDeadAfter plus one beat plus River's fetch poll (about 13 s), not River's stuck-job
// timeout, which must exceed the slowest job.
const (
	DefaultHeartbeatEvery = 2 * time.Second
	DefaultDeadAfter      = 10 * time.Second
)

// maxReplicaName bounds a replica's name so the client ID (name, '#', 16 hex digits) stays
// within River's 100 characters.
const maxReplicaName = 80

// liveness keeps this worker's row in job_workers fresh and rescues the jobs of workers whose
// row went stale: a process killed mid-job leaves its jobs running in River's table, and no one
// else would touch them before River's stuck-job timeout.
type liveness struct {
	pool      *pgxpool.Pool
	log       *slog.Logger
	clientID  string
	replica   string
	every     time.Duration
	deadAfter time.Duration

	mu sync.Mutex
	// healthySince is when this worker's heartbeats began succeeding without a gap: it judges
	// others dead only once it has itself beaten for deadAfter, so a database outage that
	// silenced every worker does not make the first one back rescue the jobs of the others.
	healthySince time.Time
}

// clientIDFor names one incarnation of a replica: the replica's name and a random suffix.
func clientIDFor(replica string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	if len(replica) > maxReplicaName {
		replica = replica[:maxReplicaName]
	}
	return replica + "#" + hex.EncodeToString(b[:])
}

// rescueSQL deletes the given workers' rows, releases their periodic passes' leases and puts
// every job one of them was last running back to work at once (or discards it when it has no
// attempt left, or cancels it when a cancel was asked, as River's own rescuer does). %s is the
// caller's condition on job_workers w that selects the dead workers (a constant, never input).
const rescueSQL = `
WITH dead AS (
	DELETE FROM job_workers w WHERE %s RETURNING w.client_id, w.heartbeat_at = '-infinity' AS stopped
), released AS (
	DELETE FROM pass_leases l USING dead d WHERE left(l.holder, length(d.client_id) + 1) = d.client_id || '#'
	RETURNING 1
), rescued AS (
	UPDATE river_job j SET
		state = (CASE WHEN j.metadata ? 'cancel_attempted_at' THEN 'cancelled'
			WHEN j.attempt >= j.max_attempts THEN 'discarded' ELSE 'available' END)::river_job_state,
		finalized_at = CASE WHEN j.metadata ? 'cancel_attempted_at' OR j.attempt >= j.max_attempts THEN now() END,
		scheduled_at = now(),
		errors = array_append(j.errors, jsonb_build_object('at', now(), 'attempt', j.attempt,
			'error', 'the worker running this job died (' || j.attempted_by[array_length(j.attempted_by, 1)] || '); rescued', 'trace', ''))
	FROM dead d
	WHERE j.state = 'running' AND j.attempted_by[array_length(j.attempted_by, 1)] = d.client_id
	RETURNING j.id
)
SELECT (SELECT count(*) FROM dead), (SELECT count(*) FROM dead WHERE stopped), (SELECT count(*) FROM released),
	(SELECT count(*) FROM rescued)`

// start registers this worker after rescuing the jobs of this replica's previous incarnations:
// they are dead for certain (this process now carries the replica's name), so their jobs need
// not wait for a stale heartbeat.
func (l *liveness) start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, l.deadAfter)
	defer cancel()
	if err := l.rescue(ctx, "previous incarnation", "w.replica = $1 AND w.client_id <> $2", l.replica, l.clientID); err != nil {
		return err
	}
	_, err := l.pool.Exec(ctx, `INSERT INTO job_workers (client_id, replica) VALUES ($1, $2)
		ON CONFLICT (client_id) DO UPDATE SET heartbeat_at = now()`, l.clientID, l.replica)
	if err == nil {
		l.mu.Lock()
		l.healthySince = time.Now()
		l.mu.Unlock()
	}
	return err
}

// run beats and rescues every l.every until ctx ends. Each round carries its own deadline.
func (l *liveness) run(ctx context.Context) {
	tick := time.NewTicker(l.every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			roundCtx, cancel := context.WithTimeout(ctx, l.every)
			l.round(roundCtx)
			cancel()
		}
	}
}

// round renews this worker's heartbeat and, when this worker has itself been healthy for
// deadAfter, rescues the jobs of workers whose heartbeat is older than that.
func (l *liveness) round(ctx context.Context) {
	_, err := l.pool.Exec(ctx, `INSERT INTO job_workers (client_id, replica) VALUES ($1, $2)
		ON CONFLICT (client_id) DO UPDATE SET heartbeat_at = now()`, l.clientID, l.replica)
	l.mu.Lock()
	if err != nil {
		l.healthySince = time.Time{}
	} else if l.healthySince.IsZero() {
		l.healthySince = time.Now()
	}
	healthy := !l.healthySince.IsZero() && time.Since(l.healthySince) >= l.deadAfter
	l.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			l.log.Warn("job worker heartbeat not renewed", "clientId", l.clientID, "error", err.Error())
		}
		return
	}
	if !healthy {
		return
	}
	if err := l.rescue(ctx, "stale heartbeat", "w.client_id <> $1 AND w.heartbeat_at < now() - $2 * interval '1 microsecond'",
		l.clientID, l.deadAfter.Microseconds()); err != nil && ctx.Err() == nil {
		l.log.Warn("rescue of dead workers' jobs failed; the next round retries", "error", err.Error())
	}
}

// rescue runs rescueSQL for the workers the condition selects and logs what it did: a warning
// when a worker died without stopping (or a stopped one left a job running or a lease held),
// else, for workers that stopped cleanly (stop marked them) and left nothing, an info line.
func (l *liveness) rescue(ctx context.Context, why, condition string, args ...any) error {
	var dead, stopped, released, rescued int64
	if err := l.pool.QueryRow(ctx, strings.Replace(rescueSQL, "%s", condition, 1), args...).Scan(&dead, &stopped, &released, &rescued); err != nil {
		return err
	}
	switch {
	case dead > stopped || rescued > 0 || released > 0:
		l.log.Warn("job workers found dead; their jobs are back to work", "why", why, "workers", dead,
			"stoppedCleanly", stopped, "jobsRescued", rescued, "passLeasesReleased", released, "by", l.clientID)
	case dead > 0:
		l.log.Info("job workers that stopped cleanly removed", "why", why, "workers", dead, "by", l.clientID)
	}
	return nil
}

// stop marks this worker's row as dead at once, after River stopped: a job River's stop left
// running (its deadline passed) is then rescued by the next live worker's round.
func (l *liveness) stop(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.every)
	defer cancel()
	if _, err := l.pool.Exec(ctx, `UPDATE job_workers SET heartbeat_at = '-infinity' WHERE client_id = $1`, l.clientID); err != nil {
		l.log.Warn("job worker row not marked stopped; it goes stale by itself", "clientId", l.clientID, "error", err.Error())
	}
}
