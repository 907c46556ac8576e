package portstest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
)

// TenantRepo is the contract of ports.TenantRepo: a tenant round-trips, a taken slug is
// ErrSlugTaken and writes nothing, an unknown id is TENANT_NOT_FOUND, and a user resolves to the
// tenant it owns before any where it is an ACTIVE member.
func TenantRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"a tenant round-trips and an unknown id is TENANT_NOT_FOUND", tenantRoundTrip},
		{"a taken slug is ErrSlugTaken and writes nothing", tenantSlugTaken},
		{"a user resolves to its own tenant, else its ACTIVE membership", tenantForUser},
	})
}

func tenantRoundTrip(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Tenants().FindTenant(ctx, tn.ID)
		noErr(t, "FindTenant", err)
		if got.Slug != tn.Slug || got.Name != tn.Name || got.OwnerUserID != tn.OwnerUserID || !got.CreatedAt.Equal(tn.CreatedAt) {
			t.Errorf("FindTenant = %+v, want %+v", got, tn)
		}
		_, err = tx.Tenants().FindTenant(ctx, core.NewID(core.PrefixTenant))
		wantCode(t, err, core.CodeTenantNotFound)
		return tx.Tenants().LockUser(ctx, tn.OwnerUserID)
	})
}

func tenantSlugTaken(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	again := tenant.Tenant{ID: core.NewID(core.PrefixTenant), Slug: tn.Slug, Name: "again", OwnerUserID: "user_" + suffix(t), CreatedAt: ledgerNow()}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		if err := tx.Tenants().CreateTenant(ctx, again); !errors.Is(err, ports.ErrSlugTaken) {
			t.Errorf("CreateTenant with a taken slug = %v, want ErrSlugTaken", err)
		}
		_, err := tx.Tenants().FindTenant(ctx, again.ID)
		wantCode(t, err, core.CodeTenantNotFound)
		return nil
	})
}

func newMember(tenantID, userID string, status tenant.MemberStatus, acceptedAt *time.Time) tenant.Member {
	return tenant.Member{ID: core.NewID(core.PrefixMember), TenantID: tenantID, Email: "m@example.com", DisplayName: "M",
		Role: tenant.RoleMember, Status: status, IdentityUserID: userID, InviteTokenHash: core.NewID("inv"),
		InviteExpiresAt: ledgerNow().Add(time.Hour), CreatedAt: ledgerNow(), AcceptedAt: acceptedAt}
}

func tenantForUser(t *testing.T, s ports.Store) {
	owned, first, second := newTenant(t, s), newTenant(t, s), newTenant(t, s)
	user := "user_" + suffix(t)
	early, late := ledgerNow().Add(-time.Hour), ledgerNow()
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		_, _, err := tx.Tenants().FindTenantForUser(ctx, user)
		wantCode(t, err, core.CodeTenantNotFound)
		noErr(t, "pending", tx.Members().CreateMember(ctx, newMember(owned.ID, user, tenant.MemberPending, nil)))
		noErr(t, "late", tx.Members().CreateMember(ctx, newMember(second.ID, user, tenant.MemberActive, &late)))
		noErr(t, "early", tx.Members().CreateMember(ctx, newMember(first.ID, user, tenant.MemberActive, &early)))
		got, m, err := tx.Tenants().FindTenantForUser(ctx, user)
		if err != nil || got.ID != first.ID || m == nil || m.TenantID != first.ID {
			t.Errorf("FindTenantForUser = %s, %+v, %v; want the earliest ACTIVE membership %s", got.ID, m, err, first.ID)
		}
		got, m, err = tx.Tenants().FindTenantForUser(ctx, owned.OwnerUserID)
		if err != nil || got.ID != owned.ID || m != nil {
			t.Errorf("FindTenantForUser(owner) = %s, %+v, %v; want %s and no member", got.ID, m, err, owned.ID)
		}
		return nil
	})
}

// MemberRepo is the contract of ports.MemberRepo: members list by id with paging and a total,
// lookups are tenant-scoped (another tenant's member is MEMBER_NOT_FOUND), an invite is found
// by its hash, and an update writes status and times.
func MemberRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"members list in id order, paged, scoped to the tenant", memberList},
		{"a member is found in its tenant and by its invite hash only", memberFind},
		{"an update writes status and acceptance", memberUpdate},
	})
}

func memberList(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	var want []string
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		for range 3 {
			m := newMember(tn.ID, "", tenant.MemberPending, nil)
			want = append(want, m.ID)
			noErr(t, "CreateMember", tx.Members().CreateMember(ctx, m))
		}
		return tx.Members().CreateMember(ctx, newMember(other.ID, "", tenant.MemberPending, nil))
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		page, total, err := tx.Members().ListMembers(ctx, tn.ID, ports.Page{Skip: 1, Take: 1})
		noErr(t, "ListMembers", err)
		wantTotal(t, "ListMembers", total, 3)
		wantIDs(t, "ListMembers page 2", ids(page, func(m tenant.Member) string { return m.ID }), want[1:2])
		all, _, err := tx.Members().ListMembers(ctx, tn.ID, ports.Page{Take: 10})
		wantIDs(t, "ListMembers", ids(all, func(m tenant.Member) string { return m.ID }), want)
		return err
	})
}

func memberFind(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	m := newMember(tn.ID, "", tenant.MemberPending, nil)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Members().CreateMember(ctx, m) })
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Members().FindMember(ctx, tn.ID, m.ID)
		if err != nil || got.Email != m.Email || got.Status != m.Status || got.AcceptedAt != nil {
			t.Errorf("FindMember = %+v, %v", got, err)
		}
		_, err = tx.Members().FindMember(ctx, other.ID, m.ID)
		wantCode(t, err, core.CodeMemberNotFound)
		got, err = tx.Members().FindMemberByInviteHashForUpdate(ctx, m.InviteTokenHash)
		if err != nil || got.ID != m.ID {
			t.Errorf("FindMemberByInviteHashForUpdate = %s, %v; want %s", got.ID, err, m.ID)
		}
		_, err = tx.Members().FindMemberByInviteHashForUpdate(ctx, "no such hash")
		wantCode(t, err, core.CodeInviteNotFound)
		return nil
	})
}

func memberUpdate(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	m := newMember(tn.ID, "", tenant.MemberPending, nil)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Members().CreateMember(ctx, m) })
	at := ledgerNow()
	m.Status, m.AcceptedAt, m.IdentityUserID = tenant.MemberActive, &at, "user_"+suffix(t)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Members().UpdateMember(ctx, m) })
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Members().FindMember(ctx, tn.ID, m.ID)
		if err != nil || got.Status != tenant.MemberActive || got.AcceptedAt == nil || !got.AcceptedAt.Equal(at) || got.IdentityUserID != m.IdentityUserID {
			t.Errorf("after UpdateMember = %+v, %v", got, err)
		}
		return nil
	})
}

// APIKeyRepo is the contract of ports.APIKeyRepo: keys list by id per tenant and environment,
// lookups by id are scoped (API_KEY_NOT_FOUND elsewhere), a revocation keeps its first time, and
// revoking a member's keys reaches every key they minted in turn, once.
func APIKeyRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"keys are found by pub id and, scoped, by id; listed per environment", apiKeyFind},
		{"a revocation keeps its first time", apiKeyRevoke},
		{"revoking a member's keys reaches the keys they minted, once", apiKeyRevokeTree},
	})
}

func newKey(tenantID string, env core.Environment, by tenant.KeyCreator) tenant.APIKey {
	id := core.NewID(core.PrefixAPIKey)
	return tenant.APIKey{ID: id, TenantID: tenantID, Environment: env, Name: "contract", PubID: "pub" + id,
		SecretHash: "hash", Scopes: []auth.Scope{"wallets:read"}, CreatedAt: ledgerNow(), CreatedBy: by}
}

func apiKeyFind(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	a, b, live := newKey(tn.ID, core.EnvTest, tenant.KeyCreator{UserID: "u"}), newKey(tn.ID, core.EnvTest, tenant.KeyCreator{UserID: "u"}),
		newKey(tn.ID, core.EnvLive, tenant.KeyCreator{UserID: "u"})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		for _, k := range []tenant.APIKey{a, b, live} {
			noErr(t, "CreateAPIKey", tx.APIKeys().CreateAPIKey(ctx, k))
		}
		return nil
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.APIKeys().FindAPIKeyByPubID(ctx, b.PubID)
		if err != nil || got.ID != b.ID || len(got.Scopes) != 1 || got.Scopes[0] != "wallets:read" || got.CreatedBy.UserID != "u" {
			t.Errorf("FindAPIKeyByPubID = %+v, %v", got, err)
		}
		_, err = tx.APIKeys().FindAPIKeyByPubID(ctx, "pub_none")
		wantCode(t, err, core.CodeAPIKeyNotFound)
		_, err = tx.APIKeys().FindAPIKey(ctx, other.ID, core.EnvTest, a.ID)
		wantCode(t, err, core.CodeAPIKeyNotFound)
		_, err = tx.APIKeys().FindAPIKey(ctx, tn.ID, core.EnvLive, a.ID)
		wantCode(t, err, core.CodeAPIKeyNotFound)
		list, total, err := tx.APIKeys().ListAPIKeys(ctx, tn.ID, core.EnvTest, ports.Page{Take: 10})
		wantTotal(t, "ListAPIKeys", total, 2)
		wantIDs(t, "ListAPIKeys", ids(list, func(k tenant.APIKey) string { return k.ID }), []string{a.ID, b.ID})
		return err
	})
}

func apiKeyRevoke(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	k := newKey(tn.ID, core.EnvTest, tenant.KeyCreator{UserID: "u"})
	first := ledgerNow()
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateAPIKey", tx.APIKeys().CreateAPIKey(ctx, k))
		noErr(t, "RevokeAPIKey", tx.APIKeys().RevokeAPIKey(ctx, tn.ID, core.EnvTest, k.ID, first))
		return tx.APIKeys().RevokeAPIKey(ctx, tn.ID, core.EnvTest, k.ID, first.Add(time.Hour))
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.APIKeys().FindAPIKey(ctx, tn.ID, core.EnvTest, k.ID)
		if err != nil || got.RevokedAt == nil || !got.RevokedAt.Equal(first) {
			t.Errorf("revoked twice: RevokedAt = %v, %v; want the first %v", got.RevokedAt, err, first)
		}
		return nil
	})
}

func apiKeyRevokeTree(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	m := newMember(tn.ID, "", tenant.MemberPending, nil)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Members().CreateMember(ctx, m) })
	member := m.ID
	root := newKey(tn.ID, core.EnvTest, tenant.KeyCreator{MemberID: member})
	child := newKey(tn.ID, core.EnvLive, tenant.KeyCreator{KeyID: root.ID})
	grandchild := newKey(tn.ID, core.EnvTest, tenant.KeyCreator{KeyID: child.ID})
	bystander := newKey(tn.ID, core.EnvTest, tenant.KeyCreator{UserID: "u"})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		for _, k := range []tenant.APIKey{root, child, grandchild, bystander} {
			noErr(t, "CreateAPIKey", tx.APIKeys().CreateAPIKey(ctx, k))
		}
		n, err := tx.APIKeys().RevokeKeysCreatedByMember(ctx, tn.ID, member, ledgerNow())
		if err != nil || n != 3 {
			t.Errorf("RevokeKeysCreatedByMember = %d, %v; want 3", n, err)
		}
		n, err = tx.APIKeys().RevokeKeysCreatedByMember(ctx, tn.ID, member, ledgerNow())
		if err != nil || n != 0 {
			t.Errorf("RevokeKeysCreatedByMember again = %d, %v; want 0", n, err)
		}
		got, err := tx.APIKeys().FindAPIKey(ctx, tn.ID, core.EnvTest, bystander.ID)
		if err != nil || got.RevokedAt != nil {
			t.Errorf("a key the member did not create was revoked: %+v, %v", got, err)
		}
		return nil
	})
}

// IdempotencyRepo is the contract of ports.IdempotencyRepo: a fresh key is claimed, a saved
// live record is found (and Claim reports it stored), an expired one is not and may be
// replaced, and DeleteExpired removes expired records up to its limit.
func IdempotencyRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"a fresh key is claimed; a saved record is found until it expires", idempotencyClaimSave},
		{"an expired record is replaced by the next save and deleted by DeleteExpired", idempotencyExpiry},
	})
}

func idempotencyClaimSave(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	scope, key, now := "tenant:"+tn.ID, "key-"+suffix(t), ledgerNow()
	rec := ports.IdempotencyRecord{Scope: scope, Environment: core.EnvTest, Key: key, Fingerprint: "fp", StatusCode: 201,
		Body: []byte(`{"ok":true}`), ContentType: "application/json", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		_, stored, claimed, err := tx.Idempotency().Claim(ctx, scope, core.EnvTest, key, now)
		if err != nil || stored || !claimed {
			t.Errorf("Claim of a fresh key = stored %v, claimed %v, %v; want claimed", stored, claimed, err)
		}
		return tx.Idempotency().Save(ctx, rec)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, stored, _, err := tx.Idempotency().Claim(ctx, scope, core.EnvTest, key, now)
		if err != nil || !stored || got.StatusCode != 201 || string(got.Body) != `{"ok":true}` || got.Fingerprint != "fp" {
			t.Errorf("Claim of a saved key = %+v, stored %v, %v", got, stored, err)
		}
		if _, ok, _ := tx.Idempotency().Find(ctx, scope, core.EnvLive, key, now); ok {
			t.Error("the record is found in the other environment")
		}
		if _, ok, _ := tx.Idempotency().Find(ctx, scope, core.EnvTest, key, now.Add(2*time.Hour)); ok {
			t.Error("an expired record is found")
		}
		ok, err := tx.Idempotency().TryLock(ctx, scope, core.EnvTest, key)
		if err != nil || !ok {
			t.Errorf("TryLock of a free key = %v, %v", ok, err)
		}
		return nil
	})
}

func idempotencyExpiry(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	scope, key := "tenant:"+tn.ID, "key-"+suffix(t)
	long := ledgerNow().Add(-48 * time.Hour) // expired before any other suite's records
	old := ports.IdempotencyRecord{Scope: scope, Environment: core.EnvTest, Key: key, Fingerprint: "old", StatusCode: 200,
		CreatedAt: long, ExpiresAt: long.Add(time.Minute)}
	fresh := old
	fresh.Fingerprint, fresh.CreatedAt, fresh.ExpiresAt = "new", ledgerNow(), ledgerNow().Add(time.Hour)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "Save old", tx.Idempotency().Save(ctx, old))
		noErr(t, "Save over a live one", tx.Idempotency().Save(ctx, ports.IdempotencyRecord{Scope: scope, Environment: core.EnvTest,
			Key: key, Fingerprint: "ignored", CreatedAt: long, ExpiresAt: long.Add(time.Hour)}))
		return tx.Idempotency().Save(ctx, fresh)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, ok, err := tx.Idempotency().Find(ctx, scope, core.EnvTest, key, ledgerNow())
		if err != nil || !ok || got.Fingerprint != "new" {
			t.Errorf("after saving over an expired record: %+v, %v, %v; want the new one", got, ok, err)
		}
		return nil
	})
	expired := old
	expired.Key = "expired-" + suffix(t)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "Save expired", tx.Idempotency().Save(ctx, expired))
		n, err := tx.Idempotency().DeleteExpired(ctx, long.Add(2*time.Minute), 1000)
		if err != nil || n < 1 {
			t.Errorf("DeleteExpired = %d, %v; want at least the expired record", n, err)
		}
		if _, ok, _ := tx.Idempotency().Find(ctx, scope, core.EnvTest, key, ledgerNow()); !ok {
			t.Error("DeleteExpired removed a live record")
		}
		return nil
	})
}

// RelayerBudgetRepo is the contract of ports.RelayerBudgetRepo: charges count per tenant,
// environment and day up to the limit, and units charging at once never pass it (the real
// store's upsert serializes them on the day's row).
func RelayerBudgetRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"charges count per tenant, environment and day up to the limit", relayerLimit},
		{"units charging at once never pass the limit", relayerConcurrent},
	})
}

func charge(t *testing.T, s ports.Store, tenantID string, env core.Environment, day time.Time, limit int) bool {
	t.Helper()
	var charged bool
	unit(t, s, func(ctx context.Context, tx ports.Tx) (err error) {
		charged, err = tx.RelayerBudget().Charge(ctx, tenantID, env, day, limit)
		return err
	})
	return charged
}

func relayerLimit(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	day := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	for i, want := range []bool{true, true, false} {
		if got := charge(t, s, tn.ID, core.EnvTest, day, 2); got != want {
			t.Errorf("charge %d = %v, want %v", i+1, got, want)
		}
	}
	if !charge(t, s, tn.ID, core.EnvLive, day, 2) || !charge(t, s, tn.ID, core.EnvTest, day.Add(24*time.Hour), 2) {
		t.Error("another environment or day shares the count")
	}
}

func relayerConcurrent(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	day := time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)
	charged := make([]bool, 6)
	for i, err := range concurrently(s, len(charged), func(ctx context.Context, tx ports.Tx, i int) (err error) {
		charged[i], err = tx.RelayerBudget().Charge(ctx, tn.ID, core.EnvTest, day, 4)
		return err
	}) {
		noErr(t, "Charge", err)
		_ = i
	}
	n := 0
	for _, c := range charged {
		if c {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d of 6 concurrent charges passed a limit of 4", n)
	}
}

// HandleRepo is the contract of ports.HandleRepo: a handle is created, re-pointed by its
// tenant, HANDLE_TAKEN for another tenant, and HANDLE_NOT_FOUND when unknown.
func HandleRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{{"a handle is put, re-pointed by its tenant and taken for others", handlePut}})
}

func handlePut(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	w1, w2, w3 := newWallet(t, s, tn.ID, core.EnvTest), newWallet(t, s, tn.ID, core.EnvTest), newWallet(t, s, other.ID, core.EnvTest)
	name, at := "h"+suffix(t), ledgerNow()
	h := ports.Handle{Environment: core.EnvTest, Handle: name, TenantID: tn.ID, WalletID: w1.ID, DisplayName: "One", CreatedAt: at, UpdatedAt: at}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		_, err := tx.Handles().FindHandle(ctx, core.EnvTest, name)
		wantCode(t, err, core.CodeHandleNotFound)
		got, err := tx.Handles().PutHandle(ctx, h)
		if err != nil || got.WalletID != w1.ID || got.TenantID != tn.ID {
			t.Errorf("PutHandle = %+v, %v", got, err)
		}
		h.WalletID, h.DisplayName, h.UpdatedAt = w2.ID, "Two", at.Add(time.Minute)
		got, err = tx.Handles().PutHandle(ctx, h)
		if err != nil || got.WalletID != w2.ID || got.DisplayName != "Two" || !got.CreatedAt.Equal(at) {
			t.Errorf("PutHandle by its tenant = %+v, %v; want re-pointed, created at kept", got, err)
		}
		_, err = tx.Handles().PutHandle(ctx, ports.Handle{Environment: core.EnvTest, Handle: name, TenantID: other.ID, WalletID: w3.ID, CreatedAt: at, UpdatedAt: at})
		wantCode(t, err, core.CodeHandleTaken)
		got, err = tx.Handles().FindHandle(ctx, core.EnvTest, name)
		if err != nil || got.WalletID != w2.ID {
			t.Errorf("after a refused take: %+v, %v", got, err)
		}
		_, err = tx.Handles().FindHandle(ctx, core.EnvLive, name)
		wantCode(t, err, core.CodeHandleNotFound)
		return nil
	})
}
