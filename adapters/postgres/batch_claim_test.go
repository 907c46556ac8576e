package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

const claimScope = "tenant:batchclaim"

// depositUnit is a deposit's unit as the use case runs it: the claim of its key with its
// intent (the world account, to, the reference "dep-"+key), a replay answered from the stored
// record, else the transfer and the record. after runs between the transfer and the record
// (nil: nothing): its error, or its panic, fails the unit.
func depositUnit(world, to ledger.Account, key string, after func() error) func(ctx context.Context, tx ports.Tx) error {
	return func(ctx context.Context, tx ports.Tx) error {
		now := time.Now().UTC().Truncate(time.Microsecond)
		cctx := ports.WithLedgerIntent(ctx, ports.LedgerIntent{Environment: core.EnvTest,
			Accounts: []ledger.AccountSpec{world.Spec(), to.Spec()}, References: []string{"dep-" + key}})
		rec, stored, claimed, err := tx.Idempotency().Claim(cctx, claimScope, core.EnvTest, key, now)
		switch {
		case err != nil:
			return err
		case stored:
			return replayed{status: rec.StatusCode, body: string(rec.Body)}
		case !claimed:
			return errors.New("the key is held by another request")
		}
		if _, _, err := tx.Ledger().Post(ctx, now, move("dep-"+key, world.ID, to.ID, 5)); err != nil {
			return err
		}
		if after != nil {
			if err := after(); err != nil {
				return err
			}
		}
		return tx.Idempotency().Save(ctx, ports.IdempotencyRecord{Scope: claimScope, Environment: core.EnvTest, Key: key,
			Fingerprint: "f", StatusCode: 201, Body: []byte(key), ContentType: "text/plain", CreatedAt: now,
			ExpiresAt: now.Add(time.Hour)})
	}
}

// replayed is a unit's answer from a stored record.
type replayed struct {
	status int
	body   string
}

func (r replayed) Error() string { return fmt.Sprintf("replayed %d %q", r.status, r.body) }

// runBatch submits fns in order (each has started before the next is submitted) and returns
// their outcomes, a panic as an error naming it.
func runBatch(s *postgres.Store, fns ...func(ctx context.Context, tx ports.Tx) error) []error {
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		started := make(chan struct{})
		var once sync.Once
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs[i] = fmt.Errorf("panic: %v", r)
				}
			}()
			errs[i] = s.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
				once.Do(func() { close(started) })
				return fn(ctx, tx)
			})
		}()
		<-started
	}
	wg.Wait()
	return errs
}

// TestPipeline_BatchClaimsItsKeysTogether: a batch of N deposits whose requests named their
// key's ledger rows costs two exchanges with PostgreSQL, the batch's claim of every key (with
// BEGIN) and its write (with COMMIT), where claiming each key in its unit's turn cost N+1. The
// deposits apply once each, and the ledger verifies.
func TestPipeline_BatchClaimsItsKeysTogether(t *testing.T) {
	t.Parallel()
	direct, writes := postgres.ExchangeStore(t)
	ctx := context.Background()
	specs := []ledger.AccountSpec{ledger.World(core.EnvTest, ledger.AssetUSDC, "batch-claim-bank")}
	for range 4 {
		specs = append(specs, ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, core.NewID(core.PrefixTenant)))
	}
	var accts []ledger.Account
	err := direct.InTx(ctx, func(ctx context.Context, tx ports.Tx) (err error) {
		accts, err = tx.Ledger().OpenAccounts(ctx, time.Now(), specs...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	const n = 6
	s := direct.WithPipeline(postgres.PipelineOptions{Lanes: 1, MaxBatch: n, MaxWait: time.Hour, AlwaysWait: true})
	t.Cleanup(s.Close)
	batch := func(round string) int64 {
		t.Helper()
		fns := make([]func(ctx context.Context, tx ports.Tx) error, n)
		for i := range fns {
			fns[i] = depositUnit(accts[0], accts[1+i%4], fmt.Sprintf("%s-%d", round, i), nil)
		}
		before := writes.Load()
		if err := errors.Join(runBatch(s, fns...)...); err != nil {
			t.Fatal(err)
		}
		return writes.Load() - before
	}
	batch("warm") // the connection prepares each statement on its first use
	if got := batch("measured"); got != 2 {
		t.Errorf("a batch of %d deposits: %d exchanges, want 2 (the batch's claim with BEGIN, its write with COMMIT)", n, got)
	}
	if st := s.PipelineStats(); st.Claims != 2 || st.Batches != 2 || st.UnitLoads != 0 || st.Loads != 0 {
		t.Errorf("stats %+v: want one claim per batch, no locking read of the units' own", st)
	}
	var posted int64
	err = direct.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		bals, err := tx.Ledger().Balances(ctx, []string{accts[1].ID, accts[2].ID, accts[3].ID, accts[4].ID})
		for _, b := range bals {
			posted += b.Posted
		}
		return err
	})
	if err != nil || posted != 2*n*5 {
		t.Errorf("posted %d to the tenants (%v), want %d", posted, err, 2*n*5)
	}
}

// TestPipeline_BatchClaimGivesBackFailedUnits: in one batch claimed together, a unit that fails
// after its transfer (an error, a panic) leaves nothing, and its key free once the batch
// committed; its twin later in the batch (same key) then applies; a twin after a unit that
// ended well replays that unit's answer; a key stored before the batch replays; the other units
// commit. Each key's transfer is recorded once.
func TestPipeline_BatchClaimGivesBackFailedUnits(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 3)
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 7, MaxWait: time.Hour, AlwaysWait: true})
	w, a := p.world, p.accounts
	if err := p.direct.InTx(context.Background(), depositUnit(w, a[0], "stored", nil)); err != nil {
		t.Fatal(err) // stored before the batch, without the pipeline
	}
	boom := errors.New("boom")
	errs := runBatch(s,
		depositUnit(w, a[0], "failed", func() error { return boom }),
		depositUnit(w, a[1], "failed", nil), // the failed unit's twin: applies
		depositUnit(w, a[2], "twin", nil),
		depositUnit(w, a[0], "twin", nil), // replays the first twin
		depositUnit(w, a[1], "panicked", func() error { panic("unit panicked") }),
		depositUnit(w, a[2], "stored", nil), // replays the record stored before the batch
		depositUnit(w, a[0], "plain", nil),
	)
	want := []string{"boom", "", "", `replayed 201 "twin"`, "panic: unit panicked", `replayed 201 "stored"`, ""}
	for i, err := range errs {
		if got := fmt.Sprint(err); (err == nil && want[i] != "") || (err != nil && got != want[i]) {
			t.Errorf("unit %d answered %v, want %q", i, err, want[i])
		}
	}
	if st := s.PipelineStats(); st.Claims != 1 || st.Retried != 0 {
		t.Errorf("stats %+v: want the batch claimed together, no unit run alone", st)
	}
	for ref, n := range map[string]int{"dep-failed": 1, "dep-twin": 1, "dep-panicked": 0, "dep-stored": 1, "dep-plain": 1} {
		if got := p.transfers(t, ref); got != n {
			t.Errorf("%s: %d transfers, want %d", ref, got, n)
		}
	}
	// The panicked unit's key is free: a new request with it claims it and finds nothing stored.
	err := p.direct.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		_, stored, claimed, err := tx.Idempotency().Claim(ctx, claimScope, core.EnvTest, "panicked", time.Now())
		if err == nil && (stored || !claimed) {
			err = fmt.Errorf("claimed %v, stored %v: want the key free", claimed, stored)
		}
		return err
	})
	if err != nil {
		t.Error(err)
	}
	for i, want := range []int64{10, 5, 5} {
		if b := p.balance(t, a[i].ID); b.Posted != want {
			t.Errorf("account %d posted %d, want %d", i, b.Posted, want)
		}
	}
	p.verify(t)
}

// TestPipeline_BatchClaimSkipsHeldRows: a unit of a batch claimed together whose balance row
// another transaction holds is not waited for: the batch's claim skips the row, the unit gives
// up its place (nothing of it ran) and runs again first in the next batch, where it claims its
// key alone (its statements may then wait, as a batch's first unit's may) and applies once; the
// other unit commits in the first batch without waiting.
func TestPipeline_BatchClaimSkipsHeldRows(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 3)
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 2, MaxWait: time.Hour, AlwaysWait: true})
	ctx := context.Background()
	w, a := p.world, p.accounts
	holder := holdBalanceRow(t, p, a[1].ID)
	submit := func(fn func(ctx context.Context, tx ports.Tx) error) chan error { return submitStarted(ctx, s, fn) }
	free := submit(depositUnit(w, a[0], "free", nil))
	held := submit(depositUnit(w, a[1], "held", nil))
	select { // the first batch commits the free unit while the row stays held
	case err := <-free:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the free unit was not answered while another transaction held the other unit's row")
	}
	if p.transfers(t, "dep-held") != 0 {
		t.Fatal("the held unit applied while another transaction held its row")
	}
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	filler := submit(func(ctx context.Context, tx ports.Tx) error { // fills the next batch; claims nothing
		_, _, err := tx.Ledger().Post(ctx, time.Now(), move("dep-filler", w.ID, a[2].ID, 5))
		return err
	})
	if err := errors.Join(<-held, <-filler); err != nil {
		t.Fatal(err)
	}
	// One batch claim: the first batch's. The carried unit claimed alone in the second.
	if st := s.PipelineStats(); st.Conflicts != 1 || st.Batches != 2 || st.Retried != 0 || st.Claims != 1 {
		t.Errorf("stats %+v: want one conflict, two batches, one batch claim", st)
	}
	assertCarriedOnce(t, s, p)
}

// holdRows runs lock (a locking read, args its parameters) in a transaction of its own, as
// another transaction holding those rows would; the test rolls it back to let them go (and the
// test's end does, if it has not).
func holdRows(t *testing.T, p pipeDB, lock string, args ...any) bun.Tx {
	t.Helper()
	ctx := context.Background()
	holder, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Rollback() })
	if _, err := holder.ExecContext(ctx, lock, args...); err != nil {
		t.Fatal(err)
	}
	return holder
}

// holdBalanceRow holds an account's balance row (holdRows).
func holdBalanceRow(t *testing.T, p pipeDB, accountID string) bun.Tx {
	t.Helper()
	return holdRows(t, p, "SELECT 1 FROM ledger_balances WHERE account_id = ? FOR UPDATE", accountID)
}

// submitStarted runs fn in a unit of s in the background, once the unit has started: its
// result comes on the channel.
func submitStarted(ctx context.Context, s *postgres.Store, fn func(ctx context.Context, tx ports.Tx) error) chan error {
	out, started := make(chan error, 1), make(chan struct{})
	var once sync.Once
	go func() {
		out <- s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			once.Do(func() { close(started) })
			return fn(ctx, tx)
		})
	}()
	<-started
	return out
}

// TestPipeline_OverlapCarriedUnitWaitsForItsBatch: with Overlap, a unit carried to the next
// batch after the batch's claim took its key (a later statement of it met a lock another
// transaction held) runs again only once the batch that claimed its key has ended: that batch
// holds the key's lock and the unit's rows until its COMMIT, so run beside it the unit meets
// its own rows held and is carried again, or finds its own key held and is answered "in
// progress" (409 over HTTP). Here the first batch is held at its COMMIT while the carried unit
// waits; it then claims its key and applies once. Without the wait the unit is carried a second
// time and is not answered.
func TestPipeline_OverlapCarriedUnitWaitsForItsBatch(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 4)
	gate := newCommitGate()
	s := p.pipeline(t, postgres.WithBeforeCommit(postgres.PipelineOptions{Lanes: 1, MaxBatch: 2, MaxWait: time.Hour, AlwaysWait: true,
		Overlap: true}, gate.hook))
	ctx := context.Background()
	w, a := p.world, p.accounts
	holder := holdBalanceRow(t, p, a[3].ID)
	var runs atomic.Int64
	free := submitStarted(ctx, s, depositUnit(w, a[0], "free", nil))
	held := submitStarted(ctx, s, func(ctx context.Context, tx ports.Tx) error {
		defer runs.Add(1)                                  // counts the runs that ended
		return depositUnit(w, a[1], "held", func() error { // after its key was claimed: a row another transaction holds
			btx, _ := postgres.TxFromContext(ctx)
			_, err := btx.ExecContext(ctx, "SELECT 1 FROM ledger_balances WHERE account_id = ? FOR UPDATE", a[3].ID)
			return err
		})(ctx, tx)
	})
	<-gate.reached // the first batch, with the free unit, waits at its COMMIT; the held unit is carried
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	// Either the lane waits for that batch before it runs the carried unit again, or the unit
	// runs beside it (waits for a lock, or ends): wait for one of them (bounded, so that the
	// fault fails the assertions below instead of hanging) before letting the batch commit.
	for deadline := time.Now().Add(30 * time.Second); s.PipelineStats().CarryWaits == 0 && time.Now().Before(deadline); {
		var waiting int
		if err := p.db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 || runs.Load() >= 2 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(gate.released)
	filler := submitStarted(ctx, s, func(ctx context.Context, tx ports.Tx) error { // fills the next batch
		_, _, err := tx.Ledger().Post(ctx, time.Now(), move("dep-filler", w.ID, a[2].ID, 5))
		return err
	})
	var errs []error
	for _, ch := range []chan error{free, held, filler} {
		select {
		case err := <-ch:
			errs = append(errs, err)
		case <-time.After(time.Minute): // run beside its batch, the carried unit never settles
			t.Fatalf("a unit was not answered; stats %+v", s.PipelineStats())
		}
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if st := s.PipelineStats(); st.Conflicts != 1 || st.CarryWaits != 1 || st.Batches != 2 {
		t.Errorf("stats %+v: want one conflict, one batch waiting for its predecessor, two batches", st)
	}
	assertCarriedOnce(t, s, p)
}

// assertCarriedOnce checks the end of a run of three units (dep-free, dep-held, dep-filler) in
// two batches with dep-held carried once: the tail's metrics count each unit once, however
// many batches it ran in, each unit applied once, and the ledger verifies.
func assertCarriedOnce(t *testing.T, s *postgres.Store, p pipeDB) {
	t.Helper()
	m := pipelineMetrics(t, s)
	if m["corridor_pipeline_unit_seconds"] != 3 || m["corridor_pipeline_unit_join_seconds"] != 3 ||
		m["corridor_pipeline_batch_commit_seconds"] != 2 || m[`corridor_pipeline_unit_reruns_total{why="carried"}`] != 1 {
		t.Errorf("metrics %v: want 3 units answered and joined once each, 2 COMMITs, 1 unit carried", m)
	}
	for _, ref := range []string{"dep-free", "dep-held", "dep-filler"} {
		if n := p.transfers(t, ref); n != 1 {
			t.Errorf("%s: %d transfers, want 1", ref, n)
		}
	}
	p.verify(t)
}

// pipelineMetrics gathers s's pipeline collectors: a histogram's observation count or a
// counter's value, by name (a counter with a label as name{label="value"}).
func pipelineMetrics(t *testing.T, s *postgres.Store) map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(s.PipelineCollectors()...)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			name := f.GetName()
			for _, l := range m.GetLabel() {
				name += fmt.Sprintf("{%s=%q}", l.GetName(), l.GetValue())
			}
			switch {
			case m.GetHistogram() != nil:
				out[name] = float64(m.GetHistogram().GetSampleCount())
			case m.GetCounter() != nil:
				out[name] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}
