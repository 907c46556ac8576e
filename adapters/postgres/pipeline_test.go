package postgres_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/testdb"
)

// pipeDB is a private migrated database with a world account and n funded-from-world accounts.
type pipeDB struct {
	url      string
	db       *bun.DB
	direct   *postgres.Store
	world    ledger.Account
	accounts []ledger.Account
}

func newPipeDB(t *testing.T, n int) pipeDB {
	t.Helper()
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := postgres.Migrate(url); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(ctx, url, postgres.Options{MaxOpenConns: 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	p := pipeDB{url: url, db: db, direct: postgres.NewStore(db)}
	specs := []ledger.AccountSpec{ledger.World(core.EnvTest, ledger.AssetUSDC, "pipeline-bank")}
	for i := 0; i < n; i++ {
		specs = append(specs, ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, core.NewID(core.PrefixTenant)))
	}
	err = p.direct.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		accts, err := tx.Ledger().OpenAccounts(ctx, time.Now(), specs...)
		if err != nil {
			return err
		}
		p.world, p.accounts = accts[0], accts[1:]
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (p pipeDB) pipeline(t *testing.T, opts postgres.PipelineOptions) *postgres.Store {
	s := p.direct.WithPipeline(opts)
	t.Cleanup(s.Close)
	return s
}

func move(reference, from, to string, amount int64) ledger.TransferSpec {
	return ledger.TransferSpec{Reference: reference, Type: ledger.TypePosted, Environment: core.EnvTest,
		Asset: ledger.AssetUSDC, Postings: ledger.Move(from, to, amount)}
}

func postIn(s *postgres.Store, spec ledger.TransferSpec) error {
	return s.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		_, _, err := tx.Ledger().Post(ctx, time.Now(), spec)
		return err
	})
}

func (p pipeDB) balance(t *testing.T, id string) ledger.Balance {
	t.Helper()
	var out map[string]ledger.Balance
	err := p.direct.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, err = tx.Ledger().Balances(ctx, []string{id})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out[id]
}

func (p pipeDB) transfers(t *testing.T, reference string) int {
	t.Helper()
	var n int
	if err := p.db.QueryRowContext(context.Background(), "SELECT count(*) FROM ledger_transfers WHERE reference = ?", reference).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// verify checks the whole ledger: chains, deltas, balances-after, balance rows, zero sum.
func (p pipeDB) verify(t *testing.T) postgres.LedgerVerification {
	t.Helper()
	v, err := postgres.VerifyLedger(context.Background(), p.db)
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK() {
		t.Fatalf("ledger does not verify: %+v", v)
	}
	var sum int64
	if err := p.db.QueryRowContext(context.Background(), "SELECT coalesce(sum(posted), 0) FROM ledger_balances").Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if sum != 0 {
		t.Fatalf("balances sum to %d, not 0", sum)
	}
	return v
}

// TestPipeline_FailingUnitAlone: six units share one batch; the one that fails after posting
// and the one refused are answered alone, and only the other four commit.
func TestPipeline_FailingUnitAlone(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 6)
	payer := p.accounts[0]
	if err := postIn(p.direct, move("fund", p.world.ID, payer.ID, 100)); err != nil {
		t.Fatal(err)
	}
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 6, MaxWait: time.Hour, AlwaysWait: true})
	boom := errors.New("business step failed")
	errs := make([]error, 6)
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			spec := move(fmt.Sprintf("unit-%d", i), payer.ID, p.accounts[1+i%5].ID, 10)
			switch i {
			case 2:
				spec.Postings = ledger.Move(payer.ID, p.accounts[3].ID, 1000) // more than the payer has
			}
			errs[i] = s.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
				if _, _, err := tx.Ledger().Post(ctx, time.Now(), spec); err != nil {
					return err
				}
				if i == 4 {
					return boom
				}
				return nil
			})
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		switch {
		case i == 2 && !errors.Is(err, core.ErrInsufficientFunds):
			t.Errorf("unit 2: %v, want INSUFFICIENT_FUNDS", err)
		case i == 4 && !errors.Is(err, boom):
			t.Errorf("unit 4: %v, want its own error", err)
		case i != 2 && i != 4 && err != nil:
			t.Errorf("unit %d: %v", i, err)
		}
	}
	if st := s.PipelineStats(); st.Batches != 1 || st.Units != 6 {
		t.Fatalf("stats %+v: want the six units in one batch", st)
	}
	for i := 0; i < 6; i++ {
		if want := map[bool]int{true: 0, false: 1}[i == 2 || i == 4]; p.transfers(t, fmt.Sprintf("unit-%d", i)) != want {
			t.Errorf("unit %d: %d transfers, want %d", i, p.transfers(t, fmt.Sprintf("unit-%d", i)), want)
		}
	}
	if b := p.balance(t, payer.ID); b.Posted != 60 {
		t.Fatalf("payer posted %d, want 60", b.Posted)
	}
	p.verify(t)
}

// TestPipeline_NoAckBeforeCommit: when the batch reaches its COMMIT, no unit of it has
// returned yet; all return once it committed.
func TestPipeline_NoAckBeforeCommit(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 4)
	var returned, atCommit atomic.Int64
	atCommit.Store(-1)
	s := p.pipeline(t, postgres.WithBeforeCommit(postgres.PipelineOptions{Lanes: 1, MaxBatch: 4, MaxWait: time.Hour, AlwaysWait: true},
		func() { atCommit.Store(returned.Load()) }))
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := postIn(s, move(fmt.Sprintf("ack-%d", i), p.world.ID, p.accounts[i].ID, 5)); err != nil {
				t.Error(err)
			}
			returned.Add(1)
		}(i)
	}
	wg.Wait()
	if atCommit.Load() != 0 || returned.Load() != 4 {
		t.Fatalf("%d units had returned when the batch committed (want 0), %d in the end (want 4)", atCommit.Load(), returned.Load())
	}
	p.verify(t)
}

// TestPipeline_LockConflictCommitsEarly: a later unit of a batch that would wait on a lock
// another transaction holds does not wait inside the batch: the batch commits without it (so
// its first unit is answered while the lock is still held) and it runs first in the next
// batch, where it waits as any unit of work would.
func TestPipeline_LockConflictCommitsEarly(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 4)
	a, b, x := p.accounts[0], p.accounts[1], p.accounts[2]
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 2, MaxWait: time.Hour, AlwaysWait: true})
	ctx := context.Background()
	holder := holdBalanceRow(t, p, x.ID)
	firstRan := make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			close(firstRan)
			_, _, err := tx.Ledger().Post(ctx, time.Now(), move("first", p.world.ID, a.ID, 7))
			return err
		})
	}()
	<-firstRan
	// The second unit swallows the ledger's error, as a use case that renders errors into
	// its answer would: it runs again all the same.
	var runs, swallowed atomic.Int64
	second := make(chan error, 1)
	go func() {
		second <- s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			runs.Add(1)
			if _, _, err := tx.Ledger().Post(ctx, time.Now(), move("second", p.world.ID, x.ID, 9)); err != nil {
				swallowed.Add(1)
			}
			return nil
		})
	}()
	select {
	case err := <-first:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the first unit was not answered while another transaction held a lock the second needs")
	}
	if p.transfers(t, "first") != 1 || p.transfers(t, "second") != 0 {
		t.Fatal("the first unit's batch did not commit alone")
	}
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	third := make(chan error, 1)
	go func() { third <- postIn(s, move("third", p.world.ID, b.ID, 3)) }() // fills the next batch
	if err := <-second; err != nil {
		t.Fatalf("second: %v", err)
	}
	if err := <-third; err != nil {
		t.Fatalf("third: %v", err)
	}
	if runs.Load() != 2 || swallowed.Load() != 1 {
		t.Fatalf("the second unit ran %d times and swallowed %d errors; want 2 and 1", runs.Load(), swallowed.Load())
	}
	if st := s.PipelineStats(); st.Conflicts != 1 || st.Batches != 2 {
		t.Fatalf("stats %+v: want one conflict and two batches", st)
	}
	if p.balance(t, x.ID).Posted != 9 {
		t.Fatal("the second unit's transfer is missing")
	}
	p.verify(t)
}

// TestPipeline_RefusedCommitRetriesAlone: when PostgreSQL refuses a batch's COMMIT (here a
// deferred foreign key one unit broke), nothing of it was committed and every unit runs again
// alone: the culprit gets the error, the others commit.
func TestPipeline_RefusedCommitRetriesAlone(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 3)
	ctx := context.Background()
	if _, err := p.db.ExecContext(ctx, `CREATE TABLE probe (id int PRIMARY KEY,
		parent int REFERENCES probe (id) DEFERRABLE INITIALLY DEFERRED)`); err != nil {
		t.Fatal(err)
	}
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 3, MaxWait: time.Hour, AlwaysWait: true})
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
				btx, _ := postgres.TxFromContext(ctx)
				parent := any(nil)
				if i == 1 {
					parent = 999 // no such row: refused at COMMIT
				}
				if _, err := btx.ExecContext(ctx, "INSERT INTO probe (id, parent) VALUES (?, ?)", i, parent); err != nil {
					return err
				}
				_, _, err := tx.Ledger().Post(ctx, time.Now(), move(fmt.Sprintf("probe-%d", i), p.world.ID, p.accounts[i].ID, 4))
				return err
			})
		}(i)
	}
	wg.Wait()
	var pgErr *pgconn.PgError
	if !errors.As(errs[1], &pgErr) || pgErr.Code != "23503" {
		t.Fatalf("culprit: %v, want the foreign key violation", errs[1])
	}
	if errs[0] != nil || errs[2] != nil {
		t.Fatalf("innocent units: %v, %v", errs[0], errs[2])
	}
	if st := s.PipelineStats(); st.Retried != 3 {
		t.Fatalf("stats %+v: want the three units retried alone", st)
	}
	if p.transfers(t, "probe-0") != 1 || p.transfers(t, "probe-1") != 0 || p.transfers(t, "probe-2") != 1 {
		t.Fatal("wrong transfers after the retries")
	}
	p.verify(t)
}

// TestPipeline_MixedUnits: units of one batch that read balances, post holds and resolve them,
// run nested units of work (one failing), replay a reference an earlier unit of the same
// batch recorded, and spend what an earlier unit of the batch credited; balances and the
// ledger stay exact.
func TestPipeline_MixedUnits(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 3)
	a, b, c := p.accounts[0], p.accounts[1], p.accounts[2]
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 4, MaxWait: time.Hour, AlwaysWait: true})
	units := []func(ctx context.Context, tx ports.Tx) error{
		func(ctx context.Context, tx ports.Tx) error { // credit a with 100
			_, _, err := tx.Ledger().Post(ctx, time.Now(), move("m-fund", p.world.ID, a.ID, 100))
			return err
		},
		func(ctx context.Context, tx ports.Tx) error { // hold 30 from a, post 20 of it, read
			l := tx.Ledger()
			hold, _, err := l.Post(ctx, time.Now(), ledger.TransferSpec{Reference: "m-hold", Type: ledger.TypePending,
				Environment: core.EnvTest, Asset: ledger.AssetUSDC, Postings: ledger.Move(a.ID, b.ID, 30)})
			if err != nil {
				return err
			}
			if _, _, err := l.Post(ctx, time.Now(), ledger.TransferSpec{Reference: "m-post", Type: ledger.TypePostPending,
				Environment: core.EnvTest, PendingID: hold.ID, Amount: 20}); err != nil {
				return err
			}
			if _, _, err := l.Post(ctx, time.Now(), move("m-after", a.ID, c.ID, 5)); err != nil {
				return err
			}
			bal, err := l.Balances(ctx, []string{a.ID})
			if err != nil {
				return err
			}
			if bal[a.ID] != (ledger.Balance{Posted: 75}) {
				return fmt.Errorf("a inside the batch: %+v, want posted 75", bal[a.ID])
			}
			return nil
		},
		func(ctx context.Context, tx ports.Tx) error { // nested: one fails, one commits
			failed := s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
				if _, _, err := tx.Ledger().Post(ctx, time.Now(), move("m-nested-lost", a.ID, c.ID, 1)); err != nil {
					return err
				}
				return errors.New("nested failure")
			})
			if failed == nil {
				return errors.New("the failing nested unit succeeded")
			}
			if err := s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
				_, _, err := tx.Ledger().Post(ctx, time.Now(), move("m-nested", a.ID, c.ID, 2))
				return err
			}); err != nil {
				return err
			}
			_, _, err := tx.Ledger().Post(ctx, time.Now(), move("m-last", a.ID, b.ID, 3))
			return err
		},
		func(ctx context.Context, tx ports.Tx) error { // replay of a reference of this batch
			_, replayed, err := tx.Ledger().Post(ctx, time.Now(), move("m-fund", p.world.ID, a.ID, 100))
			if err == nil && !replayed {
				err = errors.New("m-fund was not a replay")
			}
			return err
		},
	}
	for i, err := range submitInOrder(s, units...) {
		if err != nil {
			t.Fatalf("unit %d: %v", i, err)
		}
	}
	if st := s.PipelineStats(); st.Batches != 1 {
		t.Fatalf("stats %+v: want one batch", st)
	}
	want := map[string]int64{a.ID: 70, b.ID: 23, c.ID: 7}
	for id, posted := range want {
		if bal := p.balance(t, id); bal != (ledger.Balance{Posted: posted}) {
			t.Errorf("%s: %+v, want posted %d", id, bal, posted)
		}
	}
	if p.transfers(t, "m-nested-lost") != 0 {
		t.Error("the failed nested unit's transfer was kept")
	}
	p.verify(t)
}

// TestPipeline_Crash: a child process posts transfers through the pipeline under load and
// prints each acknowledged reference; it is killed (SIGKILL) mid-run. Every acknowledged
// transfer is in the database with its postings, nothing is partial, the ledger balances and
// its chains verify.
func TestPipeline_Crash(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 50)
	cmd := exec.Command(os.Args[0], "-test.run=^TestPipeline_CrashChild$", "-test.count=1")
	ids := make([]string, len(p.accounts))
	for i, a := range p.accounts {
		ids[i] = a.ID
	}
	cmd.Env = append(os.Environ(), "TEST_DATABASE_URL="+p.url, "CORRIDOR_CRASH_CHILD_URL="+p.url,
		"CORRIDOR_CRASH_CHILD_WORLD="+p.world.ID, "CORRIDOR_CRASH_CHILD_ACCOUNTS="+strings.Join(ids, ","))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []string
	killed := false
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if ref, ok := strings.CutPrefix(lines.Text(), "ACK "); ok {
			acked = append(acked, ref)
		}
		if len(acked) == 400 && !killed {
			if err := cmd.Process.Kill(); err != nil { // SIGKILL
				t.Fatal(err)
			}
			killed = true
		}
	}
	_ = cmd.Wait()
	if !killed {
		t.Fatalf("the child ended before it was killed, after %d acknowledgements", len(acked))
	}
	// Statements of the killed session may still be finishing on the server: wait for its
	// backends to go.
	for i := 0; i < 600; i++ {
		var n int
		if err := p.db.QueryRowContext(context.Background(),
			"SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n <= 1 { // the pool's other idle connection, if any
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	var missing int
	if err := p.db.QueryRowContext(context.Background(), `
		SELECT count(*) FROM unnest(?::text[]) AS a(reference)
		WHERE (SELECT count(*) FROM ledger_postings lp JOIN ledger_transfers lt ON lt.id = lp.transfer_id
		       WHERE lt.reference = a.reference) <> 2`, pgdialect.Array(acked)).Scan(&missing); err != nil {
		t.Fatal(err)
	}
	if missing != 0 {
		t.Fatalf("%d of %d acknowledged transfers are missing or partial", missing, len(acked))
	}
	var partial int
	if err := p.db.QueryRowContext(context.Background(), `
		SELECT count(*) FROM ledger_transfers t
		WHERE (SELECT count(*) FROM ledger_postings p WHERE p.transfer_id = t.id) <> 2`).Scan(&partial); err != nil {
		t.Fatal(err)
	}
	if partial != 0 {
		t.Fatalf("%d transfers without their postings", partial)
	}
	v := p.verify(t)
	t.Logf("%d acknowledged before the kill, %d recorded", len(acked), v.Transfers)
}

// TestPipeline_CrashChild is the child of TestPipeline_Crash; it runs only when that test
// starts it.
func TestPipeline_CrashChild(t *testing.T) {
	url := os.Getenv("CORRIDOR_CRASH_CHILD_URL")
	if url == "" {
		t.Skip("run by TestPipeline_Crash")
	}
	db, err := postgres.Open(context.Background(), url, postgres.Options{MaxOpenConns: 10})
	if err != nil {
		t.Fatal(err)
	}
	s := postgres.NewStore(db).WithPipeline(postgres.PipelineOptions{Lanes: 3, MaxBatch: 20, MaxWait: 2 * time.Millisecond, Overlap: true})
	world := os.Getenv("CORRIDOR_CRASH_CHILD_WORLD")
	accounts := strings.Split(os.Getenv("CORRIDOR_CRASH_CHILD_ACCOUNTS"), ",")
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 24; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for i := 0; ; i++ {
				ref := fmt.Sprintf("crash:%d:%d", w, i)
				from, to := world, accounts[1+r.IntN(len(accounts)-1)]
				if i%3 == 0 { // a hot account in the mix
					from = accounts[0]
				}
				err := postIn(s, move(ref, from, to, 1))
				// SERVICE_UNAVAILABLE asks the caller to retry, as a client would (the same
				// reference: the ledger posts it at most once); only acknowledged transfers
				// are checked by the parent.
				for retry := 0; retry < 5 && unavailableErr(err); retry++ {
					fmt.Fprintln(os.Stderr, "child: retrying after:", err)
					time.Sleep(20 * time.Millisecond)
					err = postIn(s, move(ref, from, to, 1))
				}
				if err != nil {
					if errors.Is(err, core.ErrInsufficientFunds) {
						continue
					}
					fmt.Fprintln(os.Stderr, "child:", err)
					os.Exit(2)
				}
				mu.Lock()
				fmt.Println("ACK " + ref)
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
}

// TestPipeline_IdempotencyRecordCommitsWithEffects: in one batch, a unit's idempotency record
// commits with its transfer, a failing unit keeps neither, and a later unit of the same batch
// with the same key sees the earlier unit's record (units of a batch run as a serial history).
func TestPipeline_IdempotencyRecordCommitsWithEffects(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 3)
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 3, MaxWait: time.Hour, AlwaysWait: true})
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond)
	record := func(key string) ports.IdempotencyRecord {
		return ports.IdempotencyRecord{Scope: "tenant:pipeline", Environment: core.EnvTest, Key: key, Fingerprint: "f",
			StatusCode: 201, Body: []byte(`{}`), ContentType: "application/json", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	}
	boom := errors.New("failed after saving")
	var sawEarlier atomic.Bool
	units := []func(ctx context.Context, tx ports.Tx) error{
		func(ctx context.Context, tx ports.Tx) error {
			if free, err := tx.Idempotency().TryLock(ctx, "tenant:pipeline", core.EnvTest, "kept"); err != nil || !free {
				return fmt.Errorf("lock: %v %v", free, err)
			}
			if _, _, err := tx.Ledger().Post(ctx, time.Now(), move("idem-kept", p.world.ID, p.accounts[0].ID, 5)); err != nil {
				return err
			}
			return tx.Idempotency().Save(ctx, record("kept"))
		},
		func(ctx context.Context, tx ports.Tx) error {
			if _, _, err := tx.Ledger().Post(ctx, time.Now(), move("idem-lost", p.world.ID, p.accounts[1].ID, 5)); err != nil {
				return err
			}
			if err := tx.Idempotency().Save(ctx, record("lost")); err != nil {
				return err
			}
			return boom
		},
		func(ctx context.Context, tx ports.Tx) error {
			if free, err := tx.Idempotency().TryLock(ctx, "tenant:pipeline", core.EnvTest, "kept"); err != nil || !free {
				return fmt.Errorf("lock: %v %v", free, err)
			}
			_, found, err := tx.Idempotency().Find(ctx, "tenant:pipeline", core.EnvTest, "kept", now)
			sawEarlier.Store(found)
			return err
		},
	}
	errs := submitInOrder(s, units...)
	if errs[0] != nil || !errors.Is(errs[1], boom) || errs[2] != nil {
		t.Fatalf("units answered %v", errs)
	}
	if !sawEarlier.Load() {
		t.Fatal("the third unit did not see the first unit's record")
	}
	err := p.direct.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		_, kept, err := tx.Idempotency().Find(ctx, "tenant:pipeline", core.EnvTest, "kept", now)
		if err != nil {
			return err
		}
		_, lost, err := tx.Idempotency().Find(ctx, "tenant:pipeline", core.EnvTest, "lost", now)
		if err != nil {
			return err
		}
		if !kept || lost {
			return fmt.Errorf("records: kept %v, lost %v", kept, lost)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.transfers(t, "idem-kept") != 1 || p.transfers(t, "idem-lost") != 0 {
		t.Fatal("the transfers did not follow their records")
	}
	p.verify(t)
}

// TestPipeline_PanicAndClose: a unit that panics is rolled back and its panic raised in its
// caller; after Close, units are refused with SERVICE_UNAVAILABLE.
func TestPipeline_PanicAndClose(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 1)
	s := p.direct.WithPipeline(postgres.PipelineOptions{Lanes: 1, MaxWait: -1})
	func() {
		defer func() {
			if r := recover(); r != "unit panic" {
				t.Fatalf("recovered %v, want the unit's panic", r)
			}
		}()
		_ = s.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
			if _, _, err := tx.Ledger().Post(ctx, time.Now(), move("panicked", p.world.ID, p.accounts[0].ID, 1)); err != nil {
				return err
			}
			panic("unit panic")
		})
	}()
	if err := postIn(s, move("after-panic", p.world.ID, p.accounts[0].ID, 2)); err != nil {
		t.Fatalf("after a panic: %v", err)
	}
	if p.transfers(t, "panicked") != 0 || p.transfers(t, "after-panic") != 1 {
		t.Fatal("the panicking unit was kept or the next one lost")
	}
	s.Close()
	if err := postIn(s, move("after-close", p.world.ID, p.accounts[0].ID, 2)); !errors.Is(err, postgres.ErrPipelineClosed) {
		t.Fatalf("after Close: %v", err)
	}
	p.verify(t)
}

// unavailableErr reports core's SERVICE_UNAVAILABLE.
func unavailableErr(err error) bool {
	var ce *core.Error
	return errors.As(err, &ce) && ce.Code == core.CodeServiceUnavailable
}

// submitInOrder submits fns one at a time, each once the previous one started, so that they
// join one batch in this order (the batch's serial order), and returns their answers.
func submitInOrder(s *postgres.Store, fns ...func(ctx context.Context, tx ports.Tx) error) []error {
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		started := make(chan struct{})
		var once sync.Once
		wg.Add(1)
		go func() {
			defer wg.Done()
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

// TestPipeline_OneLockingReadPerBatch: twenty units that only post transfers share one batch
// and one locking read (their balance rows and references, together), whatever their order.
func TestPipeline_OneLockingReadPerBatch(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 10)
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 20, MaxWait: time.Hour, AlwaysWait: true})
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := postIn(s, move(fmt.Sprintf("read-%d", i), p.world.ID, p.accounts[i%10].ID, int64(i+1))); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if st := s.PipelineStats(); st.Batches != 1 || st.Units != 20 || st.Loads != 1 {
		t.Fatalf("stats %+v: want 20 units in one batch with one locking read", st)
	}
	if b := p.balance(t, p.accounts[3].ID); b.Posted != 4+14 {
		t.Fatalf("account 3 posted %d, want 18", b.Posted)
	}
	p.verify(t)
}

// TestPipeline_SerialOrderSkipsFailedUnits: in one batch, a unit never sees the effects of an
// earlier unit that failed, whether that unit ran statements (rolled back to its savepoint) or
// only posted (its layer dropped), and does see those of an earlier unit that ended well.
func TestPipeline_SerialOrderSkipsFailedUnits(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 2)
	a, b := p.accounts[0], p.accounts[1]
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 6, MaxWait: time.Hour, AlwaysWait: true})
	boom0, boom2 := errors.New("failed after a statement"), errors.New("failed after posting")
	post := func(spec ledger.TransferSpec) func(ctx context.Context, tx ports.Tx) error {
		return func(ctx context.Context, tx ports.Tx) error {
			_, _, err := tx.Ledger().Post(ctx, time.Now(), spec)
			return err
		}
	}
	errs := submitInOrder(s,
		func(ctx context.Context, tx ports.Tx) error {
			if _, err := tx.Idempotency().TryLock(ctx, "tenant:order", core.EnvTest, "k"); err != nil {
				return err
			}
			if _, _, err := tx.Ledger().Post(ctx, time.Now(), move("o-0", p.world.ID, a.ID, 100)); err != nil {
				return err
			}
			return boom0
		},
		post(move("o-1", a.ID, b.ID, 50)),
		func(ctx context.Context, tx ports.Tx) error {
			if _, _, err := tx.Ledger().Post(ctx, time.Now(), move("o-2", p.world.ID, a.ID, 30)); err != nil {
				return err
			}
			return boom2
		},
		post(move("o-3", a.ID, b.ID, 10)),
		post(move("o-4", p.world.ID, a.ID, 5)),
		post(move("o-5", a.ID, b.ID, 5)),
	)
	want := []error{boom0, core.ErrInsufficientFunds, boom2, core.ErrInsufficientFunds, nil, nil}
	for i, err := range errs {
		if (want[i] == nil) != (err == nil) || (want[i] != nil && !errors.Is(err, want[i])) {
			t.Errorf("unit %d: %v, want %v", i, err, want[i])
		}
	}
	if st := s.PipelineStats(); st.Batches != 1 {
		t.Fatalf("stats %+v: want one batch", st)
	}
	if ba, bb := p.balance(t, a.ID), p.balance(t, b.ID); ba.Posted != 0 || bb.Posted != 5 {
		t.Fatalf("a %+v, b %+v: want 0 and 5", ba, bb)
	}
	p.verify(t)
}

// TestPipeline_TwinCommittedAfterLookup: a reference another transaction commits after the
// batch looked it up makes the batch's write fail; nothing of the batch is committed and its
// unit runs again alone, where it meets the twin (here with other content: a conflict).
func TestPipeline_TwinCommittedAfterLookup(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 4)
	a, c, d := p.accounts[0], p.accounts[2], p.accounts[3]
	if err := postIn(p.direct, move("fund-c", p.world.ID, c.ID, 50)); err != nil {
		t.Fatal(err)
	}
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 1, MaxWait: -1})
	posted, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int64
	done := make(chan error, 1)
	go func() {
		done <- s.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
			_, _, err := tx.Ledger().Post(ctx, time.Now(), move("twin", p.world.ID, a.ID, 7))
			if runs.Add(1) == 1 {
				close(posted)
				<-release
			}
			return err
		})
	}()
	<-posted
	if err := postIn(p.direct, move("twin", c.ID, d.ID, 7)); err != nil {
		t.Fatal(err)
	}
	close(release)
	err := <-done
	if !errors.Is(err, core.ErrReferenceConflict) {
		t.Fatalf("unit: %v, want LEDGER_REFERENCE_CONFLICT from its run alone", err)
	}
	if runs.Load() != 2 || s.PipelineStats().Retried != 1 {
		t.Fatalf("ran %d times, stats %+v: want a second run, alone", runs.Load(), s.PipelineStats())
	}
	if p.transfers(t, "twin") != 1 || p.balance(t, a.ID).Posted != 0 || p.balance(t, d.ID).Posted != 7 {
		t.Fatal("the twin is not the only transfer of its reference")
	}
	p.verify(t)
}

// commitGate is a beforeCommit hook that holds the first batch to reach its COMMIT until
// released; later batches pass.
type commitGate struct {
	once     sync.Once
	reached  chan struct{}
	released chan struct{}
}

func newCommitGate() *commitGate {
	return &commitGate{reached: make(chan struct{}), released: make(chan struct{})}
}

func (g *commitGate) hook() {
	first := false
	g.once.Do(func() { first = true })
	if first {
		close(g.reached)
		<-g.released
	}
}

// TestPipeline_OverlapRunsNextBatchDuringCommit: with Overlap, while a lane's batch waits at
// its COMMIT, the lane's next batch opens and runs its unit; that unit is answered only after
// the earlier batch committed and answered.
func TestPipeline_OverlapRunsNextBatchDuringCommit(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 2)
	gate := newCommitGate()
	s := p.pipeline(t, postgres.WithBeforeCommit(postgres.PipelineOptions{Lanes: 1, MaxBatch: 1, MaxWait: -1, Overlap: true}, gate.hook))
	var order []string
	var mu sync.Mutex
	answered := func(name string) {
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if err := postIn(s, move("overlap-a", p.world.ID, p.accounts[0].ID, 5)); err != nil {
			t.Error(err)
		}
		answered("a")
	}()
	<-gate.reached
	ran := make(chan struct{})
	go func() {
		defer wg.Done()
		err := s.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
			close(ran)
			_, _, err := tx.Ledger().Post(ctx, time.Now(), move("overlap-b", p.world.ID, p.accounts[1].ID, 7))
			return err
		})
		if err != nil {
			t.Error(err)
		}
		answered("b")
	}()
	// The second unit runs while the first batch is held at its COMMIT: without Overlap the
	// lane would wait for that COMMIT, and this would block until the test's deadline.
	<-ran
	mu.Lock()
	early := len(order)
	mu.Unlock()
	close(gate.released)
	wg.Wait()
	if early != 0 {
		t.Fatalf("%d units answered while the first batch was held at its COMMIT", early)
	}
	if len(order) != 2 || order[0] != "a" {
		t.Fatalf("answered in the order %v, want a first", order)
	}
	if st := s.PipelineStats(); st.Batches != 2 {
		t.Fatalf("stats %+v: want two batches", st)
	}
	p.verify(t)
}

// TestPipeline_OverlapSeesCommittedRows: the next batch's unit that needs a row the
// committing batch holds waits for that COMMIT and decides on the committed balance: of two
// debits of a whole balance, the second is refused.
func TestPipeline_OverlapSeesCommittedRows(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 3)
	payer := p.accounts[0]
	if err := postIn(p.direct, move("overlap-fund", p.world.ID, payer.ID, 100)); err != nil {
		t.Fatal(err)
	}
	gate := newCommitGate()
	s := p.pipeline(t, postgres.WithBeforeCommit(postgres.PipelineOptions{Lanes: 1, MaxBatch: 1, MaxWait: -1, Overlap: true}, gate.hook))
	errs := make([]error, 2)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		errs[0] = postIn(s, move("overlap-spend-1", payer.ID, p.accounts[1].ID, 100))
	}()
	<-gate.reached
	go func() {
		defer wg.Done()
		errs[1] = postIn(s, move("overlap-spend-2", payer.ID, p.accounts[2].ID, 100))
	}()
	close(gate.released)
	wg.Wait()
	if errs[0] != nil {
		t.Fatalf("first debit: %v", errs[0])
	}
	if !errors.Is(errs[1], core.ErrInsufficientFunds) {
		t.Fatalf("second debit: %v, want insufficient funds", errs[1])
	}
	if bal := p.balance(t, payer.ID); bal != (ledger.Balance{}) {
		t.Fatalf("payer: %+v, want zero", bal)
	}
	p.verify(t)
}

// TestPipeline_OverlapExactUnderConcurrency: 64 clients debit one account funded with N
// units, one unit each, 3N times in all, through two overlapping lanes, while others move
// money between spread accounts: exactly N debits succeed, and the ledger verifies.
func TestPipeline_OverlapExactUnderConcurrency(t *testing.T) {
	t.Parallel()
	const n = 150
	p := newPipeDB(t, 9)
	hot := p.accounts[0]
	if err := postIn(p.direct, move("exact-fund", p.world.ID, hot.ID, n)); err != nil {
		t.Fatal(err)
	}
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 2, MaxBatch: 16, MaxWait: time.Millisecond, Overlap: true})
	var ok, refused atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 64; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 3*n/64+1; i++ {
				to := p.accounts[1+(w+i)%8].ID
				err := postIn(s, move(fmt.Sprintf("exact:%d:%d", w, i), hot.ID, to, 1))
				switch {
				case err == nil:
					ok.Add(1)
				case errors.Is(err, core.ErrInsufficientFunds):
					refused.Add(1)
				default:
					t.Error(err)
				}
				if err := postIn(s, move(fmt.Sprintf("spread:%d:%d", w, i), p.world.ID, to, 1)); err != nil {
					t.Error(err)
				}
			}
		}(w)
	}
	wg.Wait()
	if ok.Load() != n {
		t.Fatalf("%d debits succeeded (%d refused), want exactly %d", ok.Load(), refused.Load(), n)
	}
	if bal := p.balance(t, hot.ID); bal != (ledger.Balance{}) {
		t.Fatalf("hot account: %+v, want zero", bal)
	}
	p.verify(t)
}

// TestPipeline_AloneDoesNotWait: a batch whose unit is the only one in flight commits without
// waiting for MaxWait (here an hour: with the wait, the test would time out); with AlwaysWait
// it waits for a second unit, and both share one COMMIT.
func TestPipeline_AloneDoesNotWait(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 2)
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxWait: time.Hour})
	for i := 0; i < 3; i++ {
		if err := postIn(s, move(fmt.Sprintf("alone-%d", i), p.world.ID, p.accounts[0].ID, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if st := s.PipelineStats(); st.Batches != 3 || st.Units != 3 {
		t.Fatalf("stats %+v: want three batches of one unit", st)
	}
	waiting := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 2, MaxWait: time.Hour, AlwaysWait: true})
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := postIn(waiting, move(fmt.Sprintf("together-%d", i), p.world.ID, p.accounts[1].ID, 1)); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if st := waiting.PipelineStats(); st.Batches != 1 || st.Units != 2 {
		t.Fatalf("stats %+v: want one batch of two units", st)
	}
	p.verify(t)
}

// TestPipeline_AbandonedBatchGivesUp: a batch whose callers' contexts have all ended gives up
// the statement it waits on (a pg_sleep of 20 s, under the 30 s statement_timeout, stands in
// for a database that does not answer); its unit is answered SERVICE_UNAVAILABLE and the lane
// serves the next unit. Without that, the unit would succeed after the 20 s, as if nobody had
// gone. A unit whose context ends while another unit of its batch still waits is not
// interrupted: the batch is theirs together.
func TestPipeline_AbandonedBatchGivesUp(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 2)
	sleep := func(seconds string) func(ctx context.Context, tx ports.Tx) error {
		return func(ctx context.Context, _ ports.Tx) error {
			btx, _ := postgres.TxFromContext(ctx)
			_, err := btx.ExecContext(ctx, "SELECT pg_sleep("+seconds+")")
			return err
		}
	}
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxWait: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := s.InTx(ctx, sleep("20")); !unavailableErr(err) {
		t.Fatalf("abandoned batch: %v, want SERVICE_UNAVAILABLE", err)
	}
	if err := postIn(s, move("after-abandoned", p.world.ID, p.accounts[0].ID, 1)); err != nil {
		t.Fatalf("the lane after an abandoned batch: %v", err)
	}

	// Shared: a transfer with no deadline joins first, then a unit whose deadline passes
	// during its statement; the statement runs to its end and both commit.
	shared := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 2, MaxWait: time.Hour, AlwaysWait: true})
	started := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	var transferErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		transferErr = shared.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
			once.Do(func() { close(started) })
			_, _, err := tx.Ledger().Post(ctx, time.Now(), move("shared-transfer", p.world.ID, p.accounts[1].ID, 1))
			return err
		})
	}()
	<-started
	short, cancelShort := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancelShort()
	sleepErr := shared.InTx(short, sleep("0.5"))
	wg.Wait()
	if sleepErr != nil || transferErr != nil {
		t.Fatalf("shared batch: %v, %v; want both committed", sleepErr, transferErr)
	}
	if st := shared.PipelineStats(); st.Batches != 1 || st.Units != 2 {
		t.Fatalf("stats %+v: want one batch of two units", st)
	}
	if p.transfers(t, "shared-transfer") != 1 {
		t.Fatal("the shared batch's transfer was lost")
	}
	p.verify(t)
}

// written counts, inside the unit's own transaction, the transfers recorded under reference:
// what the database holds at that moment, buffered rows not included.
func written(ctx context.Context, t *testing.T, reference string) int {
	t.Helper()
	btx, ok := postgres.TxFromContext(ctx)
	if !ok {
		t.Fatal("no transaction in the unit's context")
	}
	var n int
	if err := btx.QueryRowContext(ctx, "SELECT count(*) FROM ledger_transfers WHERE reference = ?", reference).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPipeline_NestedUnitKeepsBatchLedger: a unit that runs a statement (as the idempotency
// layer's claim does) and then a nested unit of work that posts (as a use case does) has its
// transfer decided in memory and written with the batch, not by a write of its own, and reads
// its balances back without a query; everything commits and the ledger verifies.
func TestPipeline_NestedUnitKeepsBatchLedger(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 4)
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 4, MaxWait: time.Hour, AlwaysWait: true})
	var units []func(ctx context.Context, tx ports.Tx) error
	balances := make([]ledger.Balance, 4)
	for i := range 4 {
		units = append(units, func(ctx context.Context, tx ports.Tx) error {
			if free, err := tx.Idempotency().TryLock(ctx, "tenant:nested", core.EnvTest, fmt.Sprint("k", i)); err != nil || !free {
				return fmt.Errorf("lock: %v %v", free, err)
			}
			ref := fmt.Sprint("nested-", i)
			return s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
				if _, _, err := tx.Ledger().Post(ctx, time.Now(), move(ref, p.world.ID, p.accounts[i%2].ID, 10)); err != nil {
					return err
				}
				if n := written(ctx, t, ref); n != 0 {
					t.Errorf("unit %d: the nested transfer was written at once (%d rows), not buffered for the batch", i, n)
				}
				got, err := tx.Ledger().Balances(ctx, []string{p.accounts[i%2].ID})
				balances[i] = got[p.accounts[i%2].ID]
				return err
			})
		})
	}
	for i, err := range submitInOrder(s, units...) {
		if err != nil {
			t.Fatalf("unit %d: %v", i, err)
		}
	}
	// In serial order: units 0 and 2 credit account 0, units 1 and 3 account 1.
	for i, want := range []int64{10, 10, 20, 20} {
		if balances[i].Posted != want {
			t.Errorf("unit %d read %d, want %d", i, balances[i].Posted, want)
		}
	}
	for i := range 4 {
		if p.transfers(t, fmt.Sprint("nested-", i)) != 1 {
			t.Fatalf("transfer %d not committed", i)
		}
	}
	if b := p.balance(t, p.accounts[0].ID); b.Posted != 20 {
		t.Fatalf("account 0 holds %d", b.Posted)
	}
	p.verify(t)
}

// TestPipeline_NestedUnitRollbackRestoresLedger: a nested unit that posts, writes the batch's
// buffered rows (a balance it cannot answer from memory) and then fails is rolled back to its
// savepoint; its transfer is gone, the earlier unit's buffered transfer its flush wrote is
// written again with the batch, and the outer unit goes on and commits what it posts after.
func TestPipeline_NestedUnitRollbackRestoresLedger(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 3)
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 2, MaxWait: time.Hour, AlwaysWait: true})
	boom := errors.New("the use case failed")
	var nestedErr error
	errs := submitInOrder(s,
		func(ctx context.Context, tx ports.Tx) error {
			_, _, err := tx.Ledger().Post(ctx, time.Now(), move("first", p.world.ID, p.accounts[0].ID, 7))
			return err
		},
		func(ctx context.Context, tx ports.Tx) error {
			if free, err := tx.Idempotency().TryLock(ctx, "tenant:nested", core.EnvTest, "rollback"); err != nil || !free {
				return fmt.Errorf("lock: %v %v", free, err)
			}
			nestedErr = s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
				if _, _, err := tx.Ledger().Post(ctx, time.Now(), move("undone", p.world.ID, p.accounts[1].ID, 5)); err != nil {
					return err
				}
				// Account 2 is not known to the batch: reading it writes the buffered rows.
				if _, err := tx.Ledger().Balances(ctx, []string{p.accounts[2].ID}); err != nil {
					return err
				}
				if written(ctx, t, "first") != 1 || written(ctx, t, "undone") != 1 {
					t.Error("reading an unknown balance did not write the buffered rows first")
				}
				return boom
			})
			if written(ctx, t, "first") != 0 || written(ctx, t, "undone") != 0 {
				t.Error("the rollback to the nested savepoint left rows behind")
			}
			_, _, err := tx.Ledger().Post(ctx, time.Now(), move("after", p.world.ID, p.accounts[1].ID, 3))
			return err
		})
	if errs[0] != nil || errs[1] != nil || !errors.Is(nestedErr, boom) {
		t.Fatalf("units answered %v, the nested unit %v", errs, nestedErr)
	}
	if p.transfers(t, "first") != 1 || p.transfers(t, "undone") != 0 || p.transfers(t, "after") != 1 {
		t.Fatalf("transfers: first %d, undone %d, after %d", p.transfers(t, "first"), p.transfers(t, "undone"), p.transfers(t, "after"))
	}
	if b := p.balance(t, p.accounts[1].ID); b.Posted != 3 {
		t.Fatalf("account 1 holds %d, want 3", b.Posted)
	}
	if b := p.balance(t, p.accounts[0].ID); b.Posted != 7 {
		t.Fatalf("account 0 holds %d, want 7", b.Posted)
	}
	p.verify(t)
}

// TestPipeline_UnitAloneRunsBesideBatches: a unit of work whose context is marked
// ports.WithUnitAlone runs as its own transaction, not as a unit of a batch, even while a
// batch is open and waiting for units.
func TestPipeline_UnitAloneRunsBesideBatches(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 1)
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 8, MaxWait: time.Hour, AlwaysWait: true})
	before := s.PipelineStats().Units // a batch of this store never closes: a unit in it would block
	var id string
	// Should the unit land in a batch anyway, the batch never closes; the deadline then fails
	// the test instead of hanging it.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := s.InTx(ports.WithUnitAlone(ctx), func(ctx context.Context, tx ports.Tx) error {
		accts, err := tx.Ledger().OpenAccounts(ctx, time.Now(), ledger.World(core.EnvTest, ledger.AssetUSDC, "alone"))
		if err == nil {
			id = accts[0].ID
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.PipelineStats().Units; got != before {
		t.Fatalf("the marked unit ran in the pipeline (%d units, was %d)", got, before)
	}
	if id == "" {
		t.Fatal("the marked unit did not run")
	}
	// Without the mark the same unit runs in the pipeline.
	quick := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxWait: -1})
	if err := postIn(quick, move("batched", p.world.ID, p.accounts[0].ID, 1)); err != nil {
		t.Fatal(err)
	}
	if quick.PipelineStats().Units != 1 {
		t.Fatalf("an unmarked unit did not run in the pipeline: %+v", quick.PipelineStats())
	}
}

// TestPipeline_AffinityKeepsOneKeyInOneLane: units whose contexts name one affinity (a tenant)
// all run in one lane. Each of four tenants' units locks the tenant's row by a statement (as a
// card's lock does) and debits it: a later unit of a batch may not wait for a lock, so in two
// lanes a batch holding one tenant's row meets a unit of a tenant whose row the other lane
// holds, and that unit runs again. With the affinity no unit meets a held lock, and every
// debit is exact.
func TestPipeline_AffinityKeepsOneKeyInOneLane(t *testing.T) {
	t.Parallel()
	const tenants, perTenant = 4, 40
	p := newPipeDB(t, 2*tenants)
	keys := make([]string, tenants)
	for k := range tenants {
		keys[k] = core.NewID(core.PrefixTenant)
		if err := postIn(p.direct, move(fmt.Sprintf("affinity-fund-%d", k), p.world.ID, p.accounts[2*k].ID, perTenant)); err != nil {
			t.Fatal(err)
		}
	}
	// A patience longer than the test: on a loaded machine a batch may outlast the default, and
	// a unit then taken by the other lane would be a conflict this test does not count on.
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 2, MaxBatch: 8, MaxWait: time.Millisecond, AffinityPatience: 10 * time.Minute})
	var wg sync.WaitGroup
	for w := range 2 * tenants * 4 {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			k := w % tenants
			ctx := ports.WithAffinity(context.Background(), keys[k])
			from, to := p.accounts[2*k].ID, p.accounts[2*k+1].ID
			for i := range perTenant / 8 {
				err := s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
					btx, _ := postgres.TxFromContext(ctx)
					if _, err := btx.ExecContext(ctx, "SELECT 1 FROM ledger_balances WHERE account_id = ? FOR UPDATE", from); err != nil {
						return err
					}
					_, _, err := tx.Ledger().Post(ctx, time.Now(), move(fmt.Sprintf("affinity:%d:%d", w, i), from, to, 1))
					return err
				})
				if err != nil {
					t.Error(err)
				}
			}
		}(w)
	}
	wg.Wait()
	if st := s.PipelineStats(); st.Conflicts != 0 || st.Units != tenants*perTenant {
		t.Fatalf("stats %+v: want %d units and no conflict", st, tenants*perTenant)
	}
	for k := range tenants {
		if bal := p.balance(t, p.accounts[2*k].ID); bal != (ledger.Balance{}) {
			t.Fatalf("tenant %d: %+v, want zero", k, bal)
		}
	}
	p.verify(t)
}

// TestPipeline_HeldBackRecordFailureIsItsUnits: a batch unit's idempotency record waits on the
// connection and travels with the next unit's first exchange (driver.go). When it fails there,
// the failure is the first unit's, not the next one's: the batch is rolled back (a rollback to
// the next unit's savepoint would undo the first unit's statements and keep the transaction
// going), and each unit runs again alone: the first fails with its record's error and commits
// nothing, the second commits. The same holds when the next unit's first exchange is a claim
// that also locks the rows its request named (claim_lock.go), and when the statement held back
// is a nested unit's last write (ports.WithLastWrite: the card approval's case), which the
// nested unit's caller never sees fail.
func TestPipeline_HeldBackRecordFailureIsItsUnits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ intent, nested bool }{{false, false}, {true, false}, {true, true}} {
		t.Run(fmt.Sprintf("intent=%v,nested=%v", c.intent, c.nested), func(t *testing.T) {
			t.Parallel()
			heldBackRecordFailure(t, c.intent, c.nested)
		})
	}
}

func heldBackRecordFailure(t *testing.T, intent, nested bool) {
	p := newPipeDB(t, 2)
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 2, MaxWait: time.Hour, AlwaysWait: true})
	now := time.Now().UTC().Truncate(time.Microsecond)
	record := func(key string, env core.Environment) ports.IdempotencyRecord {
		return ports.IdempotencyRecord{Scope: "tenant:pipeline", Environment: env, Key: key, Fingerprint: "f",
			StatusCode: 201, Body: []byte(`{}`), ContentType: "application/json", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	}
	var nestedSaw atomic.Bool
	errs := submitInOrder(s,
		func(ctx context.Context, tx ports.Tx) error {
			if _, _, err := tx.Ledger().Post(ctx, time.Now(), move("held-bad", p.world.ID, p.accounts[0].ID, 5)); err != nil {
				return err
			}
			if !nested {
				return tx.Idempotency().Save(ctx, record("bad", "BOGUS")) // the environment's CHECK refuses it
			}
			err := s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
				return tx.Idempotency().Save(ports.WithLastWrite(ctx), record("bad", "BOGUS"))
			})
			if err != nil { // held back, the write cannot fail in the nested unit itself
				nestedSaw.Store(true)
			}
			return err
		},
		func(ctx context.Context, tx ports.Tx) error {
			cctx := ctx
			if intent {
				cctx = ports.WithLedgerIntent(ctx, ports.LedgerIntent{Environment: core.EnvTest,
					Accounts: []ledger.AccountSpec{p.world.Spec(), p.accounts[1].Spec()}, References: []string{"held-good"}})
			}
			if _, _, claimed, err := tx.Idempotency().Claim(cctx, "tenant:pipeline", core.EnvTest, "good", now); err != nil || !claimed {
				return errors.Join(err, errors.New("the claim did not get the key"))
			}
			if _, _, err := tx.Ledger().Post(ctx, time.Now(), move("held-good", p.world.ID, p.accounts[1].ID, 5)); err != nil {
				return err
			}
			return tx.Idempotency().Save(ctx, record("good", core.EnvTest))
		})
	if code, _ := constraintCode(errs[0]); code != "23514" {
		t.Errorf("the unit whose record fails answered %v, want its CHECK violation", errs[0])
	}
	if errs[1] != nil {
		t.Errorf("the next unit answered %v, want success", errs[1])
	}
	if nestedSaw.Load() {
		t.Error("the nested unit's last write failed in the nested unit: it was not held back")
	}
	if p.transfers(t, "held-bad") != 0 || p.transfers(t, "held-good") != 1 {
		t.Fatalf("transfers: held-bad %d (want 0), held-good %d (want 1)", p.transfers(t, "held-bad"), p.transfers(t, "held-good"))
	}
	p.verify(t)
}

// plansOf checks, on the unit's connection right after its claim that locks, that the claim ran
// on a generic plan (never planned again per call) and that the setting was put back for the
// statements after it.
func plansOf(ctx context.Context, t *testing.T) {
	btx, _ := postgres.TxFromContext(ctx)
	var generic, custom int64
	var mode string
	err := btx.QueryRowContext(ctx, `SELECT coalesce(sum(generic_plans), 0), coalesce(sum(custom_plans), 0),
		current_setting('plan_cache_mode') FROM pg_prepared_statements
		WHERE statement LIKE '%' || 'ok AS MATERIALIZED' || '%'`).Scan(&generic, &custom, &mode)
	if err != nil || generic == 0 || custom != 0 || mode != "auto" {
		t.Errorf("the claim that locks: %d generic and %d custom plans, plan_cache_mode %q after it (%v); "+
			"want generic plans only, and auto after", generic, custom, mode, err)
	}
}

// TestPipeline_ClaimLocksTheIntentsRows: a batch unit whose claim of its Idempotency-Key names
// the rows its transfer will lock (ports.LedgerIntent) holds them once the claim returns (another
// transaction cannot take them), and its transfer then runs no locking read of its own; units
// without the intent each pay one. A claim that finds the key's outcome stored locks nothing.
// The claim runs on its generic plan (plansOf).
func TestPipeline_ClaimLocksTheIntentsRows(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 2)
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 2, MaxWait: time.Hour, AlwaysWait: true})
	now := time.Now().UTC().Truncate(time.Microsecond)
	const scope = "tenant:pipeline"
	lockable := func(id string) bool { // another transaction can take the row at once
		var one int
		err := p.db.QueryRowContext(context.Background(),
			"SELECT 1 FROM ledger_balances WHERE account_id = ? FOR UPDATE NOWAIT", id).Scan(&one)
		return err == nil
	}
	deposit := func(key string, to ledger.Account, intent bool, heldAfterClaim *atomic.Bool) func(ctx context.Context, tx ports.Tx) error {
		return func(ctx context.Context, tx ports.Tx) error {
			cctx := ctx
			if intent {
				cctx = ports.WithLedgerIntent(ctx, ports.LedgerIntent{Environment: core.EnvTest,
					Accounts: []ledger.AccountSpec{p.world.Spec(), to.Spec()}, References: []string{"claimed-" + key}})
			}
			rec, stored, claimed, err := tx.Idempotency().Claim(cctx, scope, core.EnvTest, key, now)
			if err != nil {
				return err
			}
			heldAfterClaim.Store(!lockable(to.ID))
			if intent {
				plansOf(ctx, t)
			}
			if stored {
				if rec.StatusCode != 201 {
					return fmt.Errorf("replayed status %d", rec.StatusCode)
				}
				return nil
			}
			if !claimed {
				return errors.New("the claim did not get the key")
			}
			if _, _, err := tx.Ledger().Post(ctx, time.Now(), move("claimed-"+key, p.world.ID, to.ID, 5)); err != nil {
				return err
			}
			return tx.Idempotency().Save(ctx, ports.IdempotencyRecord{Scope: scope, Environment: core.EnvTest, Key: key,
				Fingerprint: "f", StatusCode: 201, Body: []byte(`{}`), ContentType: "application/json", CreatedAt: now,
				ExpiresAt: now.Add(time.Hour)})
		}
	}
	var heldA, heldB, heldC, heldD, heldReplay atomic.Bool
	if errs := submitInOrder(s, deposit("a", p.accounts[0], true, &heldA), deposit("b", p.accounts[1], true, &heldB)); errors.Join(errs...) != nil {
		t.Fatal(errs)
	}
	if st := s.PipelineStats(); st.UnitLoads != 0 || st.Loads != 0 || !heldA.Load() || !heldB.Load() {
		t.Fatalf("with the intent: stats %+v, rows held after the claim %v %v; want no locking read of the "+
			"transfers' own, the rows held by the claims", st, heldA.Load(), heldB.Load())
	}
	if errs := submitInOrder(s, deposit("c", p.accounts[0], false, &heldC), deposit("d", p.accounts[1], false, &heldD)); errors.Join(errs...) != nil {
		t.Fatal(errs)
	}
	if st := s.PipelineStats(); st.UnitLoads != 2 || heldC.Load() || heldD.Load() {
		t.Fatalf("without the intent: stats %+v, rows held after the claim %v %v; want one locking read per "+
			"transfer, nothing held by the claims", st, heldC.Load(), heldD.Load())
	}
	nothing := func(context.Context, ports.Tx) error { return nil } // the batch's second unit
	if errs := submitInOrder(s, deposit("a", p.accounts[0], true, &heldReplay), nothing); errs[0] != nil || heldReplay.Load() {
		t.Fatalf("the replay answered %v, its claim held the row: %v", errs[0], heldReplay.Load())
	}
	for i, a := range p.accounts {
		if b := p.balance(t, a.ID); b.Posted != 10 {
			t.Errorf("account %d posted %d, want 10", i, b.Posted)
		}
	}
	if p.transfers(t, "claimed-a") != 1 {
		t.Error("the replay recorded its transfer again")
	}
	p.verify(t)
}
