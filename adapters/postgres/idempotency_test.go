package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// TestIdempotencyClaim walks Claim through its three answers with two transactions: the first
// claims the key, a second meanwhile finds it in progress, and once the first has saved its
// outcome and committed, a claim returns the stored outcome without taking the lock; an
// expired outcome is claimed afresh.
func TestIdempotencyClaim(t *testing.T) {
	ctx := context.Background()
	store := postgres.NewStore(migratedDB(t))
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	const scope, key = "tenant:ten_claim", "k-1"

	holding := make(chan struct{})
	release := make(chan struct{})
	firstDone := make(chan error, 1)
	go func() {
		firstDone <- store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			_, stored, claimed, err := tx.Idempotency().Claim(ctx, scope, core.EnvTest, key, now)
			if err != nil {
				return err
			}
			if stored || !claimed {
				return errors.New("the first claim did not get the key")
			}
			close(holding)
			<-release
			return tx.Idempotency().Save(ctx, ports.IdempotencyRecord{Scope: scope, Environment: core.EnvTest, Key: key,
				Fingerprint: "fp", StatusCode: 201, Body: []byte(`{"ok":true}`), ContentType: "application/json",
				CreatedAt: now, ExpiresAt: now.Add(time.Hour)})
		})
	}()
	<-holding

	claim := func(at time.Time) (ports.IdempotencyRecord, bool, bool) {
		t.Helper()
		var rec ports.IdempotencyRecord
		var stored, claimed bool
		if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			var err error
			rec, stored, claimed, err = tx.Idempotency().Claim(ctx, scope, core.EnvTest, key, at)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return rec, stored, claimed
	}
	if _, stored, claimed := claim(now); stored || claimed {
		t.Fatalf("while the first holds the key: stored=%v claimed=%v, want in progress", stored, claimed)
	}
	close(release)
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	rec, stored, claimed := claim(now.Add(time.Minute))
	if !stored || claimed {
		t.Fatalf("after the first committed: stored=%v claimed=%v, want the stored outcome without the lock", stored, claimed)
	}
	if rec.Fingerprint != "fp" || rec.StatusCode != 201 || string(rec.Body) != `{"ok":true}` || rec.ContentType != "application/json" ||
		!rec.CreatedAt.Equal(now) || !rec.ExpiresAt.Equal(now.Add(time.Hour)) {
		t.Fatalf("stored outcome %+v", rec)
	}
	if _, stored, claimed := claim(now.Add(2 * time.Hour)); stored || !claimed {
		t.Fatalf("after expiry: stored=%v claimed=%v, want a fresh claim", stored, claimed)
	}
}
