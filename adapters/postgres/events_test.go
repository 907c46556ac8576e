package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/core/webhook"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/testdb"
)

// TestEventRepo_RecordsStatusChangesOnly: an event whose type equals its resource's latest is
// not recorded (an update that left the status as it was); a new status, or a return to an
// earlier one, is. Fan-out claims each event once.
func TestEventRepo_RecordsStatusChangesOnly(t *testing.T) {
	ctx := context.Background()
	store := postgres.NewStore(migratedDB(t))
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
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if err := tx.Tenants().CreateTenant(ctx, tn); err != nil {
			return err
		}
		// An enabled endpoint, so the events wait for the fan-out claimed below.
		return tx.Events().CreateEndpoint(ctx, webhook.Endpoint{ID: core.NewID(core.PrefixWebhookEndpoint), TenantID: tn.ID,
			Environment: core.EnvTest, URL: "https://example.com/hook", EventTypes: []string{"*"}, Enabled: true,
			SealedSecret: []byte("sealed"), CreatedAt: at, UpdatedAt: at})
	}); err != nil {
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
	// A repeatable event (a change other than a status) is recorded every time.
	for i := range 2 {
		err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			e := event.New(tn.ID, core.EnvTest, "card.limits_updated", "crd_x", nil, at)
			e.Repeatable = true
			ok, err := tx.Events().RecordEvent(ctx, e)
			if err == nil && !ok {
				t.Errorf("repeatable event %d was not recorded", i)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// One object's events are selected by its id.
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		got, total, err := tx.Events().ListEvents(ctx, ports.EventFilter{TenantID: tn.ID, Environment: core.EnvTest, ResourceID: "crd_x"}, ports.Page{Take: 10})
		if err == nil && (total != 2 || len(got) != 2 || got[0].ResourceID != "crd_x" || got[1].ResourceID != "crd_x") {
			t.Errorf("events of crd_x: total %d, %+v", total, got)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var claimed []event.Event
	for range 2 {
		err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			got, err := tx.Events().ClaimUndispatchedEvents(ctx, tn.ID, 100)
			claimed = append(claimed, got...)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(claimed) != 5 || claimed[0].Type != "agent.suspended" || claimed[0].Data["status"] != "agent.suspended" {
		t.Fatalf("claimed %d events (want 5, once each): %+v", len(claimed), claimed)
	}
}

// TestEventRepo_RolledBackChangeHasNoEvent: an event written in a unit of work that rolls back
// (the state change it announces failed) is gone with it, and is never delivered.
func TestEventRepo_RolledBackChangeHasNoEvent(t *testing.T) {
	ctx := context.Background()
	store := postgres.NewStore(migratedDB(t))
	at := time.Now().UTC().Truncate(time.Microsecond)
	tn := tenant.Tenant{ID: core.NewID(core.PrefixTenant), Slug: "events-rollback", Name: "Events", OwnerUserID: "user_events", CreatedAt: at}
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return tx.Tenants().CreateTenant(ctx, tn) }); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("the change failed after its event was written")
	var id string
	err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		e := event.New(tn.ID, core.EnvTest, "card.frozen", "crd_rollback", map[string]any{"status": "inactive"}, at)
		id = e.ID
		if ok, err := tx.Events().RecordEvent(ctx, e); err != nil || !ok {
			t.Fatalf("record: %v %v", ok, err)
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("InTx = %v, want the change's error", err)
	}
	err = store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if _, err := tx.Events().FindEventByID(ctx, tn.ID, id); !errors.Is(err, event.ErrNotFound) {
			t.Errorf("event of a rolled-back change: %v, want EVENT_NOT_FOUND", err)
		}
		list, total, err := tx.Events().ListEvents(ctx, ports.EventFilter{TenantID: tn.ID, Environment: core.EnvTest}, ports.Page{Take: 10})
		if err != nil {
			return err
		}
		if total != 0 || len(list) != 0 {
			t.Errorf("listed %d events (total %d) after a rollback, want none", len(list), total)
		}
		claimed, err := tx.Events().ClaimUndispatchedEvents(ctx, tn.ID, 100)
		if len(claimed) != 0 {
			t.Errorf("claimed %d events after a rollback, want none", len(claimed))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEventRepo_FanOutClaimsPerTenantOnce: the fan-out lists the tenants with events to
// dispatch, then claims each tenant's events: a claim running while another holds some of the
// tenant's events takes only the rest (SKIP LOCKED, without waiting), a delivery of a held
// event is written without waiting for the claim, and every event of both tenants is claimed
// exactly once. Distributed when the database is Citus
// (CORRIDOR_TESTDB_SOURCE=citus), where the claim runs on the tenant's one shard.
func TestEventRepo_FanOutClaimsPerTenantOnce(t *testing.T) {
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := postgres.Migrate(url); err != nil {
		t.Fatal(err)
	}
	citus, err := postgres.Distribute(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(ctx, url, postgres.Options{MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if citus {
		var distributed bool
		if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_dist_partition
			WHERE logicalrelid = 'events'::regclass)`).Scan(&distributed); err != nil || !distributed {
			t.Fatalf("on Citus, events distributed: %v (err %v)", distributed, err)
		}
	}
	store := postgres.NewStore(db)
	at := time.Now().UTC().Truncate(time.Microsecond)
	tenants := []string{core.NewID(core.PrefixTenant), core.NewID(core.PrefixTenant)}
	endpoints := []string{core.NewID(core.PrefixWebhookEndpoint), core.NewID(core.PrefixWebhookEndpoint)}
	err = store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		for i, id := range tenants {
			tn := tenant.Tenant{ID: id, Slug: "fan-out-" + string(rune('a'+i)), Name: "F", OwnerUserID: "user_" + id, CreatedAt: at}
			if err := tx.Tenants().CreateTenant(ctx, tn); err != nil {
				return err
			}
			// An enabled endpoint, so the events wait for the fan-out (without one they are
			// recorded fanned out).
			if err := tx.Events().CreateEndpoint(ctx, webhook.Endpoint{ID: endpoints[i], TenantID: id,
				Environment: core.EnvTest, URL: "https://example.com/hook", EventTypes: []string{"*"}, Enabled: true,
				SealedSecret: []byte("sealed"), CreatedAt: at, UpdatedAt: at}); err != nil {
				return err
			}
			for j := range 3 {
				e := event.New(id, core.EnvTest, "card.frozen", core.NewID("crd"), map[string]any{"n": j}, at)
				if _, err := tx.Events().RecordEvent(ctx, e); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	claim := func(tenantID string, limit int) (got []event.Event) {
		t.Helper()
		if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			var err error
			got, err = tx.Events().ClaimUndispatchedEvents(ctx, tenantID, limit)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	var listed []string
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		listed, err = tx.Events().TenantsWithUndispatchedEvents(ctx, 10)
		return err
	}); err != nil || len(listed) != 2 {
		t.Fatalf("tenants with events to dispatch: %v (err %v), want both", listed, err)
	}
	seen := map[string]int{}
	err = store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		held, err := tx.Events().ClaimUndispatchedEvents(ctx, tenants[0], 2)
		if err != nil || len(held) != 2 {
			return fmt.Errorf("first claim: %d events, err %v", len(held), err)
		}
		// Another pass, while these two are held: it takes the tenant's third event only.
		beside := claim(tenants[0], 100)
		if len(beside) != 1 {
			t.Errorf("a claim beside the held one took %d events, want 1", len(beside))
		}
		for _, e := range append(held, beside...) {
			seen[e.ID]++
		}
		// A delivery of a held event is written beside the claim without waiting for it: its key
		// to the event takes a key-share lock, which the claim's lock does not block.
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if _, err := db.ExecContext(wctx, `INSERT INTO webhook_deliveries (id, tenant_id, environment, endpoint_id, event_id,
			event_type, status, attempts, created_at, updated_at) VALUES (?, ?, 'TEST', ?, ?, ?, 'FAILED', 1, now(), now())`,
			core.NewID("whd"), tenants[0], endpoints[0], held[0].ID, held[0].Type); err != nil {
			t.Errorf("a delivery of an event the fan-out holds: %v (it waited for the claim)", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range tenants {
		for _, e := range claim(id, 100) {
			seen[e.ID]++
		}
	}
	if left := claim(tenants[0], 100); len(left) != 0 || len(seen) != 6 {
		t.Fatalf("claimed %d distinct events (want 6), %d left", len(seen), len(left))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("event %s claimed %d times", id, n)
		}
	}
}

// TestEventRepo_EndpointKeepsWhenItWasEnabled: an endpoint's enabled_at (what the fan-out
// compares an event's creation with) is stored, moved by an update, and defaults to the write's
// time for a writer that leaves it out.
func TestEventRepo_EndpointKeepsWhenItWasEnabled(t *testing.T) {
	ctx := context.Background()
	store := postgres.NewStore(migratedDB(t))
	at := time.Now().UTC().Add(-time.Hour).Truncate(time.Microsecond)
	tn := tenant.Tenant{ID: core.NewID(core.PrefixTenant), Slug: "enabled-at", Name: "Enabled at", OwnerUserID: "user_enabled_at", CreatedAt: at}
	ep := func(enabledAt time.Time) webhook.Endpoint {
		return webhook.Endpoint{ID: core.NewID(core.PrefixWebhookEndpoint), TenantID: tn.ID, Environment: core.EnvTest,
			URL: "https://example.com/hook", Enabled: true, SealedSecret: []byte("sealed"), EnabledAt: enabledAt, CreatedAt: at, UpdatedAt: at}
	}
	stamped, unstamped := ep(at), ep(time.Time{})
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if err := tx.Tenants().CreateTenant(ctx, tn); err != nil {
			return err
		}
		if err := tx.Events().CreateEndpoint(ctx, stamped); err != nil {
			return err
		}
		return tx.Events().CreateEndpoint(ctx, unstamped)
	}); err != nil {
		t.Fatal(err)
	}
	read := func(id string) webhook.Endpoint {
		var e webhook.Endpoint
		if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			var err error
			e, err = tx.Events().FindEndpoint(ctx, tn.ID, core.EnvTest, id)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return e
	}
	if got := read(stamped.ID).EnabledAt; !got.Equal(at) {
		t.Fatalf("enabled_at %v, want %v", got, at)
	}
	if got := read(unstamped.ID).EnabledAt; !got.After(at) {
		t.Fatalf("an endpoint written without enabled_at reads %v, want the write's time (after %v)", got, at)
	}
	moved := read(stamped.ID)
	moved.EnabledAt = at.Add(30 * time.Minute)
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return tx.Events().UpdateEndpoint(ctx, moved) }); err != nil {
		t.Fatal(err)
	}
	if got := read(stamped.ID).EnabledAt; !got.Equal(moved.EnabledAt) {
		t.Fatalf("after the update enabled_at %v, want %v", got, moved.EnabledAt)
	}
}
