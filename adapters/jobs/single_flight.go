package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// passLease is how long a periodic pass's lease lasts without renewal, and passRenewEvery how
// often a running pass renews it: a replica killed mid-pass blocks the pass for at most
// passLease.
const (
	passLease      = 30 * time.Second
	passRenewEvery = 10 * time.Second
)

// singleFlight is the River worker middleware that runs a periodic pass (a job River's
// periodic enqueuer inserted, metadata "periodic": true) only under its lease in pass_leases.
// River's leader alone enqueues periodic jobs, but two runs of one pass can still meet: a run
// that outlasts its interval meets the next period's, and a new leader enqueues its
// run-on-start passes while the old leader's may still run. The second run finds the lease
// held and ends at once as done; the running one does the work, and the next period picks up
// what it left. The lease is a row, not a session advisory lock, so no pool connection is held
// for the whole pass.
type singleFlight struct {
	river.MiddlewareDefaults
	pool *pgxpool.Pool
	log  *slog.Logger
	// clientID prefixes every lease this worker holds, so the liveness rescue releases a dead
	// worker's leases as soon as its death is noticed, instead of after passLease.
	clientID string
}

var _ rivertype.WorkerMiddleware = (*singleFlight)(nil)

// Work runs a periodic job under its pass's lease, and any other job as it is.
func (s *singleFlight) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	if !isPeriodic(job) {
		return doInner(ctx)
	}
	name := passName(job)
	holder := leaseHolder(s.clientID)
	held, err := s.take(ctx, name, holder)
	if err != nil {
		return err
	}
	if !held {
		s.log.Info("periodic pass already running on a replica; this run ends", "kind", job.Kind, "pass", name, "jobId", job.ID)
		return nil
	}
	renewCtx, stopRenew := context.WithCancel(ctx)
	renewed := make(chan struct{})
	go func() { defer close(renewed); s.renew(renewCtx, name, holder) }()
	err = doInner(ctx)
	stopRenew()
	<-renewed
	if _, releaseErr := s.pool.Exec(context.WithoutCancel(ctx), `DELETE FROM pass_leases WHERE name = $1 AND holder = $2`, name, holder); releaseErr != nil {
		s.log.Warn("periodic pass lease not released; it lapses by itself", "pass", name, "error", releaseErr.Error())
	}
	return err
}

// take claims the pass's lease when it is free or lapsed.
func (s *singleFlight) take(ctx context.Context, name, holder string) (bool, error) {
	var one int
	err := s.pool.QueryRow(ctx, `
		INSERT INTO pass_leases (name, holder, expires_at) VALUES ($1, $2, now() + $3 * interval '1 microsecond')
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
		WHERE pass_leases.expires_at < now()
		RETURNING 1`, name, holder, passLease.Microseconds()).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// renew extends the lease until ctx ends.
func (s *singleFlight) renew(ctx context.Context, name, holder string) {
	tick := time.NewTicker(passRenewEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if _, err := s.pool.Exec(ctx, `UPDATE pass_leases SET expires_at = now() + $3 * interval '1 microsecond'
				WHERE name = $1 AND holder = $2`, name, holder, passLease.Microseconds()); err != nil && ctx.Err() == nil {
				s.log.Warn("periodic pass lease not renewed", "pass", name, "error", err.Error())
			}
		}
	}
}

// isPeriodic reports whether River's periodic enqueuer inserted the job.
func isPeriodic(job *rivertype.JobRow) bool {
	var meta struct {
		Periodic bool `json:"periodic"`
	}
	return len(job.Metadata) > 0 && json.Unmarshal(job.Metadata, &meta) == nil && meta.Periodic
}

// passName is the pass a job runs: its kind and arguments, so one pass per chain or
// environment (a chain indexer's arguments name its chain) runs beside the others.
func passName(job *rivertype.JobRow) string {
	return job.Kind + " " + string(job.EncodedArgs)
}

// leaseHolder names one run of a pass: the worker's client ID, '#', and a random suffix.
func leaseHolder(clientID string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return clientID + "#" + hex.EncodeToString(b[:])
}
