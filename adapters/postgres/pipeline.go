package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// The commit pipeline. Without it every unit of work is its own transaction and pays its own
// COMMIT, a WAL flush, and its own round trips. With it, concurrent units of work join a shared
// transaction, a batch, that commits once; no unit is answered before its batch's COMMIT has
// returned, so none is ever acknowledged before it is durable.
//
// Several lanes (each one batch at a time, on one pooled connection) run in parallel. A batch
// admits units until it holds MaxBatch of them or MaxWait has passed since it opened and no
// unit is waiting; then it runs the units it admitted to their ends and commits.
//
// Serial order. The units of a batch take effect one after the other, in the order they
// joined: a unit changes anything (a ledger transfer decided, a statement run) only once every
// unit before it has ended, so each sees the effects of the ones before it as a serial history
// would. Before that, a unit may run as far as its first need: each unit runs on its caller's
// goroutine, one at a time, handing the batch's connection back and forth with its lane.
//
// Ledger-only units cost no round trip of their own (ledger_batch.go). A unit that needs ledger
// balance rows the batch has not locked yet parks; when no unit can go on, the lane locks the
// rows every parked unit needs, and looks their references up, in one statement. Transfers are
// decided in memory and written set-wise before COMMIT, and so are the units' idempotency
// records (batch_records.go).
//
// Units that run statements. A unit's first statement (any repository's, or the unit's
// transaction taken from its context) waits for the unit's turn and opens the unit's
// savepoint, releasing the previous one in the same round trip. A unit that fails is rolled
// back to its savepoint (a unit that ran no statement just drops its ledger layer) and is
// answered with its error when the batch commits.
//
// Locks. Units of one batch share a transaction, so they never wait for each other. Waiting on
// another transaction is the danger: a batch holds every lock its units took until it
// commits, so a batch that waits while it holds locks can close a cycle. So a batch waits only
// while it holds none: its first locking read waits for the rows of the first unit, and its
// first unit to run statements runs them as a unit of work would. Every later locking read
// skips rows another transaction holds (SKIP LOCKED), and every later unit's statements run
// under lock_timeout = 1ms. A unit that meets a held lock is rolled back and runs again, first
// in the lane's next batch. A deadlock between first units is retried as without the pipeline.
//
// A failed write or COMMIT that PostgreSQL answered (nothing was committed) runs every unit of
// the batch again alone, as a unit of work without the pipeline; a COMMIT whose outcome is
// unknown (the connection broke) answers every unit with the error, as a unit of work without
// the pipeline would.
//
// Abandoned batches. A batch's statements, its BEGIN and its COMMIT run under the batch's
// own context, not a unit's: one caller's deadline must not break the connection the others
// share. The batch's context is cancelled once the context of every unit it admitted is done,
// so that a batch nobody waits for any more gives up. When the database stops answering (a
// partition, a silent network), that is what bounds a request: its unit's deadline passes, the
// statement or COMMIT it waits on is interrupted, and it is answered SERVICE_UNAVAILABLE, as it
// would be without the pipeline. The units of a batch usually share one deadline (the HTTP
// request timeout); a unit whose context has no deadline keeps its batch waiting as long as it
// would wait alone.
//
// Overlap. With Overlap on, a lane hands a batch that has run its units to a committer (a
// goroutine that sends the write and the COMMIT) and opens its next batch at once, on another
// pooled connection, so that batch N+1 admits units and runs them to their first needs while
// batch N's COMMIT waits for its WAL flush; N+1 keeps admitting until N has committed (it
// could not commit earlier anyway), so it is no smaller than it would have been. It is safe because the two are separate transactions:
// N+1 cannot read what N has not committed, its first locking read waits for rows N holds (and
// then reads them as N committed them), and its later reads skip them, as for any other
// transaction's rows. N's write and COMMIT never wait for N+1: they touch only the rows N
// locked and the chain heads, which a batch takes only in its own write. Order is kept at the
// end: N+1's write and COMMIT wait until N's COMMIT has returned and N's units were answered,
// so a lane's batches commit and answer in the order they opened, and a unit is never
// answered before a batch it could have followed. A unit carried from N (it met a held lock)
// is the exception to running beside N: N's claim holds its key's lock and its rows until N
// ends, so the batch that runs it again opens only once N has (runBatch).

// PipelineOptions configure the commit pipeline; Lanes <= 0 turns it off.
type PipelineOptions struct {
	// Lanes is how many batches run at once, each on its own connection of the pool.
	Lanes int
	// MaxBatch closes a batch when it holds this many units (0: DefaultPipelineMaxBatch; at
	// most 1024). A batch also closes once 60 of its units ran statements: their savepoints
	// are subtransactions, and past 64 PostgreSQL's snapshots overflow to pg_subtrans.
	MaxBatch int
	// MaxWait closes a batch when this long has passed since it opened and no unit is waiting
	// (0: DefaultPipelineMaxWait; negative: close as soon as no unit is waiting).
	MaxWait time.Duration
	// Overlap lets a lane open its next batch while the previous one writes and commits (a
	// lane then uses up to two connections); its batches still commit in order.
	Overlap bool
	// AlwaysWait makes a batch wait MaxWait even when no unit of work is in flight outside
	// it. Without it such a batch commits at once: nothing is coming to share its COMMIT, and
	// the wait would only delay the units it holds (PostgreSQL's commit_siblings reasoning).
	AlwaysWait bool
	// AffinityPatience is how long a unit with an affinity waits for its lane before any lane
	// may take it (0: DefaultAffinityPatience).
	AffinityPatience time.Duration

	// beforeCommit, in tests, runs after the flush and before the COMMIT of every batch.
	beforeCommit func()
}

// Default pipeline settings (cmd/corridor/config.go documents them).
const (
	DefaultPipelineLanes    = 2
	DefaultPipelineMaxBatch = 128
	DefaultPipelineMaxWait  = time.Millisecond
	maxPipelineBatch        = 1024
)

// ErrPipelineClosed answers units submitted after Close.
var ErrPipelineClosed = core.E(core.CodeServiceUnavailable, "the store is shutting down; retry shortly").Transient(core.RetryDatabase)

// WithPipeline returns a store over the same database whose outermost units of work run
// through a commit pipeline. Close stops its lanes.
func (s *Store) WithPipeline(opts PipelineOptions) *Store {
	if opts.Lanes <= 0 {
		return &Store{db: s.db, refs: s.refs, citus: s.citus}
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
	p := &pipeline{db: s.db, opts: opts, queue: make(chan *pipeUnit), stop: make(chan struct{}), metrics: newPipelineMetrics(), refs: s.refs,
		citus: s.citus}
	out := &Store{db: s.db, pipe: p, refs: s.refs, citus: s.citus}
	p.direct = out.direct
	for range opts.Lanes {
		p.lanes = append(p.lanes, make(chan *pipeUnit))
	}
	for i := 0; i < opts.Lanes; i++ {
		p.wg.Add(1)
		go p.lane(p.lanes[i])
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
	stats   pipelineCounters
	metrics *pipelineMetrics
	db      *bun.DB
	opts    PipelineOptions
	queue   chan *pipeUnit
	// lanes are each lane's own queue: the units whose context names an affinity
	// (ports.WithAffinity) go to the lane the key hashes to.
	lanes []chan *pipeUnit
	stop  chan struct{}
	// inflight counts the units submitted and not yet answered.
	inflight atomic.Int64
	once     sync.Once
	wg       sync.WaitGroup
	direct   func(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error
	refs     *refCache // the store's committed accounts (account_refs.go)
	// citus: the database is a Citus coordinator, so a batch holds the units of one tenant
	// only and a unit no lane takes in time runs alone (pipeline_citus.go).
	citus bool
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
	Loads     int64 // locking reads the lanes ran for parked units (each for every unit parked at the time)
	// Claims are the batches' claims of their units' keys (batch_claim.go), one per batch at most.
	Claims int64
	// UnitLoads are locking reads a unit running statements ran for its own transfer: rows
	// and references neither the batch nor the unit's claim (claim_lock.go) had locked.
	UnitLoads int64
	// CarryWaits are batches (with Overlap) that waited for the lane's previous batch to end
	// before opening, because they run units carried from it.
	CarryWaits int64
	// ApprovalWrites are the statements that wrote card approvals the batches held
	// (batch_approvals.go): one per batch at most, unless a unit's statement came after some.
	ApprovalWrites int64

	// Where the lanes' time went, summed over the lanes: waiting for units to arrive (an
	// empty queue, a batch's MaxWait; with Overlap also the previous batch's COMMIT while the
	// next batch admits), waiting for a COMMIT to return (the batch's own without Overlap; the
	// previous batch's, once the next has run its units, with it), and the rest (running
	// units, locking reads, opening batches): LaneTime minus the two waits.
	LaneTime, LaneWaitUnits, LaneWaitCommit time.Duration
}

type pipelineCounters struct {
	batches, units, conflicts, retried, loads, unitLoads, claims, carryWaits atomic.Int64
	approvalWrites                                                           atomic.Int64
	laneTime, waitUnits, waitCommit                                          atomic.Int64 // nanoseconds
}

// PipelineStats reports the pipeline's counters (zero without a pipeline).
func (s *Store) PipelineStats() PipelineStats {
	if s.pipe == nil {
		return PipelineStats{}
	}
	c := &s.pipe.stats
	return PipelineStats{Batches: c.batches.Load(), Units: c.units.Load(), Conflicts: c.conflicts.Load(), Retried: c.retried.Load(),
		Loads: c.loads.Load(), Claims: c.claims.Load(), UnitLoads: c.unitLoads.Load(), CarryWaits: c.carryWaits.Load(), ApprovalWrites: c.approvalWrites.Load(), LaneTime: time.Duration(c.laneTime.Load()), LaneWaitUnits: time.Duration(c.waitUnits.Load()),
		LaneWaitCommit: time.Duration(c.waitCommit.Load())}
}

// pipeUnit is one submitted unit of work; its caller's goroutine runs it when a lane says so.
type pipeUnit struct {
	ctx context.Context
	// submitted is when the unit was submitted; admitted is set when a batch first admits it
	// (the unit's wait to join a batch, pipeline_metrics.go).
	submitted time.Time
	admitted  bool
	fn        func(ctx context.Context, tx ports.Tx) error
	wake      chan wake
	// carried: it met a held lock in a batch and runs again first in the next, claiming its key
	// alone so that its statements may wait (batch_claim.go).
	carried bool
}

// wake is what a lane tells a unit's goroutine.
type wake struct {
	m      *member      // run in this batch (from its start)
	abort  bool         // to a parked unit: give up (a held lock, or a batch that cannot commit)
	direct bool         // run alone, without the pipeline
	out    *unitOutcome // the unit's answer
}

type unitOutcome struct {
	err      error
	panicked any
}

// submit runs fn in a batch and returns its outcome once its batch committed. A panic in fn
// is raised again once the batch is done with the unit.
func (p *pipeline) submit(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	u := &pipeUnit{ctx: ctx, fn: fn, wake: make(chan wake, 1), submitted: time.Now()}
	p.inflight.Add(1)
	defer p.inflight.Add(-1)
	defer p.metrics.answered(u.submitted)
	if err := p.enqueue(ctx, u); errors.Is(err, errNoLane) {
		return p.direct(ctx, fn)
	} else if err != nil {
		return err
	}
	for {
		w := <-u.wake
		switch {
		case w.out != nil:
			if w.out.panicked != nil {
				panic(w.out.panicked)
			}
			return w.out.err
		case w.direct:
			return p.direct(ctx, fn)
		default:
			w.m.execute()
		}
	}
}

// queueFor is the queue a unit joins: its affinity's lane's, else the one every lane takes from.
// Units of one tenant lock the same rows (its balances, its cards); in two lanes, each batch
// holds them until it commits and the other's units meet them and run again.
func (p *pipeline) queueFor(ctx context.Context) chan *pipeUnit {
	key := ports.Affinity(ctx)
	if key == "" || len(p.lanes) < 2 {
		return p.queue
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	return p.lanes[int(h.Sum32()>>1)%len(p.lanes)] // 31 bits: never negative, even where int is 32
}

// DefaultAffinityPatience is how long a unit waits for its affinity's lane before any lane may
// take it: a lane's batch commits in milliseconds, so only a stuck lane makes a unit wait this long.
const DefaultAffinityPatience = 250 * time.Millisecond

// enqueue hands u to its queue (queueFor). A unit with an affinity waits for its lane only
// the pipeline's AffinityPatience: a lane stuck in its batch (a Citus worker that stopped answering, a long
// lock wait) must not hold up every other tenant hashed to it, so past that the unit joins the
// shared queue, which every lane takes from. Affinity is a preference for fewer reruns, never a
// reason to wait on another tenant's outage.
func (p *pipeline) enqueue(ctx context.Context, u *pipeUnit) error {
	if q := p.queueFor(ctx); q != p.queue {
		wait := p.opts.AffinityPatience
		if wait <= 0 {
			wait = DefaultAffinityPatience
		}
		patience := time.NewTimer(wait)
		defer patience.Stop()
		select {
		case q <- u:
			return nil
		case <-patience.C:
			p.metrics.spills.Inc()
		case <-ctx.Done():
			return ctx.Err()
		case <-p.stop:
			return ErrPipelineClosed
		}
	}
	select {
	case p.queue <- u:
		return nil
	case <-p.laneTimeout():
		return errNoLane
	case <-ctx.Done():
		return ctx.Err()
	case <-p.stop:
		return ErrPipelineClosed
	}
}

// lane runs batches one after the other until the pipeline stops, admitting units from the
// shared queue and from its own.
func (p *pipeline) lane(own chan *pipeUnit) {
	defer p.wg.Done()
	var carry []*pipeUnit
	var prev <-chan struct{} // closed once the lane's previous batch committed and answered
	defer func() {
		if prev != nil {
			<-prev
		}
	}()
	idle := time.NewTicker(idleTick)
	defer idle.Stop()
	for {
		start := time.Now()
		for len(carry) == 0 {
			select {
			case u := <-p.queue:
				carry = []*pipeUnit{u}
			case u := <-own:
				carry = []*pipeUnit{u}
			case <-idle.C:
				start = p.countIdle(start)
				continue
			case <-p.stop:
				return
			}
			p.stats.waitUnits.Add(int64(time.Since(start)))
		}
		carry, prev = p.runBatch(own, carry, prev)
		p.stats.laneTime.Add(int64(time.Since(start)))
	}
}

// idleTick is how often an idle lane counts its wait: the lanes' time is counted as batches end,
// and without it a lane's idle time would land, whole, on the first batch after it, so a
// reading taken while the lanes idle (a dashboard, a benchmark between scenarios) would miss it.
const idleTick = 100 * time.Millisecond

// countIdle counts the wait since start as the lane's wait for units and returns now.
func (p *pipeline) countIdle(start time.Time) time.Time {
	now := time.Now()
	p.stats.waitUnits.Add(int64(now.Sub(start)))
	p.stats.laneTime.Add(int64(now.Sub(start)))
	return now
}

// memberState is where a unit of a batch stands.
type memberState int

const (
	memberIdle        memberState = iota // admitted, not started
	memberRunning                        // holds the batch's connection
	memberParkedLoad                     // waits for ledger rows to be locked
	memberParkedOrder                    // waits for the units before it to end
	memberParkedClaim                    // waits for the batch's claim of its key (batch_claim.go)
	memberEnded                          // its function returned
)

// loadNeed is what a unit parked on ledger rows waits for.
type loadNeed struct {
	ids        []string
	ref        refKey
	refUnknown bool
}

// member is one run of a unit in a batch.
type member struct {
	u        *pipeUnit
	b        *batch
	l        *unitLedger
	finds    *accountFinds // accounts the unit's statements found (account_refs.go)
	state    memberState
	need     loadNeed
	abort    bool        // told to give up: it runs again
	sql      bool        // ran a statement: its savepoint is open
	mayWait  bool        // its statements may wait for locks (its batch held none when it started them)
	waited   atomic.Bool // a statement of it gave up waiting for a lock
	claim    *claimNeed  // its key, parked for the batch's claim, and the claim's outcome (batch_claim.go)
	err      error
	panicked any
}

// batch is one shared transaction.
type batch struct {
	p          *pipeline
	bc         *batchContext // the context of the batch's BEGIN, statements and COMMIT
	tx         bun.Tx
	q          txQuerier
	ledger     *batchLedger
	finds      *accountFinds // accounts its kept units found, published once it commits
	events     chan *member  // a running unit hands the connection back
	members    []*member
	head       int     // the first member that has not ended
	open       *member // the last member that ran statements, its savepoint not yet released
	ended      []*member
	carry      []*pipeUnit
	sqlUnits   int
	holdsLocks bool  // the batch's transaction may hold locks
	claimRan   bool  // the batch claimed its parked units' keys (batch_claim.go); later claims run alone
	timeout    bool  // lock_timeout is set
	poisoned   error // the batch cannot commit: its units run again alone
	openedAt   time.Time
	affinity   string // its first unit's affinity: on Citus, every unit's (pipeline_citus.go)
	// cardsTouched are the cards (and attachmentsTouched) a unit's statement may have changed
	// since the batch's claim read cards (batch_claim_cards.go).
	cardsTouched map[string]bool
}

// maxSQLUnits bounds the savepoints of a batch: they are subtransactions, and past 64
// PostgreSQL's snapshots overflow to pg_subtrans.
const maxSQLUnits = 60

// runBatch admits carried and the units that join them, runs them, commits (after prev, the
// lane's previous batch, is done), answers, and returns the units that must run first in the
// next batch. With Overlap it returns once the units have run, and the commit goes on in a
// committer whose end the returned channel signals.
func (p *pipeline) runBatch(own chan *pipeUnit, carried []*pipeUnit, prev <-chan struct{}) ([]*pipeUnit, <-chan struct{}) {
	if prev != nil && carriesUnits(carried) {
		// A unit carried from the previous batch left its key's claim and its rows there (the
		// batch's claim is the batch's, not the unit's: batch_claim.go) until that batch ends;
		// run again beside it, it would find its own key held and be answered "in progress".
		p.stats.carryWaits.Add(1)
		waiting := time.Now()
		<-prev
		p.stats.waitCommit.Add(int64(time.Since(waiting)))
		prev = nil
	}
	b := p.openBatch(carried)
	if b == nil {
		return nil, prev
	}
	if !b.fill(own, prev) {
		defer b.bc.done()
		return b.runAlone(), prev
	}
	return b.finish(prev)
}

// carriesUnits reports whether units holds a unit carried from a previous batch.
func carriesUnits(units []*pipeUnit) bool {
	for _, u := range units {
		if u.carried {
			return true
		}
	}
	return false
}

// openBatch begins the batch's transaction for the carried units, watching their contexts
// first; when BEGIN fails they are answered with the failure and there is no batch.
func (p *pipeline) openBatch(carried []*pipeUnit) *batch {
	bc := newBatchContext()
	for _, u := range carried {
		bc.watch(u.ctx)
	}
	btx, err := p.db.BeginTx(bc.ctx, nil)
	if err != nil {
		if pe := poolWaitFailure(p.db.DB, err); pe != err && bc.ctx.Err() != nil {
			err = pe // the callers' deadlines passed while the pool had no connection to lend
		} else {
			err = bc.failure(err)
		}
		bc.done()
		for _, u := range carried {
			u.wake <- wake{out: &unitOutcome{err: err}}
		}
		return nil
	}
	b := &batch{p: p, bc: bc, tx: btx, q: txQuerier{btx.Tx}, ledger: newBatchLedger(), events: make(chan *member), openedAt: time.Now(),
		finds: &accountFinds{cache: p.refs}, affinity: ports.Affinity(carried[0].ctx)}
	for _, u := range carried {
		b.add(u)
	}
	return b
}

// admission is what a filling batch still waits for before it stops admitting: its MaxWait
// (timer) and, with Overlap, the lane's previous batch (prev); nil once over.
type admission struct {
	timerC <-chan time.Time
	prev   <-chan struct{}
}

// admitStep is what one admission step did.
type admitStep int

const (
	admitted     admitStep = iota // a unit joined: run the loop again
	admitAlone                    // no unit could join soon: stop admitting, run the loop again
	admitWaitOut                  // the waits are over: stop admitting
)

// fill runs the batch's members, admitting units that join until the batch is full or its
// waits are over, and loads the rows parked members need, until every member has ended.
// It is false when the batch was poisoned and its units must run alone.
func (b *batch) fill(own chan *pipeUnit, prev <-chan struct{}) bool {
	p := b.p
	admitting := true
	timer := time.NewTimer(p.opts.MaxWait)
	defer timer.Stop()
	// With Overlap, the batch admits units until its MaxWait is over and the lane's previous
	// batch has committed: it could not commit before that anyway.
	w := admission{timerC: timer.C, prev: prev}
	for {
		if b.poisoned != nil {
			return false
		}
		if m, abort := b.runnable(); m != nil {
			b.give(m, abort)
			continue
		}
		if admitting && len(b.members) < p.opts.MaxBatch && b.sqlUnits+b.claimsParked() < maxSQLUnits {
			switch b.admitNext(own, &w) {
			case admitted:
				continue
			case admitAlone:
				admitting = false
				continue
			case admitWaitOut:
			}
		}
		admitting = false
		if !b.claimRan && b.claimsParked() > 0 {
			b.claimAll(b.bc.ctx)
			continue
		}
		if set := b.loadSet(); !set.empty() {
			b.load(b.bc.ctx, set)
			continue
		}
		return true
	}
}

// admitNext admits a unit waiting in the queues, or else waits for one until the batch's
// waits are over (not at all when no unit outside the batch could join it soon).
func (b *batch) admitNext(own chan *pipeUnit, w *admission) admitStep {
	p := b.p
	select {
	case u := <-p.queue:
		return b.takeStep(u)
	case u := <-own:
		return b.takeStep(u)
	default:
	}
	if w.timerC != nil && !p.opts.AlwaysWait && p.inflight.Load() <= int64(len(b.members)) {
		w.timerC = nil // alone: no unit outside the batch could join it soon
	}
	if w.timerC == nil && w.prev == nil {
		return admitAlone
	}
	waiting := time.Now()
	defer func() { p.stats.waitUnits.Add(int64(time.Since(waiting))) }()
	select {
	case u := <-p.queue:
		return b.takeStep(u)
	case u := <-own:
		return b.takeStep(u)
	case <-w.timerC:
		w.timerC = nil
	case <-w.prev:
		w.prev = nil
	case <-p.stop:
		w.timerC, w.prev = nil, nil
	}
	if w.timerC != nil || w.prev != nil {
		return admitted
	}
	return admitWaitOut
}

// takeStep takes u (batch.take): a unit of another affinity, handed back, ends the admission.
func (b *batch) takeStep(u *pipeUnit) admitStep {
	if b.take(u) {
		return admitted
	}
	return admitAlone
}

// finish commits the batch once every member has ended. With Overlap a committer commits it
// while the lane's next batch runs; at most one batch of a lane commits while the next runs,
// so finish first waits for this batch's predecessor. Every member has ended, so the carried
// units are known.
func (b *batch) finish(prev <-chan struct{}) ([]*pipeUnit, <-chan struct{}) {
	p, bc := b.p, b.bc
	if !p.opts.Overlap {
		defer bc.done()
	}
	committing := time.Now()
	defer func() { p.stats.waitCommit.Add(int64(time.Since(committing))) }()
	if !p.opts.Overlap {
		return b.commit(bc.ctx, prev), nil
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer bc.done()
		b.commit(bc.ctx, prev)
	}()
	if prev != nil {
		<-prev
	}
	return b.carry, done
}

// admit adds a unit that joined the batch, watching its context.
func (b *batch) admit(u *pipeUnit) {
	b.bc.watch(u.ctx)
	b.add(u)
}

// add adds u to the batch (a carried unit's context was watched before BEGIN).
func (b *batch) add(u *pipeUnit) {
	if !u.admitted {
		u.admitted = true
		b.p.metrics.joined(u.submitted)
	}
	m := &member{u: u, b: b}
	m.l = b.ledger.unit(m, b.tx.Tx)
	b.members = append(b.members, m)
}

// runnable picks the member to run next: a new one (to its first need), one told to give up,
// or the head once what it waits for is there.
func (b *batch) runnable() (*member, bool) {
	for _, m := range b.members[b.head:] {
		switch {
		case m.state == memberIdle:
			return m, false
		case m.abort && (m.state == memberParkedLoad || m.state == memberParkedOrder || m.state == memberParkedClaim):
			return m, true
		}
	}
	if b.head == len(b.members) {
		return nil, false
	}
	h := b.members[b.head]
	// A unit the batch's claim answered resumes in its turn only: waking it earlier would just
	// park it again, a wake-up pair in the lane's serial time for nothing.
	claimed := h.state == memberParkedClaim && h.claim.done
	if claimed || h.state == memberParkedOrder || (h.state == memberParkedLoad && b.satisfied(h)) {
		return h, false
	}
	return nil, false
}

func (b *batch) satisfied(m *member) bool {
	for _, id := range m.need.ids {
		if _, ok := b.ledger.known[id]; !ok && !b.ledger.absent[id] {
			return false
		}
	}
	if m.need.refUnknown {
		_, looked := b.ledger.dbRefs[m.need.ref]
		_, inBatch := b.ledger.refs[m.need.ref]
		return looked || inBatch
	}
	return true
}

// give hands the connection to m until it parks or ends.
func (b *batch) give(m *member, abort bool) {
	if m.state == memberIdle {
		b.p.stats.units.Add(1)
		m.state = memberRunning
		m.u.wake <- wake{m: m}
	} else {
		m.state = memberRunning
		m.u.wake <- wake{abort: abort}
	}
	<-b.events
	if m.state == memberEnded {
		b.end(m)
	}
}

// execute runs the unit's function on its caller's goroutine, then hands the connection back.
func (m *member) execute() {
	b := m.b
	// The unit's statements run under the batch's context, not their caller's: a statement
	// cancelled half-way would break the batch's connection for every unit in it. The batch's
	// context ends once no caller waits (batchContext); statement_timeout bounds each statement.
	ctx := context.WithValue(unitValues{Context: b.bc.ctx, values: m.u.ctx}, txKey{}, b.tx)
	ctx = context.WithValue(context.WithValue(ctx, unitKey{}, m.l), lockWaitKey{}, &m.waited)
	ctx, m.finds = withFinds(ctx, b.p.refs)
	m.panicked, m.err = callUnit(ctx, m.u.fn, &tx{db: b.tx, unit: m.l, citus: b.p.citus})
	if m.err == nil && m.l.err != nil {
		m.err = m.l.err
	}
	m.state = memberEnded
	b.events <- m
}

func callUnit(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error, t *tx) (panicked any, err error) {
	defer func() {
		if r := recover(); r != nil {
			if r == errGaveUp {
				err = errRowsBusy // the member is carried or run alone, never answered with this
				return
			}
			panicked = r
		}
	}()
	return nil, fn(ctx, t)
}

// errGaveUp is raised (as a panic) by a statement of a unit told to give up, so that the
// statement never runs: the unit ran no statement yet, so nothing of it is to be undone.
var errGaveUp = errors.New("postgres: the unit of work gave up its place in the batch")

// park hands the connection back until the lane resumes m; true means m must give up.
func (m *member) park(state memberState, need loadNeed) bool {
	m.state, m.need = state, need
	m.b.events <- m
	return (<-m.u.wake).abort
}

// awaitTurn parks m until every unit before it has ended; false means m must give up.
func (m *member) awaitTurn() bool {
	for m.b.members[m.b.head] != m {
		if m.park(memberParkedOrder, loadNeed{}) {
			return false
		}
	}
	return true
}

// enterSQL runs before every statement of a unit: the first waits for the unit's turn and
// opens its savepoint (releasing the previous unit's and, when the batch may hold locks,
// setting lock_timeout, in the same round trip).
func (m *member) enterSQL() {
	b := m.b
	if m.sql {
		return
	}
	if b.poisoned != nil || m.abort {
		panic(errGaveUp)
	}
	if !m.awaitTurn() {
		panic(errGaveUp)
	}
	m.mayWait = !b.holdsLocks
	// The three wait on the connection and travel with the unit's first statement (driver.go),
	// so the unit's turn costs no exchange of its own. A failure among them (the previous
	// unit's deferred idempotency record) surfaces from that statement and leaves the
	// connection unable to roll back to a savepoint, so the batch is poisoned, not the unit.
	var stmts [3]string
	sqls := stmts[:0]
	if b.open != nil {
		sqls = append(sqls, "RELEASE SAVEPOINT corridor_unit")
	}
	if !m.mayWait && !b.timeout {
		sqls = append(sqls, "SET LOCAL lock_timeout = '1ms'")
	}
	for _, sql := range append(sqls, "SAVEPOINT corridor_unit") {
		if _, err := b.tx.Tx.ExecContext(b.bc.ctx, sql, deferExec{}); err != nil {
			b.poison(err)
			return
		}
	}
	b.open = nil
	b.timeout = b.timeout || !m.mayWait
	b.holdsLocks = true
	m.sql = true
	b.sqlUnits++
}

// enterSQLFor runs enterSQL for the unit a statement's context belongs to, if any, and has
// the approvals its batch holds written first (batch_approvals.go).
func enterSQLFor(ctx context.Context) {
	if ul, _ := ctx.Value(unitKey{}).(*unitLedger); ul != nil {
		ul.m.enterSQL()
		ul.writeHeldApprovals()
	}
}

// end settles a member whose function returned: kept (merged into the batch), rolled back,
// or rolled back and carried to the next batch.
func (b *batch) end(m *member) {
	conflict := m.abort || m.l.lockConflict || (!m.mayWait && (m.waited.Load() || lockNotAvailable(m.err)))
	if m.err == nil && m.panicked == nil && !conflict {
		m.l.merge()
		b.finds.keep(m.finds)
		if m.sql {
			b.open = m
		}
		b.ended = append(b.ended, m)
	} else {
		if m.sql {
			b.rollbackUnit()
		}
		m.l.discard()
		// A unit that gave up on a lock runs again even when it returned nil: the use case may
		// have turned the error into an answer (an HTTP 500 response it then returned).
		if conflict && m.panicked == nil {
			b.p.stats.conflicts.Add(1)
			m.u.carried = true
			b.carry = append(b.carry, m.u)
		} else {
			b.ended = append(b.ended, m)
		}
	}
	for b.head < len(b.members) && b.members[b.head].state == memberEnded {
		b.head++
	}
}

// rollbackUnit undoes the ending unit's statements. Its savepoint may still wait on the
// connection (nothing the unit sent carried it): the driver then drops it and what followed it
// unsent, and the release with it. The release of a sent one waits for the next statement.
func (b *batch) rollbackUnit() {
	if _, err := b.tx.Tx.ExecContext(b.bc.ctx, "ROLLBACK TO SAVEPOINT corridor_unit"); err != nil {
		b.poison(err)
		return
	}
	if _, err := b.tx.Tx.ExecContext(b.bc.ctx, "RELEASE SAVEPOINT corridor_unit", deferExec{}); err != nil {
		b.poison(err)
	}
}

// poison marks the batch unable to commit and rolls it back at once, so that the running
// unit's further statements fail.
func (b *batch) poison(err error) {
	if b.poisoned == nil {
		b.poisoned = err
		_ = b.tx.Rollback()
	}
}

// loadSet is what the parked units wait for: rows the batch has not locked and references
// not looked up. When the batch holds no lock yet, the head's rows are waited for; the
// others' are skipped when another transaction holds them.
func (b *batch) loadSet() lockSet {
	var set lockSet
	seen := map[string]bool{}
	seenRef := map[refKey]bool{}
	for _, m := range b.members[b.head:] {
		if m.state != memberParkedLoad || m.abort || b.satisfied(m) {
			continue
		}
		for _, id := range m.need.ids {
			if _, ok := b.ledger.known[id]; ok || seen[id] || b.ledger.absent[id] {
				continue
			}
			seen[id] = true
			if m == b.members[b.head] && !b.holdsLocks {
				set.wait = append(set.wait, id)
			} else {
				set.skip = append(set.skip, id)
			}
		}
		if m.need.refUnknown && !seenRef[m.need.ref] {
			seenRef[m.need.ref] = true
			set.refs = append(set.refs, m.need.ref)
		}
	}
	return set
}

// load locks and looks up set for the parked units; a unit whose rows another transaction
// holds is told to give up (it runs again first in the next batch).
func (b *batch) load(ctx context.Context, set lockSet) {
	b.p.stats.loads.Add(1)
	if err := b.ledger.lock(ctx, b.q, set, b.ledger.known, b.p.citus); err != nil {
		b.poison(err)
		return
	}
	b.holdsLocks = true
	for _, m := range b.members[b.head:] {
		if m.state == memberParkedLoad && !b.satisfied(m) {
			m.abort = true
		}
	}
}

// runAlone answers a batch that cannot commit: it was rolled back, and every unit of it runs
// again alone (the parked ones once they have given up).
func (b *batch) runAlone() []*pipeUnit {
	for _, m := range b.members[b.head:] {
		switch m.state {
		case memberIdle:
			m.state = memberEnded
			b.ended = append(b.ended, m)
		case memberParkedLoad, memberParkedOrder, memberParkedClaim:
			m.abort = true
			b.give(m, true)
		}
	}
	for _, m := range b.ended {
		b.p.stats.retried.Add(1)
		m.u.wake <- wake{direct: true}
	}
	return b.carry
}

// commit releases the last savepoint, writes the buffered ledger rows, commits and answers,
// once prev (the lane's previous batch, nil when it is done) has committed and answered.
func (b *batch) commit(ctx context.Context, prev <-chan struct{}) []*pipeUnit {
	if prev != nil {
		<-prev
	}
	b.p.stats.batches.Add(1)
	b.p.metrics.observe(len(b.ended), b.openedAt)
	kept := false
	for _, m := range b.ended {
		kept = kept || (m.err == nil && m.panicked == nil)
	}
	if !kept {
		_ = b.tx.Rollback()
		b.answer(nil)
		return b.carry
	}
	// The write and the COMMIT may wait (a concurrent twin's reference, a chain stripe's head):
	// lock_timeout goes back to off first, after the last release. The three travel with the
	// COMMIT (driver.go), so a batch of transfers costs two exchanges: its locking read (with
	// BEGIN) and its COMMIT.
	var err error
	writing := time.Now()
	if b.open != nil {
		_, err = b.tx.Tx.ExecContext(ctx, "RELEASE SAVEPOINT corridor_unit", deferExec{})
	}
	if err == nil && b.timeout {
		_, err = b.tx.Tx.ExecContext(ctx, "SET LOCAL lock_timeout = 0", deferExec{})
	}
	if err == nil {
		err = b.ledger.flush(ctx, b.q, b.p.citus)
	}
	if err == nil {
		err = writeRecords(ctx, b.q, b.ledger.records)
	}
	if err == nil {
		err = writeApprovals(ctx, b.tx.Tx, b.ledger.approvals, &b.p.stats.approvalWrites)
	}
	if err == nil && b.p.citus {
		err = markTwoPhase(ctx, b.tx.Tx)
	}
	if err == nil && b.p.opts.beforeCommit != nil {
		b.p.opts.beforeCommit()
	}
	if err == nil {
		err = b.tx.Commit()
		b.p.metrics.commit.Observe(time.Since(writing).Seconds())
	} else {
		_ = b.tx.Rollback()
	}
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		b.p.refs.publish(b.finds.list) // committed
		b.answer(nil)
	case errors.As(err, &pgErr):
		// PostgreSQL refused the batch, so nothing of it was committed: every unit runs again
		// alone, so that one unit's failure at commit is answered to that unit only.
		b.poisoned = err
		return b.runAlone()
	default:
		// The outcome is unknown: the batch may have committed. Answer as a unit of work whose
		// COMMIT broke would be answered.
		b.answer(b.bc.failure(err))
	}
	return b.carry
}

// answer answers every ended unit: with its own outcome, or with err when err is not nil.
func (b *batch) answer(err error) {
	for _, m := range b.ended {
		out := &unitOutcome{err: m.err, panicked: m.panicked}
		if err != nil {
			out = &unitOutcome{err: err}
		}
		m.u.wake <- wake{out: out}
	}
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

// lockWaitHook opens the savepoint of a batch's unit before its first Bun statement and notes
// lock waits of the Bun repositories' statements (Open installs it).
type lockWaitHook struct{}

func (lockWaitHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	enterSQLFor(ctx)
	return ctx
}

func (lockWaitHook) AfterQuery(ctx context.Context, e *bun.QueryEvent) { noteLockWait(ctx, e.Err) }

// lockNotAvailable reports lock_timeout's error (55P03).
func lockNotAvailable(err error) bool {
	if err == nil {
		return false // asked after every statement: the target errors.As fills would escape
	}
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "55P03"
}

// batchContext is a batch's context. It is cancelled once the context of every unit the batch
// watches is done: nobody waits for the batch any more, so a BEGIN, statement or COMMIT the
// database does not answer is interrupted instead of holding the lane. A context that is never
// done (no deadline) keeps the batch going.
type batchContext struct {
	ctx    context.Context
	cancel context.CancelFunc
	live   atomic.Int64 // watched contexts not done yet
	mu     sync.Mutex
	stops  []func() bool
}

func newBatchContext() *batchContext {
	ctx, cancel := context.WithCancel(context.Background())
	return &batchContext{ctx: ctx, cancel: cancel}
}

// watch counts a unit's context among those the batch serves.
func (c *batchContext) watch(ctx context.Context) {
	c.live.Add(1)
	stop := context.AfterFunc(ctx, func() {
		if c.live.Add(-1) == 0 {
			c.cancel()
		}
	})
	c.mu.Lock()
	c.stops = append(c.stops, stop)
	c.mu.Unlock()
}

// done ends the batch's context once the batch has committed or given up.
func (c *batchContext) done() {
	c.mu.Lock()
	for _, stop := range c.stops {
		stop()
	}
	c.stops = nil
	c.mu.Unlock()
	c.cancel()
}

// errBatchAbandoned answers the units of a batch interrupted because every caller had gone.
var errBatchAbandoned = core.E(core.CodeServiceUnavailable, "the database did not answer in time; retry shortly").Transient(core.RetryDatabase)

// failure maps an error the batch met once its context was cancelled to SERVICE_UNAVAILABLE:
// the database did not answer before the callers' deadlines.
func (c *batchContext) failure(err error) error {
	if err != nil && c.ctx.Err() != nil {
		return fmt.Errorf("%w: %w", errBatchAbandoned, err)
	}
	return err
}

// unitValues is the context of a unit's statements in a batch: the unit's values (its
// transaction, ledger layer, trace) under the batch's cancellation.
type unitValues struct {
	context.Context
	values context.Context
}

func (c unitValues) Value(key any) any { return c.values.Value(key) }
