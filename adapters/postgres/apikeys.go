package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
)

type apiKeyModel struct {
	bun.BaseModel   `bun:"table:api_keys"`
	ID              string     `bun:"id,pk"`
	TenantID        string     `bun:"tenant_id"`
	Environment     string     `bun:"environment"`
	Name            string     `bun:"name"`
	PubID           string     `bun:"pub_id"`
	SecretHash      string     `bun:"secret_hash"`
	Scopes          []string   `bun:"scopes,array"`
	ExpiresAt       *time.Time `bun:"expires_at"`
	RevokedAt       *time.Time `bun:"revoked_at"`
	CreatedAt       time.Time  `bun:"created_at"`
	CreatedByUser   *string    `bun:"created_by_user_id"`
	CreatedByMember *string    `bun:"created_by_member_id"`
	CreatedByKey    *string    `bun:"created_by_key_id"`
	AgentID         *string    `bun:"agent_id"`
}

func (m apiKeyModel) domain() tenant.APIKey {
	scopes := make([]auth.Scope, len(m.Scopes))
	for i, s := range m.Scopes {
		scopes[i] = auth.Scope(s)
	}
	return tenant.APIKey{
		ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), Name: m.Name,
		PubID: m.PubID, SecretHash: m.SecretHash, Scopes: scopes,
		ExpiresAt: utcPtr(m.ExpiresAt), RevokedAt: utcPtr(m.RevokedAt), CreatedAt: m.CreatedAt.UTC(),
		CreatedBy: tenant.KeyCreator{UserID: deref(m.CreatedByUser), MemberID: deref(m.CreatedByMember), KeyID: deref(m.CreatedByKey)},
		AgentID:   deref(m.AgentID),
	}
}

type apiKeyRepo struct{ db bun.IDB }

func (r apiKeyRepo) CreateAPIKey(ctx context.Context, k tenant.APIKey) error {
	scopes := make([]string, len(k.Scopes))
	for i, s := range k.Scopes {
		scopes[i] = string(s)
	}
	m := apiKeyModel{
		ID: k.ID, TenantID: k.TenantID, Environment: string(k.Environment), Name: k.Name,
		PubID: k.PubID, SecretHash: k.SecretHash, Scopes: scopes,
		ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt, CreatedAt: k.CreatedAt,
		CreatedByUser: nullable(k.CreatedBy.UserID), CreatedByMember: nullable(k.CreatedBy.MemberID),
		CreatedByKey: nullable(k.CreatedBy.KeyID), AgentID: nullable(k.AgentID),
	}
	if _, err := r.db.NewInsert().Model(&m).Exec(ctx); err != nil {
		return err
	}
	return addLookup(ctx, rawQuerier(r.db), k.PubID, lookupAPIKey, k.TenantID)
}

// findAPIKeyByPubIDSQL is authentication's lookup, with a server-side parameter (rawQuerier).
//
//nolint:gosec // SQL naming the secret_hash column, not a credential
const findAPIKeyByPubIDSQL = `SELECT id, tenant_id, environment, name, pub_id, secret_hash, scopes, expires_at,
    revoked_at, created_at, created_by_user_id, created_by_member_id, created_by_key_id, agent_id
FROM api_keys WHERE tenant_id = $1 AND pub_id = $2`

// FindAPIKeyByPubID runs before the tenant is known: the public id's lookup row names the
// tenant, and the key is then read on the tenant's shard (two single-shard reads on Citus).
func (r apiKeyRepo) FindAPIKeyByPubID(ctx context.Context, pubID string) (tenant.APIKey, error) {
	q := rawQuerier(r.db)
	tenantID, ok, err := lookupTenant(ctx, q, pubID, lookupAPIKey)
	if err != nil {
		return tenant.APIKey{}, err
	}
	if !ok {
		return tenant.APIKey{}, core.NotFound(core.CodeAPIKeyNotFound, "API key")
	}
	var m apiKeyModel
	err = q.QueryRowContext(ctx, findAPIKeyByPubIDSQL, tenantID, pubID).Scan(&m.ID, &m.TenantID, &m.Environment,
		&m.Name, &m.PubID, &m.SecretHash, typeMap.SQLScanner(&m.Scopes), &m.ExpiresAt, &m.RevokedAt, &m.CreatedAt,
		&m.CreatedByUser, &m.CreatedByMember, &m.CreatedByKey, &m.AgentID)
	if errors.Is(err, sql.ErrNoRows) {
		return tenant.APIKey{}, core.NotFound(core.CodeAPIKeyNotFound, "API key")
	}
	return m.domain(), err
}

func (r apiKeyRepo) FindAPIKey(ctx context.Context, tenantID string, env core.Environment, id string) (tenant.APIKey, error) {
	var m apiKeyModel
	err := r.db.NewSelect().Model(&m).
		Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return tenant.APIKey{}, core.NotFound(core.CodeAPIKeyNotFound, "API key")
	}
	return m.domain(), err
}

func (r apiKeyRepo) ListAPIKeys(ctx context.Context, tenantID string, env core.Environment, page ports.Page) ([]tenant.APIKey, int, error) {
	var rows []apiKeyModel
	total, err := r.db.NewSelect().Model(&rows).
		Where("tenant_id = ? AND environment = ?", tenantID, env).
		OrderExpr("id ASC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	return infallibleRows(rows), int(total), nil
}

// RevokeAPIKey sets revoked_at once; a second revoke keeps the first time (soft, idempotent).
func (r apiKeyRepo) RevokeAPIKey(ctx context.Context, tenantID string, env core.Environment, id string, at time.Time) error {
	_, err := r.db.NewUpdate().Model((*apiKeyModel)(nil)).
		Set("revoked_at = COALESCE(revoked_at, ?)", at).
		Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id).Exec(ctx)
	if err != nil {
		return err
	}
	return r.notifyRevoked(ctx)
}

// notifyRevoked tells every replica's key cache, when this transaction commits (ListenKeyRevocations).
func (r apiKeyRepo) notifyRevoked(ctx context.Context) error {
	_, err := r.db.ExecContext(ctx, "SELECT pg_notify(?, '')", KeyRevokedChannel)
	return err
}

// RevokeKeysCreatedByMember walks the creator tree: the member's keys, then the keys they
// minted, and so on (a key's parent always exists before it, so the walk ends).
func (r apiKeyRepo) RevokeKeysCreatedByMember(ctx context.Context, tenantID, memberID string, at time.Time) (int, error) {
	res, err := r.db.ExecContext(ctx, `
WITH RECURSIVE tree (id) AS (
    SELECT id FROM api_keys WHERE tenant_id = ? AND created_by_member_id = ?
    UNION
    SELECT k.id FROM api_keys k JOIN tree t ON k.created_by_key_id = t.id WHERE k.tenant_id = ?
)
UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND id IN (SELECT id FROM tree) AND revoked_at IS NULL`,
		tenantID, memberID, tenantID, at, tenantID)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return int(n), err
	}
	return int(n), r.notifyRevoked(ctx)
}
