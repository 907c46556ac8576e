package citus

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/core/twofactor"
	"github.com/corridorhq/corridor/core/webhook"
	"github.com/corridorhq/corridor/ports"
)

// singleShardStore is a store whose connections refuse any statement Citus would send to more
// than one shard (citus.multi_task_query_log_level = error): a repository method that runs
// through it without error names the tenant in every statement on a distributed table.
func singleShardStore(t *testing.T) *postgres.Store {
	t.Helper()
	u, err := url.Parse(env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("citus.multi_task_query_log_level", "error")
	u.RawQuery = q.Encode()
	db, err := postgres.Open(context.Background(), u.String(), postgres.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var level string
	if err := db.QueryRowContext(context.Background(), `SHOW citus.multi_task_query_log_level`).Scan(&level); err != nil || level != "error" {
		t.Fatalf("multi_task_query_log_level %q (err %v), want error", level, err)
	}
	return postgres.NewStore(db)
}

// TestCitus_TenantUnitsRouteToOneShard: the unit-of-work statements of the distributed families
// (idempotency records: claim, save, replay; contacts, factors, challenges, settings and
// budgets: every read and write the two-factor use cases make; members and API keys, with the
// lookups that find them before the tenant is known: a key by public id, an invite by token
// hash, a session user's tenant; events, their per-tenant fan-out claim, webhook endpoints,
// deliveries and attempts as the dispatcher and the attempt job use them; cards, their
// authorizations and windows as the decision and the settlement job use them; policies, their
// versions, attachments and decisions) each go to one shard: run on connections that refuse a
// multi-shard statement, every one succeeds.
func TestCitus_TenantUnitsRouteToOneShard(t *testing.T) {
	ctx := context.Background()
	store := singleShardStore(t)
	ten := env().NewTenant(t)
	now := time.Now().UTC().Truncate(time.Microsecond)
	scope, env := "tenant:"+ten.ID, core.EnvTest
	inTx := func(name string, fn func(ctx context.Context, tx ports.Tx) error) {
		t.Helper()
		if err := store.InTx(ctx, fn); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	inTx("idempotency claim and save", func(ctx context.Context, tx ports.Tx) error {
		if _, _, _, err := tx.Idempotency().Claim(ctx, scope, env, "route-1", now); err != nil {
			return err
		}
		return tx.Idempotency().Save(ctx, ports.IdempotencyRecord{Scope: scope, Environment: env, Key: "route-1",
			Fingerprint: "f", StatusCode: 201, Body: []byte(`{}`), ContentType: "application/json",
			CreatedAt: now, ExpiresAt: now.Add(time.Hour)})
	})
	inTx("idempotency replay", func(ctx context.Context, tx ports.Tx) error {
		rec, stored, _, err := tx.Idempotency().Claim(ctx, scope, env, "route-1", now)
		if err == nil && (!stored || rec.StatusCode != 201) {
			t.Errorf("replay: stored %v, %+v", stored, rec)
		}
		if _, found, err := tx.Idempotency().Find(ctx, scope, env, "route-1", now); err != nil || !found {
			t.Errorf("find: found %v, err %v", found, err)
		}
		return err
	})
	inTx("contacts", func(ctx context.Context, tx ports.Tx) error { return contactsUnit(ctx, tx, ten.ID, now) })
	inTx("factors", func(ctx context.Context, tx ports.Tx) error { return factorsUnit(ctx, tx, ten.ID, now) })
	inTx("challenges, settings and budgets", func(ctx context.Context, tx ports.Tx) error {
		return challengesUnit(ctx, tx, ten.ID, now)
	})
	inTx("members", func(ctx context.Context, tx ports.Tx) error { return membersUnit(ctx, tx, ten.ID, now) })
	inTx("API keys", func(ctx context.Context, tx ports.Tx) error { return apiKeysUnit(ctx, tx, ten.ID, now) })
	inTx("events and webhooks", func(ctx context.Context, tx ports.Tx) error { return webhooksUnit(ctx, tx, ten.ID, now) })
	// The card decision's statements go with server-side parameters: from a prepared statement's
	// sixth run PostgreSQL may take its generic plan, which must route to the shard as well.
	for range 8 {
		inTx("cards", func(ctx context.Context, tx ports.Tx) error { return cardsUnit(ctx, tx, ten.ID, now) })
	}
	inTx("policies", func(ctx context.Context, tx ports.Tx) error { return policiesUnit(ctx, tx, ten.ID, now) })
	// The guard itself: a statement over every shard is refused on these connections.
	_, err := store.DB().ExecContext(ctx, `SELECT count(*) FROM contacts`)
	if err == nil || !strings.Contains(err.Error(), "multi-task") && !strings.Contains(err.Error(), "multi-shard") {
		t.Fatalf("a statement over every shard: err = %v, want it refused", err)
	}
}

func contactsUnit(ctx context.Context, tx ports.Tx, tenant string, now time.Time) error {
	r := tx.TwoFactor()
	c := twofactor.Contact{ID: core.NewID(core.PrefixContact), TenantID: tenant, Environment: core.EnvTest,
		Address: "0x00000000000000000000000000000000000000aa", Label: "route", ChainID: 84532, CreatedAt: now}
	if err := r.CreateContact(ctx, c); err != nil {
		return err
	}
	if _, _, err := r.ListContacts(ctx, tenant, core.EnvTest, ports.Page{Take: 10}); err != nil {
		return err
	}
	if _, _, err := r.FindContactByAddress(ctx, tenant, core.EnvTest, c.Address); err != nil {
		return err
	}
	_, err := r.DeleteContact(ctx, tenant, core.EnvTest, c.ID)
	return err
}

func factorsUnit(ctx context.Context, tx ports.Tx, tenant string, now time.Time) error {
	r := tx.TwoFactor()
	f := twofactor.Factor{ID: core.NewID(core.PrefixFactor), TenantID: tenant, Environment: core.EnvTest, Type: "totp",
		Label: "route", Status: twofactor.FactorPending, SecretCiphertext: []byte("x"), CreatedAt: now}
	if err := r.CreateFactor(ctx, f); err != nil {
		return err
	}
	locked, err := r.LockFactor(ctx, tenant, core.EnvTest, f.ID)
	if err != nil {
		return err
	}
	locked.Status, locked.VerifiedAt = twofactor.FactorActive, &now
	if err := r.UpdateFactor(ctx, locked); err != nil {
		return err
	}
	if _, err := r.UseFactorStep(ctx, tenant, f.ID, 7); err != nil {
		return err
	}
	if _, err := r.ListFactors(ctx, tenant, core.EnvTest); err != nil {
		return err
	}
	if err := r.DeleteCancelledFactors(ctx, tenant, core.EnvTest); err != nil {
		return err
	}
	return r.DeleteFactor(ctx, tenant, core.EnvTest, f.ID)
}

func challengesUnit(ctx context.Context, tx ports.Tx, tenant string, now time.Time) error {
	r := tx.TwoFactor()
	c := twofactor.Challenge{ID: core.NewID(core.PrefixChallenge), TenantID: tenant, Environment: core.EnvTest,
		Binding: "b", SourceWalletID: "wal_route", AmountBaseUnits: 1, DestinationAddress: "0xaa", DestinationLabel: "route",
		Status: twofactor.ChallengePending, ExpiresAt: now.Add(time.Hour), CreatedAt: now}
	if err := r.CreateChallenge(ctx, c); err != nil {
		return err
	}
	locked, err := r.LockChallenge(ctx, tenant, core.EnvTest, c.ID)
	if err != nil {
		return err
	}
	locked.Status, locked.SatisfiedAt = twofactor.ChallengeSatisfied, &now
	if err := r.UpdateChallenge(ctx, locked); err != nil {
		return err
	}
	if _, _, err := r.ChallengesCreatedSince(ctx, tenant, core.EnvTest, now.Add(-time.Hour)); err != nil {
		return err
	}
	s, err := r.FindSettings(ctx, tenant, core.EnvTest)
	if err != nil {
		return err
	}
	s.TenantID, s.Environment, s.ApproveNewPayees, s.UpdatedAt = tenant, core.EnvTest, true, now
	if err := r.SaveSettings(ctx, s); err != nil {
		return err
	}
	b, err := r.LockBudget(ctx, tenant, core.EnvTest, "tenant")
	if err != nil {
		return err
	}
	b.Failures = append(b.Failures, now)
	return r.SaveBudget(ctx, b)
}

// TestCitus_IdempotencyPurgeAcrossShards: the purge of expired records (a pass over every
// tenant, so over every shard) deletes by key, which Citus accepts where the former delete by
// ctid named nothing it could route: expired records of two tenants go, a live one stays.
func TestCitus_IdempotencyPurgeAcrossShards(t *testing.T) {
	ctx := context.Background()
	store := env().Service.Store
	now := time.Now().UTC().Truncate(time.Microsecond)
	a, b := env().NewTenant(t), env().NewTenant(t)
	err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		for i, scope := range []string{"tenant:" + a.ID, "tenant:" + b.ID, "tenant:" + b.ID} {
			expires, key := now.Add(-time.Minute), "purge-old-"+strconv.Itoa(i)
			if i == 2 {
				expires, key = now.Add(time.Hour), "purge-live"
			}
			rec := ports.IdempotencyRecord{Scope: scope, Environment: core.EnvTest, Key: key, Fingerprint: "f",
				StatusCode: 201, Body: []byte(`{}`), ContentType: "application/json", CreatedAt: now.Add(-time.Hour), ExpiresAt: expires}
			if err := tx.Idempotency().Save(ctx, rec); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for {
		var n int
		err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			var err error
			n, err = tx.Idempotency().DeleteExpired(ctx, now, 1000)
			return err
		})
		if err != nil {
			t.Fatalf("purge: %v", err)
		}
		if n == 0 {
			break
		}
	}
	var old, live int
	if err := store.DB().QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE key LIKE 'purge-old-%'),
		count(*) FILTER (WHERE key = 'purge-live') FROM idempotency_keys WHERE tenant_id IN (?, ?)`, a.ID, b.ID).Scan(&old, &live); err != nil {
		t.Fatal(err)
	}
	if old != 0 || live != 1 {
		t.Fatalf("after the purge: %d expired records left (want 0), %d live (want 1)", old, live)
	}
}

func membersUnit(ctx context.Context, tx ports.Tx, tenantID string, now time.Time) error {
	r := tx.Members()
	m := tenant.Member{ID: core.NewID(core.PrefixMember), TenantID: tenantID, Email: "route@example.com",
		Role: tenant.RoleMember, Status: tenant.MemberPending, InviteTokenHash: core.NewID("hash"),
		InviteExpiresAt: now.Add(time.Hour), CreatedAt: now}
	if err := r.CreateMember(ctx, m); err != nil {
		return err
	}
	found, err := r.FindMemberByInviteHashForUpdate(ctx, m.InviteTokenHash)
	if err != nil {
		return err
	}
	found.Status, found.IdentityUserID, found.AcceptedAt = tenant.MemberActive, core.NewID("usr"), &now
	if err := r.UpdateMember(ctx, found); err != nil {
		return err
	}
	if _, err := r.FindMember(ctx, tenantID, m.ID); err != nil {
		return err
	}
	if _, _, err := r.ListMembers(ctx, tenantID, ports.Page{Take: 10}); err != nil {
		return err
	}
	t, member, err := tx.Tenants().FindTenantForUser(ctx, found.IdentityUserID)
	if err == nil && (t.ID != tenantID || member == nil || member.ID != m.ID) {
		return fmt.Errorf("the user's tenant: %s, member %+v", t.ID, member)
	}
	return err
}

func apiKeysUnit(ctx context.Context, tx ports.Tx, tenantID string, now time.Time) error {
	r := tx.APIKeys()
	parent := tenant.APIKey{ID: core.NewID(core.PrefixAPIKey), TenantID: tenantID, Environment: core.EnvTest,
		Name: "route", PubID: core.NewID("pub"), SecretHash: "h", Scopes: []auth.Scope{}, CreatedAt: now}
	child := parent
	child.ID, child.PubID, child.CreatedBy = core.NewID(core.PrefixAPIKey), core.NewID("pub"), tenant.KeyCreator{KeyID: parent.ID}
	for _, k := range []tenant.APIKey{parent, child} {
		if err := r.CreateAPIKey(ctx, k); err != nil {
			return err
		}
	}
	if got, err := r.FindAPIKeyByPubID(ctx, child.PubID); err != nil || got.ID != child.ID {
		return fmt.Errorf("key by public id: %s, %w", got.ID, err)
	}
	if _, err := r.FindAPIKey(ctx, tenantID, core.EnvTest, parent.ID); err != nil {
		return err
	}
	if _, _, err := r.ListAPIKeys(ctx, tenantID, core.EnvTest, ports.Page{Take: 10}); err != nil {
		return err
	}
	if err := r.RevokeAPIKey(ctx, tenantID, core.EnvTest, child.ID, now); err != nil {
		return err
	}
	_, err := r.RevokeKeysCreatedByMember(ctx, tenantID, "mem_route", now)
	return err
}

func webhooksUnit(ctx context.Context, tx ports.Tx, tenantID string, now time.Time) error {
	r := tx.Events()
	ep := webhook.Endpoint{ID: core.NewID(core.PrefixWebhookEndpoint), TenantID: tenantID, Environment: core.EnvTest,
		URL: "https://example.com/hook", Enabled: true, SealedSecret: []byte("s"), CreatedAt: now, UpdatedAt: now}
	if _, err := r.CountEndpoints(ctx, tenantID, core.EnvTest); err != nil {
		return err
	}
	// The endpoint first: an event recorded with no enabled endpoint is recorded fanned out.
	if err := r.CreateEndpoint(ctx, ep); err != nil {
		return err
	}
	e := event.New(tenantID, core.EnvTest, "card.frozen", "crd_route", map[string]any{"status": "inactive"}, now)
	if _, err := r.RecordEvent(ctx, e); err != nil {
		return err
	}
	if claimed, err := r.ClaimUndispatchedEvents(ctx, tenantID, 100); err != nil || len(claimed) != 1 {
		return fmt.Errorf("claimed %d events (want 1): %w", len(claimed), err)
	}
	if err := endpointReads(ctx, r, ep); err != nil {
		return err
	}
	d := webhook.Delivery{ID: core.NewID(core.PrefixWebhookDelivery), TenantID: tenantID, Environment: core.EnvTest,
		EndpointID: ep.ID, EventID: e.ID, EventType: e.Type, Status: webhook.DeliveryPending, NextAttemptAt: &now,
		CreatedAt: now, UpdatedAt: now}
	if err := r.CreateDelivery(ctx, d); err != nil {
		return err
	}
	if err := attemptUnit(ctx, r, d, now); err != nil {
		return err
	}
	return r.DeleteEndpoint(ctx, tenantID, core.EnvTest, ep.ID, now)
}

func endpointReads(ctx context.Context, r ports.EventRepo, ep webhook.Endpoint) error {
	locked, err := r.LockEndpointByID(ctx, ep.TenantID, ep.ID)
	if err != nil {
		return err
	}
	locked.FailingSince = &locked.UpdatedAt
	if err := r.UpdateEndpoint(ctx, locked); err != nil {
		return err
	}
	if _, err := r.FindEndpoint(ctx, ep.TenantID, ep.Environment, ep.ID); err != nil {
		return err
	}
	if _, _, err := r.ListEndpoints(ctx, ep.TenantID, ep.Environment, ports.Page{Take: 10}); err != nil {
		return err
	}
	_, err = r.EnabledEndpoints(ctx, ep.TenantID, ep.Environment)
	return err
}

// attemptUnit is what the attempt job does with a delivery: lock it, mark it in flight, read
// its event, record the attempt, then the reads of the deliveries pages.
func attemptUnit(ctx context.Context, r ports.EventRepo, d webhook.Delivery, now time.Time) error {
	locked, err := r.LockDeliveryByID(ctx, d.TenantID, d.ID)
	if err != nil {
		return err
	}
	locked.AttemptStartedAt = &now
	if err := r.UpdateDelivery(ctx, locked); err != nil {
		return err
	}
	if _, err := r.FindEventByID(ctx, d.TenantID, d.EventID); err != nil {
		return err
	}
	a := webhook.Attempt{TenantID: d.TenantID, DeliveryID: d.ID, Number: 1, At: now, StatusCode: 200, Succeeded: true}
	if err := r.AddAttempt(ctx, a); err != nil {
		return err
	}
	if got, err := r.Attempts(ctx, d.TenantID, []string{d.ID}); err != nil || len(got[d.ID]) != 1 {
		return fmt.Errorf("attempts %v: %w", got, err)
	}
	if _, _, err := r.ListDeliveries(ctx, d.TenantID, d.EndpointID, ports.Page{Take: 10}); err != nil {
		return err
	}
	if _, err := r.EventDeliveries(ctx, d.TenantID, d.Environment, d.EventID); err != nil {
		return err
	}
	if _, err := r.FindDelivery(ctx, d.TenantID, d.Environment, d.ID); err != nil {
		return err
	}
	_, err = r.FindEvent(ctx, d.TenantID, d.Environment, d.EventID)
	return err
}
