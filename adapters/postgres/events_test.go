package postgres_test

import (
	"context"
	"testing"
	"time"

	"corridor/adapters/postgres"
	"corridor/core"
	"corridor/core/event"
	"corridor/core/tenant"
	"corridor/ports"
	"corridor/test/testdb"
)

// TestEventRepo_RecordsStatusChangesOnly: an event whose type equals its resource's latest is
// not recorded (an update that left the status as it was); a new status, or a return to an
// earlier one, is. Fan-out claims each event once.
func TestEventRepo_RecordsStatusChangesOnly(t *testing.T) {
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := postgres.Migrate(url); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(ctx, url, postgres.Options{MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	store := postgres.NewStore(db)
	at := time.Now().UTC().Truncate(time.Microsecond)
	tn := tenant.Tenant{ID: core.NewID(core.PrefixTenant), Slug: "events-repo", Name: "Events", OwnerUserID: "user_events", CreatedAt: at}
	record := func(typ string) bool {
		var ok bool
		err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			var err error
			ok, err = tx.Events().RecordEvent(ctx, event.New(tn.ID, core.EnvTest, typ, "agt_x", map[string]any{"status": typ}, at))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return tx.Tenants().CreateTenant(ctx, tn) }); err != nil {
		t.Fatal(err)
	}
	for i, step := range []struct {
		typ  string
		want bool
	}{{"agent.suspended", true}, {"agent.suspended", false}, {"agent.reactivated", true}, {"agent.suspended", true}} {
		if got := record(step.typ); got != step.want {
			t.Fatalf("step %d (%s): recorded %v, want %v", i, step.typ, got, step.want)
		}
	}
	var claimed []event.Event
	for range 2 {
		err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			got, err := tx.Events().ClaimUndispatchedEvents(ctx, 100)
			claimed = append(claimed, got...)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(claimed) != 3 || claimed[0].Type != "agent.suspended" || claimed[0].Data["status"] != "agent.suspended" {
		t.Fatalf("claimed %d events (want 3, once each): %+v", len(claimed), claimed)
	}
}
