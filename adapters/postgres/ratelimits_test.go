package postgres_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/test/testdb"
)

// twoPools opens two pools on one fresh migrated database, as two replicas hold them.
func twoPools(t testing.TB) (*postgres.SharedLimits, *postgres.SharedLimits) {
	t.Helper()
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := postgres.Migrate(url); err != nil {
		t.Fatal(err)
	}
	var out [2]*postgres.SharedLimits
	for i := range out {
		db, err := postgres.Open(ctx, url, postgres.Options{MaxOpenConns: 8})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		out[i] = postgres.NewSharedLimits(db)
	}
	return out[0], out[1]
}

// TestSharedLimits_TokenBucketAcrossPools: forty concurrent requests through two pools against
// a burst of five and a refill of one an hour: exactly five pass, and a refusal waits about
// the hour one token takes to come back.
func TestSharedLimits_TokenBucketAcrossPools(t *testing.T) {
	a, b := twoPools(t)
	ctx := context.Background()
	const burst, perSecond = 5, 1.0 / 3600
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := range 40 {
		l := a
		if i%2 == 1 {
			l = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, _, err := l.TakeToken(ctx, "general|caller", perSecond, burst)
			if err != nil {
				t.Error(err)
			}
			if ok {
				allowed.Add(1)
			}
		}()
	}
	wg.Wait()
	if got := allowed.Load(); got != burst {
		t.Fatalf("%d requests passed, want the burst of %d", got, burst)
	}
	ok, wait, err := b.TakeToken(ctx, "general|caller", perSecond, burst)
	if err != nil || ok || wait < 50*time.Minute || wait > time.Hour {
		t.Fatalf("after the burst: ok %v wait %v err %v, want refused for about an hour", ok, wait, err)
	}
	if ok, _, err := a.TakeToken(ctx, "general|someone else", perSecond, burst); err != nil || !ok {
		t.Fatalf("another caller: ok %v err %v", ok, err)
	}
	// A sweep keeps rows that still limit someone.
	if _, err := a.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := a.TakeToken(ctx, "general|caller", perSecond, burst); ok {
		t.Fatal("the sweep forgave a caller whose bucket is empty")
	}
}

// TestSharedLimits_RollingWindowAcrossPools: five a minute through either pool, the sixth
// refused with the rest of the minute as its wait.
func TestSharedLimits_RollingWindowAcrossPools(t *testing.T) {
	a, b := twoPools(t)
	ctx := context.Background()
	for i := range 5 {
		l := a
		if i%2 == 1 {
			l = b
		}
		if ok, _, err := l.TakeInWindow(ctx, "ephemeral|ip", 5, time.Minute); err != nil || !ok {
			t.Fatalf("request %d: ok %v err %v", i+1, ok, err)
		}
	}
	ok, wait, err := b.TakeInWindow(ctx, "ephemeral|ip", 5, time.Minute)
	if err != nil || ok || wait <= 30*time.Second || wait > time.Minute {
		t.Fatalf("sixth: ok %v wait %v err %v, want refused until the first leaves the minute", ok, wait, err)
	}
	if _, err := a.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := a.TakeInWindow(ctx, "ephemeral|ip", 5, time.Minute); ok {
		t.Fatal("the sweep forgave a full window")
	}
	// A short window: once its requests have left it, the caller is let through again and
	// the row keeps only the new request.
	if ok, _, _ := a.TakeInWindow(ctx, "short", 1, time.Millisecond); !ok {
		t.Fatal("first request in a short window refused")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, _, err := b.TakeInWindow(ctx, "short", 1, time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a request never left its one-millisecond window")
		}
	}
}

// BenchmarkSharedLimits_TakeToken is the cost of one shared limit decision: one upsert on
// the unlogged bucket table, many callers in parallel (docs/scaling.md).
func BenchmarkSharedLimits_TakeToken(b *testing.B) {
	l, _ := twoPools(b)
	ctx := context.Background()
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		id := n.Add(1)
		key := "bench|" + string(rune('a'+id%26))
		for pb.Next() {
			if _, _, err := l.TakeToken(ctx, key, 1e9, 1_000_000); err != nil {
				b.Fatal(err)
			}
		}
	})
}
