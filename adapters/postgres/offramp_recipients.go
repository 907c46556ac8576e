package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

type aliasModel struct {
	bun.BaseModel   `bun:"table:phone_aliases"`
	ID              string     `bun:"id,pk"`
	TenantID        string     `bun:"tenant_id,pk"`
	Environment     string     `bun:"environment"`
	PhoneHash       string     `bun:"phone_hash"`
	PhoneCiphertext []byte     `bun:"phone_ciphertext"`
	Masked          string     `bun:"masked"`
	Status          string     `bun:"status"`
	CodeHash        string     `bun:"code_hash"`
	Attempts        int        `bun:"attempts"`
	CodeExpiresAt   time.Time  `bun:"code_expires_at"`
	VerifiedAt      *time.Time `bun:"verified_at"`
	CreatedAt       time.Time  `bun:"created_at"`
}

func aliasFromDomain(a recipient.Alias) aliasModel {
	return aliasModel{ID: a.ID, TenantID: a.TenantID, Environment: string(a.Environment), PhoneHash: a.PhoneHash,
		PhoneCiphertext: a.PhoneCiphertext, Masked: a.Masked, Status: string(a.Status), CodeHash: a.CodeHash,
		Attempts: a.Attempts, CodeExpiresAt: a.CodeExpiresAt, VerifiedAt: a.VerifiedAt, CreatedAt: a.CreatedAt}
}

func (m aliasModel) domain() (recipient.Alias, error) {
	a := recipient.Alias{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment),
		PhoneHash: m.PhoneHash, PhoneCiphertext: m.PhoneCiphertext, Masked: m.Masked,
		Status: recipient.AliasStatus(m.Status), CodeHash: m.CodeHash, Attempts: m.Attempts,
		CodeExpiresAt: m.CodeExpiresAt.UTC(), VerifiedAt: utcPtr(m.VerifiedAt), CreatedAt: m.CreatedAt.UTC()}
	if a.PhoneHash == "" || len(a.PhoneCiphertext) == 0 {
		return recipient.Alias{}, fmt.Errorf("postgres: phone alias %s lacks its hash or ciphertext", m.ID)
	}
	return a, nil
}

type credentialModel struct {
	bun.BaseModel `bun:"table:recipient_credentials"`
	TenantID      string    `bun:"tenant_id,pk"`
	Environment   string    `bun:"environment,pk"`
	Type          string    `bun:"type,pk"`
	Status        string    `bun:"status"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

type destinationModel struct {
	bun.BaseModel          `bun:"table:payout_destinations"`
	ID                     string    `bun:"id,pk"`
	TenantID               string    `bun:"tenant_id"`
	Environment            string    `bun:"environment"`
	Type                   string    `bun:"type"`
	Status                 string    `bun:"status"`
	Masked                 string    `bun:"masked"`
	AllowAutomaticFallback bool      `bun:"allow_automatic_fallback"`
	IdentifierCiphertext   []byte    `bun:"identifier_ciphertext"`
	CreatedAt              time.Time `bun:"created_at"`
}

func (m destinationModel) domain() recipient.Destination {
	return recipient.Destination{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment),
		Type: recipient.DestinationType(m.Type), Status: recipient.DestinationStatus(m.Status), Masked: m.Masked,
		AllowAutomaticFallback: m.AllowAutomaticFallback, IdentifierCiphertext: m.IdentifierCiphertext,
		CreatedAt: m.CreatedAt.UTC()}
}

type recipientRepo struct{ db bun.IDB }

var _ ports.RecipientRepo = recipientRepo{}

var (
	errAliasNotFound       = core.NotFound(recipient.CodePhoneAliasNotFound, "phone alias")
	errAliasTaken          = core.E(recipient.CodePhoneAliasTaken, "this phone number is already verified by another tenant")
	errDestinationNotFound = core.NotFound(recipient.CodeDestinationNotFound, "payout destination")
)

func (r recipientRepo) CreateAlias(ctx context.Context, a recipient.Alias) error {
	m := aliasFromDomain(a)
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r recipientRepo) LockAlias(ctx context.Context, tenantID string, env core.Environment, id string) (recipient.Alias, error) {
	var m aliasModel
	err := r.db.NewSelect().Model(&m).Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id).For("UPDATE").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return recipient.Alias{}, errAliasNotFound
	}
	if err != nil {
		return recipient.Alias{}, err
	}
	return m.domain()
}

// UpdateAlias writes the alias; a VERIFIED one also claims its phone's lookup row, which keeps
// a verified number one tenant's across all tenants and answers FindVerifiedAlias. VERIFIED is
// final, so the row is never taken back; a second write of the same tenant's row is a no-op.
func (r recipientRepo) UpdateAlias(ctx context.Context, a recipient.Alias) error {
	m := aliasFromDomain(a)
	_, err := r.db.NewUpdate().Model(&m).WherePK().Exec(ctx)
	if err == nil && a.Status == recipient.AliasVerified {
		err = addLookupOnce(ctx, rawQuerier(r.db), phoneAliasKey(a.Environment, a.PhoneHash), lookupPhoneAlias, a.TenantID)
	}
	code, constraint := constraintOf(err)
	if code == "23505" && (constraint == "phone_aliases_verified_key" || constraint == "tenant_lookups_one_tenant") {
		return errAliasTaken
	}
	return err
}

// phoneAliasKey is the lookup key of a verified phone: one per environment and phone hash.
func phoneAliasKey(env core.Environment, phoneHash string) string {
	return string(env) + ":" + phoneHash
}

func (r recipientRepo) ListAliases(ctx context.Context, tenantID string, env core.Environment, page ports.Page) ([]recipient.Alias, int, error) {
	var rows []aliasModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", tenantID, env).
		OrderExpr("id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows(rows)
	return out, int(total), err
}

// FindVerifiedAlias runs before the tenant is known (paying a phone number): the phone's lookup
// row names the tenant, and the alias is then read on the tenant's shard.
func (r recipientRepo) FindVerifiedAlias(ctx context.Context, env core.Environment, phoneHash string) (recipient.Alias, error) {
	tenantID, ok, err := lookupTenant(ctx, rawQuerier(r.db), phoneAliasKey(env, phoneHash), lookupPhoneAlias)
	if err != nil {
		return recipient.Alias{}, err
	}
	if !ok {
		return recipient.Alias{}, errAliasNotFound
	}
	var m aliasModel
	err = r.db.NewSelect().Model(&m).Where("tenant_id = ? AND environment = ? AND phone_hash = ? AND status = 'VERIFIED'",
		tenantID, env, phoneHash).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return recipient.Alias{}, errAliasNotFound
	}
	if err != nil {
		return recipient.Alias{}, err
	}
	return m.domain()
}

type aliasAttemptModel struct {
	bun.BaseModel `bun:"table:phone_alias_attempts"`
	ID            int64     `bun:"id,pk,autoincrement"`
	Environment   string    `bun:"environment"`
	Kind          string    `bun:"kind"`
	PhoneHash     string    `bun:"phone_hash"`
	TenantID      string    `bun:"tenant_id"`
	IPHash        string    `bun:"ip_hash"`
	CreatedAt     time.Time `bun:"created_at"`
}

func (r recipientRepo) RecordAliasAttempt(ctx context.Context, a ports.AliasAttempt) error {
	m := aliasAttemptModel{Environment: string(a.Environment), Kind: string(a.Kind), PhoneHash: a.PhoneHash,
		TenantID: a.TenantID, IPHash: a.IPHash, CreatedAt: a.At.UTC()}
	_, err := r.db.NewInsert().Model(&m).ExcludeColumn("id").Exec(ctx)
	return err
}

// CountAliasAttempts refuses a scope with no field or more than one: an empty scope would
// count every attempt, a mixed one would count their intersection, and neither budgets anything.
func (r recipientRepo) CountAliasAttempts(ctx context.Context, s ports.AliasAttemptScope, since time.Time) (int, time.Time, error) {
	q := r.db.NewSelect().Model((*aliasAttemptModel)(nil)).ColumnExpr("count(*) AS n, min(created_at) AS oldest").
		Where("created_at >= ?", since.UTC())
	set := 0
	if s.PhoneHash != "" {
		q, set = q.Where("environment = ? AND phone_hash = ?", s.Environment, s.PhoneHash), set+1
	}
	if s.TenantID != "" {
		q, set = q.Where("tenant_id = ? AND environment = ?", s.TenantID, s.Environment), set+1
	}
	if s.IPHash != "" {
		q, set = q.Where("ip_hash = ?", s.IPHash), set+1
	}
	if s.Kind != "" {
		q = q.Where("kind = ?", string(s.Kind))
	}
	if set != 1 {
		return 0, time.Time{}, errors.New("postgres: CountAliasAttempts needs exactly one of phone, tenant or IP")
	}
	var row struct {
		N      int
		Oldest sql.NullTime
	}
	if err := q.Scan(ctx, &row.N, &row.Oldest); err != nil {
		return 0, time.Time{}, err
	}
	return row.N, row.Oldest.Time.UTC(), nil
}

// LockAliasBudgets takes one transaction-scoped advisory lock per scope, in the order given.
func (r recipientRepo) LockAliasBudgets(ctx context.Context, scopes ...ports.AliasAttemptScope) error {
	for _, s := range scopes {
		key := "alias-budget:" + string(s.Environment) + "|" + s.PhoneHash + "|" + s.TenantID + "|" + s.IPHash
		if _, err := r.db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 4))", key); err != nil {
			return err
		}
	}
	return nil
}

func (r recipientRepo) CountPendingAliases(ctx context.Context, tenantID string, env core.Environment, now time.Time) (int, error) {
	n, err := r.db.NewSelect().Model((*aliasModel)(nil)).
		Where("tenant_id = ? AND environment = ? AND status = ? AND code_expires_at > ?", tenantID, env, recipient.AliasPending, now.UTC()).Count(ctx)
	return int(n), err
}

func (r recipientRepo) FindCredential(ctx context.Context, tenantID string, env core.Environment) (recipient.Credential, bool, error) {
	var m credentialModel
	err := r.db.NewSelect().Model(&m).Where("tenant_id = ? AND environment = ? AND type = ?",
		tenantID, env, recipient.CredentialBusinessIdentity).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return recipient.Credential{}, false, nil
	}
	if err != nil {
		return recipient.Credential{}, false, err
	}
	return recipient.Credential{TenantID: m.TenantID, Environment: core.Environment(m.Environment), Type: m.Type,
		Status: recipient.CredentialStatus(m.Status), UpdatedAt: m.UpdatedAt.UTC()}, true, nil
}

func (r recipientRepo) PutCredential(ctx context.Context, c recipient.Credential) error {
	m := credentialModel{TenantID: c.TenantID, Environment: string(c.Environment), Type: c.Type, Status: string(c.Status), UpdatedAt: c.UpdatedAt}
	_, err := r.db.NewInsert().Model(&m).On("CONFLICT (tenant_id, environment, type) DO UPDATE").
		Set("status = EXCLUDED.status, updated_at = EXCLUDED.updated_at").Exec(ctx)
	return err
}

func (r recipientRepo) CreateDestination(ctx context.Context, d recipient.Destination) error {
	m := destinationModel{ID: d.ID, TenantID: d.TenantID, Environment: string(d.Environment), Type: string(d.Type),
		Status: string(d.Status), Masked: d.Masked, AllowAutomaticFallback: d.AllowAutomaticFallback,
		IdentifierCiphertext: d.IdentifierCiphertext, CreatedAt: d.CreatedAt}
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r recipientRepo) FindDestination(ctx context.Context, tenantID string, env core.Environment, id string) (recipient.Destination, error) {
	var m destinationModel
	err := r.db.NewSelect().Model(&m).Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return recipient.Destination{}, errDestinationNotFound
	}
	if err != nil {
		return recipient.Destination{}, err
	}
	return m.domain(), nil
}

func (r recipientRepo) SetDestinationStatus(ctx context.Context, tenantID string, env core.Environment, id string, status recipient.DestinationStatus) error {
	res, err := r.db.NewUpdate().Model((*destinationModel)(nil)).Set("status = ?", string(status)).
		Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id).Exec(ctx)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err != nil {
			return err
		}
		return errDestinationNotFound
	}
	return nil
}

func (r recipientRepo) ListDestinations(ctx context.Context, tenantID string, env core.Environment, page ports.Page) ([]recipient.Destination, int, error) {
	var rows []destinationModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", tenantID, env).
		OrderExpr("id ASC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	return infallibleRows(rows), int(total), nil
}
