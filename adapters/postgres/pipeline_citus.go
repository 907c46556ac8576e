package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/corridorhq/corridor/ports"
)

// On a Citus coordinator a batch is one distributed transaction. Citus sends every savepoint
// (one per unit of a batch), every RELEASE and the COMMIT to each worker the transaction has
// touched so far, and a transaction that modified two workers commits with PREPARE on both.
// A batch that mixed tenants of two workers therefore waited for both: while one worker was
// silent (connections accepted, nothing answered) a tenant of the healthy one, admitted to a
// batch in which a unit of the silent worker's tenant, a scan of every shard (the webhook
// dispatcher's, the idempotency purge) or a write to a reference table had run, waited on the
// silent worker at its next savepoint and was refused at its deadline (docs/reliability.md,
// "Citus"). So, on Citus:
//
//   - a batch admits the units of one affinity (one tenant, so one shard group) only; a unit of
//     another tenant taken from a queue is handed back to the shared queue, and the batch stops
//     admitting;
//   - a unit without an affinity (a background pass that may scan every shard) runs alone, in
//     its own transaction, never in a batch;
//   - a unit that no lane takes within the affinity patience (every lane stuck in a batch that
//     waits on a silent worker) runs alone rather than wait for them.

// errNoLane: no lane took the unit in time; it runs alone.
var errNoLane = errors.New("postgres: no lane took the unit in time")

// ForCitus returns the store for a database on a Citus coordinator: its batches hold one
// tenant's units, and a unit of work that wrote the coordinator commits with two-phase commit
// (markTwoPhase). Call it before WithPipeline.
func (s *Store) ForCitus() *Store {
	c := *s
	c.citus = true
	return &c
}

// aloneOnCitus reports a unit that runs alone because the store is on Citus and the unit
// names no tenant (ports.WithAffinity): it may touch every shard group.
func (s *Store) aloneOnCitus(ctx context.Context) bool {
	return s.citus && ports.Affinity(ctx) == ""
}

// markTwoPhase makes a transaction that wrote the coordinator commit with two-phase commit
// (migration 000066, mark_two_phase_commit): Citus commits a transaction that modified only
// plain coordinator tables and one worker by committing the worker first, in its pre-commit
// step, so a coordinator that died before its own commit lost its half while the worker kept
// the other. Touching a citus-local table runs through Citus's local execution, which asks
// for two-phase commit: the worker prepares, the coordinator's commit record decides, and
// recover_prepared_transactions() finishes either way after a crash. The statement travels
// with the COMMIT (deferExec): no round trip of its own.
func markTwoPhase(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `SELECT mark_two_phase_commit()`, deferExec{})
	return err
}

// laneTimeout is how long, on Citus, a unit waits for any lane before it runs alone (nil, never,
// elsewhere: there a lane stuck in its batch means the one database is not answering, and alone
// the unit would wait for it as well).
func (p *pipeline) laneTimeout() <-chan time.Time {
	if !p.citus {
		return nil
	}
	return time.After(p.patience())
}

func (p *pipeline) patience() time.Duration {
	if p.opts.AffinityPatience > 0 {
		return p.opts.AffinityPatience
	}
	return DefaultAffinityPatience
}

// take admits u to the batch, unless on Citus u names another affinity than the batch's: then
// u goes back to the shared queue and take reports false (the batch admits no more).
func (b *batch) take(u *pipeUnit) bool {
	if b.p.citus && ports.Affinity(u.ctx) != b.affinity {
		go b.p.handBack(u)
		return false
	}
	b.admit(u)
	return true
}

// handBack offers u to every lane again; if none takes it within the patience, u runs alone.
func (p *pipeline) handBack(u *pipeUnit) {
	select {
	case p.queue <- u:
	case <-p.laneTimeout():
		u.wake <- wake{direct: true}
	case <-u.ctx.Done():
		u.wake <- wake{out: &unitOutcome{err: u.ctx.Err()}}
	case <-p.stop:
		u.wake <- wake{out: &unitOutcome{err: ErrPipelineClosed}}
	}
}
