package fake

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
)

// tenantTables are the tenancy rows: tenants, members, API keys, idempotency records, the
// relayer's daily counts and the directory's handles.
type tenantTables struct {
	tenants     table[tenant.Tenant]
	members     table[tenant.Member]
	apiKeys     table[tenant.APIKey]
	idempotency map[string]ports.IdempotencyRecord
	relayer     map[string]int
	handles     map[string]ports.Handle
}

func newTenantTables() tenantTables {
	return tenantTables{tenants: newTable[tenant.Tenant](), members: newTable[tenant.Member](), apiKeys: newTable[tenant.APIKey](),
		idempotency: map[string]ports.IdempotencyRecord{}, relayer: map[string]int{}, handles: map[string]ports.Handle{}}
}

func (t tenantTables) clone() tenantTables {
	return tenantTables{tenants: t.tenants.clone(), members: t.members.clone(), apiKeys: t.apiKeys.clone(),
		idempotency: copyOf(t.idempotency), relayer: copyOf(t.relayer), handles: copyOf(t.handles)}
}

// tenantRepo stores tenants; slugs are unique as the database's index keeps them.
type tenantRepo struct{ s *Store }

var _ ports.TenantRepo = tenantRepo{}

func (r tenantRepo) t() *tenantTables { return &r.s.state.tenancy }

func (r tenantRepo) CreateTenant(_ context.Context, t tenant.Tenant) error {
	for _, other := range r.t().tenants.rows {
		if other.Slug == t.Slug {
			return ports.ErrSlugTaken
		}
	}
	t.CreatedAt = t.CreatedAt.UTC()
	return r.t().tenants.insert(t.ID, t)
}

func (r tenantRepo) FindTenant(_ context.Context, id string) (tenant.Tenant, error) {
	t, ok := r.t().tenants.rows[id]
	if !ok {
		return tenant.Tenant{}, core.NotFound(core.CodeTenantNotFound, "tenant")
	}
	return t, nil
}

// FindTenantForUser prefers the tenant the user owns, then its earliest accepted ACTIVE
// membership, as the Postgres query orders them.
func (r tenantRepo) FindTenantForUser(ctx context.Context, userID string) (tenant.Tenant, *tenant.Member, error) {
	for _, t := range r.t().tenants.filter(func(t tenant.Tenant) bool { return t.OwnerUserID == userID }, false) {
		return t, nil, nil
	}
	members := r.t().members.filter(func(m tenant.Member) bool {
		return m.IdentityUserID == userID && m.Status == tenant.MemberActive
	}, false)
	if len(members) == 0 {
		return tenant.Tenant{}, nil, core.NotFound(core.CodeTenantNotFound, "tenant")
	}
	slices.SortStableFunc(members, func(a, b tenant.Member) int { return acceptedAt(a).Compare(acceptedAt(b)) })
	t, err := r.FindTenant(ctx, members[0].TenantID)
	return t, &members[0], err
}

func acceptedAt(m tenant.Member) time.Time {
	if m.AcceptedAt == nil {
		return time.Time{}
	}
	return *m.AcceptedAt
}

// LockUser is a no-op: units of work already run one at a time.
func (r tenantRepo) LockUser(context.Context, string) error { return nil }

// memberRepo stores members, listed by id.
type memberRepo struct{ s *Store }

var _ ports.MemberRepo = memberRepo{}

var errMemberNotFound = core.NotFound(core.CodeMemberNotFound, "member")

func (r memberRepo) t() *table[tenant.Member] { return &r.s.state.tenancy.members }

func (r memberRepo) CreateMember(_ context.Context, m tenant.Member) error {
	if _, ok := r.s.state.tenancy.tenants.rows[m.TenantID]; !ok {
		return fmt.Errorf("fake: member %s of unknown tenant %s", m.ID, m.TenantID)
	}
	return r.t().insert(m.ID, m)
}

func (r memberRepo) FindMember(_ context.Context, tenantID, id string) (tenant.Member, error) {
	m, ok := r.t().rows[id]
	if !ok || m.TenantID != tenantID {
		return tenant.Member{}, errMemberNotFound
	}
	return m, nil
}

func (r memberRepo) FindMemberByInviteHashForUpdate(_ context.Context, tokenHash string) (tenant.Member, error) {
	for _, m := range r.t().filter(func(m tenant.Member) bool { return m.InviteTokenHash == tokenHash }, false) {
		return m, nil
	}
	return tenant.Member{}, core.NotFound(core.CodeInviteNotFound, "invite")
}

func (r memberRepo) ListMembers(_ context.Context, tenantID string, p ports.Page) ([]tenant.Member, int, error) {
	out, total := page(r.t().filter(func(m tenant.Member) bool { return m.TenantID == tenantID }, false), p)
	return out, total, nil
}

// UpdateMember writes the row when it is the tenant's; another tenant's member is left alone.
func (r memberRepo) UpdateMember(_ context.Context, m tenant.Member) error {
	if old, ok := r.t().rows[m.ID]; !ok || old.TenantID != m.TenantID {
		return nil
	}
	return r.t().update(m.ID, m)
}

// apiKeyRepo stores API keys, listed by id.
type apiKeyRepo struct{ s *Store }

var _ ports.APIKeyRepo = apiKeyRepo{}

var errAPIKeyNotFound = core.NotFound(core.CodeAPIKeyNotFound, "API key")

func (r apiKeyRepo) t() *table[tenant.APIKey] { return &r.s.state.tenancy.apiKeys }

func (r apiKeyRepo) CreateAPIKey(_ context.Context, k tenant.APIKey) error {
	for _, other := range r.t().rows {
		if other.PubID == k.PubID {
			return fmt.Errorf("fake: duplicate API key pub id %s", k.PubID)
		}
	}
	return r.t().insert(k.ID, k)
}

func (r apiKeyRepo) FindAPIKeyByPubID(_ context.Context, pubID string) (tenant.APIKey, error) {
	for _, k := range r.t().filter(func(k tenant.APIKey) bool { return k.PubID == pubID }, false) {
		return k, nil
	}
	return tenant.APIKey{}, errAPIKeyNotFound
}

func (r apiKeyRepo) FindAPIKey(_ context.Context, tenantID string, env core.Environment, id string) (tenant.APIKey, error) {
	k, ok := r.t().rows[id]
	if !ok || k.TenantID != tenantID || k.Environment != env {
		return tenant.APIKey{}, errAPIKeyNotFound
	}
	return k, nil
}

func (r apiKeyRepo) ListAPIKeys(_ context.Context, tenantID string, env core.Environment, p ports.Page) ([]tenant.APIKey, int, error) {
	out, total := page(r.t().filter(func(k tenant.APIKey) bool { return k.TenantID == tenantID && k.Environment == env }, false), p)
	return out, total, nil
}

// RevokeAPIKey keeps the first revocation time, as COALESCE does.
func (r apiKeyRepo) RevokeAPIKey(_ context.Context, tenantID string, env core.Environment, id string, at time.Time) error {
	k, ok := r.t().rows[id]
	if !ok || k.TenantID != tenantID || k.Environment != env || k.RevokedAt != nil {
		return nil
	}
	k.RevokedAt = &at
	return r.t().update(id, k)
}

// RevokeKeysCreatedByMember walks the tree of keys the member created and those keys minted.
func (r apiKeyRepo) RevokeKeysCreatedByMember(_ context.Context, tenantID, memberID string, at time.Time) (int, error) {
	inTree := map[string]bool{}
	for grew := true; grew; {
		grew = false
		for id, k := range r.t().rows {
			if k.TenantID != tenantID || inTree[id] {
				continue
			}
			if (memberID != "" && k.CreatedBy.MemberID == memberID) || (k.CreatedBy.KeyID != "" && inTree[k.CreatedBy.KeyID]) {
				inTree[id], grew = true, true
			}
		}
	}
	n := 0
	for id := range inTree {
		if k := r.t().rows[id]; k.RevokedAt == nil {
			k.RevokedAt = &at
			r.t().rows[id] = k
			n++
		}
	}
	return n, nil
}

// idempotencyRepo stores records by scope, environment and key. Its locks always succeed:
// units of work run one at a time, so no other unit can hold one.
type idempotencyRepo struct{ s *Store }

var _ ports.IdempotencyRepo = idempotencyRepo{}

func (r idempotencyRepo) m() map[string]ports.IdempotencyRecord { return r.s.state.tenancy.idempotency }

func idempotencyKey(scope string, env core.Environment, key string) string {
	return scope + "|" + string(env) + "|" + key
}

func (r idempotencyRepo) TryLock(context.Context, string, core.Environment, string) (bool, error) {
	return true, nil
}

func (r idempotencyRepo) Find(_ context.Context, scope string, env core.Environment, key string, now time.Time) (ports.IdempotencyRecord, bool, error) {
	rec, ok := r.m()[idempotencyKey(scope, env, key)]
	if !ok || !rec.ExpiresAt.After(now) {
		return ports.IdempotencyRecord{}, false, nil
	}
	return rec, true, nil
}

func (r idempotencyRepo) Claim(ctx context.Context, scope string, env core.Environment, key string, now time.Time) (ports.IdempotencyRecord, bool, bool, error) {
	if rec, ok, _ := r.Find(ctx, scope, env, key, now); ok {
		return rec, true, false, nil
	}
	return ports.IdempotencyRecord{}, false, true, nil
}

// Save stores rec unless a live record holds the key (the upsert replaces only an expired one).
func (r idempotencyRepo) Save(_ context.Context, rec ports.IdempotencyRecord) error {
	k := idempotencyKey(rec.Scope, rec.Environment, rec.Key)
	if old, ok := r.m()[k]; ok && old.ExpiresAt.After(rec.CreatedAt) {
		return nil
	}
	if rec.Body == nil {
		rec.Body = []byte{}
	}
	r.m()[k] = rec
	return nil
}

func (r idempotencyRepo) DeleteExpired(_ context.Context, now time.Time, limit int) (int, error) {
	n := 0
	for k, rec := range r.m() {
		if n < limit && !rec.ExpiresAt.After(now) {
			delete(r.m(), k)
			n++
		}
	}
	return n, nil
}

// relayerBudgetRepo counts charges per tenant, environment and UTC day.
type relayerBudgetRepo struct{ s *Store }

var _ ports.RelayerBudgetRepo = relayerBudgetRepo{}

func (r relayerBudgetRepo) Charge(_ context.Context, tenantID string, env core.Environment, day time.Time, limit int) (bool, error) {
	k := tenantID + "|" + string(env) + "|" + day.UTC().Format(time.DateOnly)
	counts := r.s.state.tenancy.relayer
	if counts[k] >= limit && counts[k] > 0 {
		return false, nil
	}
	counts[k]++
	return true, nil
}

// handleRepo stores directory handles per environment.
type handleRepo struct{ s *Store }

var _ ports.HandleRepo = handleRepo{}

func (r handleRepo) PutHandle(ctx context.Context, h ports.Handle) (ports.Handle, error) {
	k := string(h.Environment) + "|" + h.Handle
	handles := r.s.state.tenancy.handles
	if old, ok := handles[k]; ok {
		if old.TenantID != h.TenantID {
			return ports.Handle{}, core.E(core.CodeHandleTaken, "the handle %s belongs to another tenant", h.Handle)
		}
		old.WalletID, old.DisplayName, old.UpdatedAt = h.WalletID, h.DisplayName, h.UpdatedAt.UTC()
		handles[k] = old
		return old, nil
	}
	h.CreatedAt, h.UpdatedAt = h.CreatedAt.UTC(), h.UpdatedAt.UTC()
	handles[k] = h
	return h, nil
}

func (r handleRepo) FindHandle(_ context.Context, env core.Environment, handle string) (ports.Handle, error) {
	h, ok := r.s.state.tenancy.handles[string(env)+"|"+handle]
	if !ok {
		return ports.Handle{}, core.NotFound(core.CodeHandleNotFound, "handle")
	}
	return h, nil
}
