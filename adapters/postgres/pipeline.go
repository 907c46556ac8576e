package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"corridor/core"
	"corridor/ports"
)

// The commit pipeline. Without it every unit of work is its own transaction and pays its own
// COMMIT, a WAL flush: with durability on, that flush is what bounds throughput. With it,
// concurrent units of work join a shared transaction, a batch: each unit runs in its own
// savepoint, one after the other on the batch's connection, and the batch commits once. A unit
// that fails is rolled back to its savepoint and answered at once; the others are answered
// only when the COMMIT has returned, so no unit is ever acknowledged before it is durable.
//
// Several lanes (each one batch at a time, on one pooled connection) run in parallel. A batch
// closes when it holds MaxBatch units or when MaxWait has passed since it opened and no unit
// is waiting.
//
// Locks. Units of one batch share a transaction, so they never wait for each other (row and
// advisory locks are the transaction's), and they run serially, so each sees the effects of
// the ones before it as a serial history would. Waiting on another lane is the danger: a
// batch holds every lock its units took until it commits, so a unit that waits on another
// batch while its own batch holds locks can close a cycle. The first unit of a batch may wait
// (its batch holds nothing else, exactly like a unit of work without the pipeline). Every
// later unit runs under lock_timeout = 1ms: when it would wait, it is rolled back to its
// savepoint, the batch commits without it, and it runs again as the first unit of the next
// batch. A deadlock between first units is retried as without the pipeline.
//
// Ledger writes are set-wise (ledger_batch.go): the batch keeps the balances it has locked in
// memory, a transfer inserts only its transfer row (which claims its reference) and buffers
// its postings and balances, and the batch writes every buffered posting and one update per
// touched account in one statement before COMMIT.
//
// A failed flush or COMMIT that PostgreSQL answered (nothing was committed) runs every unit of
// the batch again alone, as a unit of work without the pipeline; a COMMIT whose outcome is
// unknown (the connection broke) answers every unit with the error, as a unit of work without
// the pipeline would.

// PipelineOptions configure the commit pipeline; Lanes <= 0 turns it off.
type PipelineOptions struct {
	// Lanes is how many batches run at once, each on its own connection of the pool.
	Lanes int
	// MaxBatch closes a batch when it holds this many units (0: DefaultPipelineMaxBatch; at most 60: a batch's savepoints
	// are subtransactions, and past 64 PostgreSQL's snapshots overflow to pg_subtrans).
	MaxBatch int
	// MaxWait closes a batch when this long has passed since it opened and no unit is waiting
	// (0: DefaultPipelineMaxWait; negative: close as soon as no unit is waiting).
	MaxWait time.Duration

	// beforeCommit, in tests, runs after the flush and before the COMMIT of every batch.
	beforeCommit func()
}

// Default pipeline settings (cmd/corridor/config.go documents them).
const (
	DefaultPipelineLanes    = 4
	DefaultPipelineMaxBatch = 48
	DefaultPipelineMaxWait  = time.Millisecond
	maxPipelineBatch        = 60
)

// ErrPipelineClosed answers units submitted after Close.
var ErrPipelineClosed = core.E(core.CodeServiceUnavailable, "the store is shutting down; retry shortly")

// WithPipeline returns a store over the same database whose outermost units of work run
// through a commit pipeline. Close stops its lanes.
func (s *Store) WithPipeline(opts PipelineOptions) *Store {
	if opts.Lanes <= 0 {
		return &Store{db: s.db}
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = DefaultPipelineMaxBatch
	}
	opts.MaxBatch = min(opts.MaxBatch, maxPipelineBatch)
	switch {
	case opts.MaxWait == 0:
		opts.MaxWait = DefaultPipelineMaxWait
	case opts.MaxWait < 0:
		opts.MaxWait = 0
	}
	p := &pipeline{db: s.db, opts: opts, queue: make(chan *pipeUnit), stop: make(chan struct{})}
	out := &Store{db: s.db, pipe: p}
	p.direct = out.direct
	for i := 0; i < opts.Lanes; i++ {
		p.wg.Add(1)
		go p.lane()
	}
	return out
}

// Pipelined reports whether outermost units of work go through the commit pipeline.
func (s *Store) Pipelined() bool { return s.pipe != nil }

// Close stops the pipeline's lanes after their current batches; units submitted later are
// answered with ErrPipelineClosed. It does not close the database.
func (s *Store) Close() {
	if s.pipe != nil {
		s.pipe.close()
	}
}

type pipeline struct {
	stats  pipelineCounters
	db     *bun.DB
	opts   PipelineOptions
	queue  chan *pipeUnit
	stop   chan struct{}
	once   sync.Once
	wg     sync.WaitGroup
	direct func(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error
}

func (p *pipeline) close() {
	p.once.Do(func() { close(p.stop) })
	p.wg.Wait()
}

// PipelineStats count what the pipeline did since it started.
type PipelineStats struct {
	Batches   int64 // committed (or failed) batches
	Units     int64 // units run in a batch, including failed ones and each run of a carried one
	Conflicts int64 // units that would have waited on a lock and ran again first in the next batch
	Retried   int64 // units run again alone after their batch's flush or COMMIT was refused
}

type pipelineCounters struct {
	batches, units, conflicts, retried atomic.Int64
}

// PipelineStats reports the pipeline's counters (zero without a pipeline).
func (s *Store) PipelineStats() PipelineStats {
	if s.pipe == nil {
		return PipelineStats{}
	}
	c := &s.pipe.stats
	return PipelineStats{Batches: c.batches.Load(), Units: c.units.Load(), Conflicts: c.conflicts.Load(), Retried: c.retried.Load()}
}

// pipeUnit is one submitted unit of work and where its outcome goes.
type pipeUnit struct {
	ctx  context.Context
	fn   func(ctx context.Context, tx ports.Tx) error
	done chan unitOutcome
}

type unitOutcome struct {
	err      error
	panicked any
}

// submit runs fn in a batch and returns its outcome once its batch committed (or at once
// when it failed). A panic in fn is raised again on the caller's goroutine.
func (p *pipeline) submit(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	u := &pipeUnit{ctx: ctx, fn: fn, done: make(chan unitOutcome, 1)}
	select {
	case p.queue <- u:
	case <-ctx.Done():
		return ctx.Err()
	case <-p.stop:
		return ErrPipelineClosed
	}
	out := <-u.done
	if out.panicked != nil {
		panic(out.panicked)
	}
	return out.err
}

// lane runs batches one after the other until the pipeline stops.
func (p *pipeline) lane() {
	defer p.wg.Done()
	var carry *pipeUnit
	for {
		u := carry
		if u == nil {
			select {
			case u = <-p.queue:
			case <-p.stop:
				return
			}
		}
		carry = p.runBatch(u)
	}
}

// unitState is what running one unit in a batch came to.
type unitState int

const (
	unitDone     unitState = iota // ran to its end; answered when its release and the commit succeed
	unitFailed                    // rolled back and answered
	unitConflict                  // would have waited on a lock: rolled back, runs first in the next batch
	unitBroken                    // the batch's transaction is unusable
)

// batch is one shared transaction.
type batch struct {
	p       *pipeline
	tx      bun.Tx
	ledger  *batchLedger
	units   int       // units run, including the failed ones
	open    *pipeUnit // the unit whose savepoint is not yet released
	openL   *unitLedger
	acked   []*pipeUnit // released units, answered at commit
	timeout bool        // lock_timeout is set
}

// runBatch runs first and the units that join it, commits, answers, and returns a unit that
// must run first in the next batch, if any.
func (p *pipeline) runBatch(first *pipeUnit) (carry *pipeUnit) {
	ctx := context.Background()
	btx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		first.done <- unitOutcome{err: err}
		return nil
	}
	b := &batch{p: p, tx: btx, ledger: newBatchLedger()}
	if b.run(ctx, first) == unitBroken {
		return nil
	}
	var timer *time.Timer
	deadline := time.Now().Add(p.opts.MaxWait)
	for b.units < p.opts.MaxBatch {
		var u *pipeUnit
		select {
		case u = <-p.queue:
		default:
		}
		if u == nil {
			wait := time.Until(deadline)
			if wait <= 0 {
				break
			}
			if timer == nil {
				timer = time.NewTimer(wait)
				defer timer.Stop()
			}
			select {
			case u = <-p.queue:
			case <-timer.C:
			case <-p.stop:
			}
			if u == nil {
				break
			}
		}
		switch b.run(ctx, u) {
		case unitConflict:
			carry = u
		case unitBroken:
			return nil
		}
		if carry != nil {
			break
		}
	}
	b.commit(ctx)
	return carry
}

// run runs one unit in its own savepoint (releasing the previous unit's in the same round
// trip) and reports what came of it.
func (b *batch) run(ctx context.Context, u *pipeUnit) unitState {
	first := b.units == 0
	if err := b.savepoint(ctx, !first); err != nil {
		b.fail(err, u)
		return unitBroken
	}
	b.units++
	b.p.stats.units.Add(1)
	ul := b.ledger.unit(b.tx.Tx)
	// The unit's statements run without its caller's cancellation: a statement cancelled
	// half-way would break the batch's connection for every unit in it. statement_timeout
	// still bounds each statement.
	waited := new(atomic.Bool)
	uctx := context.WithValue(context.WithoutCancel(u.ctx), txKey{}, b.tx)
	uctx = context.WithValue(context.WithValue(uctx, unitKey{}, ul), lockWaitKey{}, waited)
	panicked, err := callUnit(uctx, u.fn, &tx{db: b.tx, unit: ul})
	if err == nil && ul.err != nil {
		err = ul.err
	}
	// A unit that gave up waiting for a lock runs again even when it returned nil: the use
	// case may have turned the error into an answer (an HTTP 500 response it then returned).
	conflict := !first && (waited.Load() || ul.lockConflict || lockNotAvailable(err))
	if err == nil && panicked == nil && !conflict {
		b.open, b.openL = u, ul
		return unitDone
	}
	if rerr := b.rollbackUnit(ctx, ul); rerr != nil {
		b.fail(rerr, u)
		return unitBroken
	}
	if conflict && panicked == nil {
		b.p.stats.conflicts.Add(1)
		return unitConflict
	}
	u.done <- unitOutcome{err: err, panicked: panicked}
	return unitFailed
}

func callUnit(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error, t *tx) (panicked any, err error) {
	defer func() {
		if r := recover(); r != nil {
			panicked = r
		}
	}()
	return nil, fn(ctx, t)
}

// savepoint releases the open unit's savepoint (if any), sets lock_timeout once the first
// unit is done, and opens a new savepoint, in one round trip. A release that fails (the unit
// swallowed an error and left its savepoint aborted) fails that unit alone.
func (b *batch) savepoint(ctx context.Context, setTimeout bool) error {
	for {
		sql := "SAVEPOINT corridor_unit"
		if setTimeout && !b.timeout {
			sql = "SET LOCAL lock_timeout = '1ms'; " + sql
		}
		released := b.open != nil
		if released {
			sql = "RELEASE SAVEPOINT corridor_unit; " + sql
		}
		_, err := b.tx.ExecContext(ctx, sql)
		if err == nil {
			b.timeout = b.timeout || setTimeout
			b.released()
			return nil
		}
		if !released || !b.abandonOpen(ctx, err) {
			return err
		}
	}
}

// released moves the open unit (its savepoint released) to the acknowledged-at-commit list.
func (b *batch) released() {
	if b.open != nil {
		b.openL.merge()
		b.acked = append(b.acked, b.open)
		b.open, b.openL = nil, nil
	}
}

// abandonOpen rolls the open unit back after its savepoint could not be released and answers
// it with the error; false means the rollback failed too.
func (b *batch) abandonOpen(ctx context.Context, err error) bool {
	u, ul := b.open, b.openL
	b.open, b.openL = nil, nil
	if rerr := b.rollbackUnit(ctx, ul); rerr != nil {
		b.fail(rerr, u)
		return false
	}
	u.done <- unitOutcome{err: fmt.Errorf("a statement of the unit of work failed and its error was not returned: %w", err)}
	return true
}

func (b *batch) rollbackUnit(ctx context.Context, ul *unitLedger) error {
	ul.discard()
	_, err := b.tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT corridor_unit; RELEASE SAVEPOINT corridor_unit")
	return err
}

// fail rolls the batch back and answers every unit in it (and extra) with err.
func (b *batch) fail(err error, extra ...*pipeUnit) {
	_ = b.tx.Rollback()
	units := append(b.acked, extra...)
	if b.open != nil {
		units = append(units, b.open)
	}
	for _, u := range units {
		u.done <- unitOutcome{err: err}
	}
}

// commit releases the last unit, writes the buffered ledger rows, commits and answers.
func (b *batch) commit(ctx context.Context) {
	b.p.stats.batches.Add(1)
	// The COMMIT may wait (the chain link's stripe head, a concurrent twin's reference):
	// lock_timeout goes back to off first, in the same round trip as the last release.
	for b.open != nil || b.timeout {
		sql := "SET LOCAL lock_timeout = 0"
		if b.open != nil {
			sql = "RELEASE SAVEPOINT corridor_unit; " + sql
		}
		_, err := b.tx.ExecContext(ctx, sql)
		if err == nil {
			b.released()
			b.timeout = false
		} else if b.open == nil || !b.abandonOpen(ctx, err) {
			b.fail(err)
			return
		}
	}
	if len(b.acked) == 0 {
		_ = b.tx.Rollback()
		return
	}
	err := b.ledger.flush(ctx, b.tx.Tx)
	if err == nil && b.p.opts.beforeCommit != nil {
		b.p.opts.beforeCommit()
	}
	if err == nil {
		err = b.tx.Commit()
	} else {
		_ = b.tx.Rollback()
	}
	if err == nil {
		for _, u := range b.acked {
			u.done <- unitOutcome{}
		}
		return
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		// The outcome is unknown: the batch may have committed. Answer as a unit of work whose
		// COMMIT broke would be answered.
		for _, u := range b.acked {
			u.done <- unitOutcome{err: err}
		}
		return
	}
	// PostgreSQL refused the batch, so nothing of it was committed: every unit runs again
	// alone, so that one unit's failure at commit is answered to that unit only.
	b.p.stats.retried.Add(int64(len(b.acked)))
	for _, u := range b.acked {
		go func(u *pipeUnit) {
			panicked, err := callDirect(b.p.direct, u)
			u.done <- unitOutcome{err: err, panicked: panicked}
		}(u)
	}
}

func callDirect(direct func(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error, u *pipeUnit) (panicked any, err error) {
	defer func() {
		if r := recover(); r != nil {
			panicked = r
		}
	}()
	return nil, direct(u.ctx, u.fn)
}

// unitKey carries a unit's ledger layer in its context, for nested units of work.
type unitKey struct{}

// lockWaitKey carries, in a unit's context (nested units included), the flag its statements
// set when one gave up waiting for a lock: the unit then runs again first in the next batch,
// however the use case reported the error.
type lockWaitKey struct{}

func noteLockWait(ctx context.Context, err error) {
	if err != nil && lockNotAvailable(err) {
		if flag, ok := ctx.Value(lockWaitKey{}).(*atomic.Bool); ok {
			flag.Store(true)
		}
	}
}

// lockWaitHook notes lock waits of the Bun repositories' statements (Open installs it).
type lockWaitHook struct{}

func (lockWaitHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (lockWaitHook) AfterQuery(ctx context.Context, e *bun.QueryEvent) { noteLockWait(ctx, e.Err) }

// lockNotAvailable reports lock_timeout's error (55P03).
func lockNotAvailable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "55P03"
}
