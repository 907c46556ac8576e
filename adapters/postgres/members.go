package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
)

type memberModel struct {
	bun.BaseModel   `bun:"table:members"`
	ID              string     `bun:"id,pk"`
	TenantID        string     `bun:"tenant_id"`
	Email           string     `bun:"email"`
	DisplayName     string     `bun:"display_name"`
	Role            string     `bun:"role"`
	Status          string     `bun:"status"`
	SignerAddress   *string    `bun:"signer_address"`
	IdentityUserID  *string    `bun:"identity_user_id"`
	InviteTokenHash string     `bun:"invite_token_hash"`
	InviteExpiresAt time.Time  `bun:"invite_expires_at"`
	CreatedAt       time.Time  `bun:"created_at"`
	AcceptedAt      *time.Time `bun:"accepted_at"`
	RevokedAt       *time.Time `bun:"revoked_at"`
}

func memberFromDomain(m tenant.Member) memberModel {
	return memberModel{
		ID: m.ID, TenantID: m.TenantID, Email: m.Email, DisplayName: m.DisplayName,
		Role: string(m.Role), Status: string(m.Status),
		SignerAddress: nullable(m.SignerAddress), IdentityUserID: nullable(m.IdentityUserID),
		InviteTokenHash: m.InviteTokenHash, InviteExpiresAt: m.InviteExpiresAt,
		CreatedAt: m.CreatedAt, AcceptedAt: m.AcceptedAt, RevokedAt: m.RevokedAt,
	}
}

func (m memberModel) domain() tenant.Member {
	return tenant.Member{
		ID: m.ID, TenantID: m.TenantID, Email: m.Email, DisplayName: m.DisplayName,
		Role: tenant.Role(m.Role), Status: tenant.MemberStatus(m.Status),
		SignerAddress: deref(m.SignerAddress), IdentityUserID: deref(m.IdentityUserID),
		InviteTokenHash: m.InviteTokenHash, InviteExpiresAt: m.InviteExpiresAt.UTC(),
		CreatedAt: m.CreatedAt.UTC(), AcceptedAt: utcPtr(m.AcceptedAt), RevokedAt: utcPtr(m.RevokedAt),
	}
}

type memberRepo struct{ db bun.IDB }

// createMemberSQL has server-side parameters (rawQuerier): an invite is a POST's write.
const createMemberSQL = `INSERT INTO members (id, tenant_id, email, display_name, role, status, signer_address,
    identity_user_id, invite_token_hash, invite_expires_at, created_at, accepted_at, revoked_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`

func (r memberRepo) CreateMember(ctx context.Context, m tenant.Member) error {
	x := memberFromDomain(m)
	_, err := rawQuerier(r.db).ExecContext(ctx, createMemberSQL, x.ID, x.TenantID, x.Email, x.DisplayName, x.Role,
		x.Status, x.SignerAddress, x.IdentityUserID, x.InviteTokenHash, x.InviteExpiresAt, x.CreatedAt, x.AcceptedAt,
		x.RevokedAt)
	if err != nil {
		return err
	}
	return r.addLookups(ctx, m, true)
}

// addLookups writes the member's lookup rows in the member's unit of work: its invite when it
// is created (unique across tenants, as the token hash was), its user once it has one (a user
// may belong to several tenants). Accepting an invite and resolving a session find the tenant
// by them.
func (r memberRepo) addLookups(ctx context.Context, m tenant.Member, created bool) error {
	q := rawQuerier(r.db)
	if created {
		if err := addLookup(ctx, q, m.InviteTokenHash, lookupInvite, m.TenantID); err != nil {
			return err
		}
	}
	if m.IdentityUserID == "" {
		return nil
	}
	return addLookupOnce(ctx, q, m.IdentityUserID, lookupMemberUser, m.TenantID)
}

func (r memberRepo) FindMember(ctx context.Context, tenantID, id string) (tenant.Member, error) {
	var m memberModel
	err := r.db.NewSelect().Model(&m).Where("tenant_id = ? AND id = ?", tenantID, id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return tenant.Member{}, core.NotFound(core.CodeMemberNotFound, "member")
	}
	return m.domain(), err
}

// FindMemberByInviteHashForUpdate runs before the tenant is known: the token hash's lookup row
// names the tenant, whose shard holds the member.
func (r memberRepo) FindMemberByInviteHashForUpdate(ctx context.Context, tokenHash string) (tenant.Member, error) {
	tenantID, ok, err := lookupTenant(ctx, rawQuerier(r.db), tokenHash, lookupInvite)
	if err != nil {
		return tenant.Member{}, err
	}
	if !ok {
		return tenant.Member{}, core.NotFound(core.CodeInviteNotFound, "invite")
	}
	var m memberModel
	err = r.db.NewSelect().Model(&m).Where("tenant_id = ? AND invite_token_hash = ?", tenantID, tokenHash).
		For("UPDATE").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return tenant.Member{}, core.NotFound(core.CodeInviteNotFound, "invite")
	}
	return m.domain(), err
}

func (r memberRepo) ListMembers(ctx context.Context, tenantID string, page ports.Page) ([]tenant.Member, int, error) {
	var rows []memberModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ?", tenantID).
		OrderExpr("id ASC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	return infallibleRows(rows), int(total), nil
}

func (r memberRepo) UpdateMember(ctx context.Context, m tenant.Member) error {
	model := memberFromDomain(m)
	if _, err := r.db.NewUpdate().Model(&model).WherePK().Where("tenant_id = ?", m.TenantID).Exec(ctx); err != nil {
		return err
	}
	return r.addLookups(ctx, m, false)
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
