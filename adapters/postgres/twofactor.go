package postgres

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/twofactor"
	"github.com/corridorhq/corridor/ports"
)

var (
	errContactNotFound        = core.NotFound(twofactor.CodeContactNotFound, "contact")
	errFactorNotFound         = core.NotFound(twofactor.CodeFactorNotFound, "two-factor factor")
	errTwofaChallengeNotFound = core.NotFound(twofactor.CodeChallengeNotFound, "two-factor challenge")
)

type contactModel struct {
	bun.BaseModel `bun:"table:contacts"`
	ID            string    `bun:"id,pk"`
	TenantID      string    `bun:"tenant_id,pk"`
	Environment   string    `bun:"environment"`
	Address       string    `bun:"address"`
	AddressLower  string    `bun:"address_lower"`
	Label         string    `bun:"label"`
	ChainID       int64     `bun:"chain_id"`
	CreatedAt     time.Time `bun:"created_at"`
}

func (m contactModel) domain() (twofactor.Contact, error) {
	return twofactor.Contact{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), Address: m.Address,
		Label: m.Label, ChainID: m.ChainID, CreatedAt: m.CreatedAt.UTC()}, nil
}

type factorModel struct {
	bun.BaseModel    `bun:"table:twofactor_factors"`
	ID               string     `bun:"id,pk"`
	TenantID         string     `bun:"tenant_id,pk"`
	Environment      string     `bun:"environment"`
	Type             string     `bun:"type"`
	Label            string     `bun:"label"`
	Status           string     `bun:"status"`
	SecretCiphertext []byte     `bun:"secret_ciphertext"`
	CreatedAt        time.Time  `bun:"created_at"`
	VerifiedAt       *time.Time `bun:"verified_at"`
	LastUsedStep     int64      `bun:"last_used_step"`
	Attempts         int        `bun:"attempts"`
}

func factorModelOf(f twofactor.Factor) factorModel {
	return factorModel{ID: f.ID, TenantID: f.TenantID, Environment: string(f.Environment), Type: f.Type, Label: f.Label,
		Status: string(f.Status), SecretCiphertext: f.SecretCiphertext, CreatedAt: f.CreatedAt, VerifiedAt: f.VerifiedAt,
		LastUsedStep: f.LastUsedStep, Attempts: f.Attempts}
}

func (m factorModel) domain() (twofactor.Factor, error) {
	st := twofactor.FactorStatus(m.Status)
	if st != twofactor.FactorPending && st != twofactor.FactorActive && st != twofactor.FactorCancelled {
		return twofactor.Factor{}, core.E(core.CodeInternal, "factor %s has unknown status %q", m.ID, m.Status)
	}
	return twofactor.Factor{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), Type: m.Type,
		Label: m.Label, Status: st, SecretCiphertext: m.SecretCiphertext, CreatedAt: m.CreatedAt.UTC(), VerifiedAt: utcPtr(m.VerifiedAt),
		LastUsedStep: m.LastUsedStep, Attempts: m.Attempts}, nil
}

type settingsModel struct {
	bun.BaseModel      `bun:"table:twofactor_settings"`
	TenantID           string    `bun:"tenant_id,pk"`
	Environment        string    `bun:"environment,pk"`
	ApprovalAbove      *int64    `bun:"approval_above_base_units"`
	ApproveNewPayees   bool      `bun:"approve_new_payees"`
	RequireSavedPayees bool      `bun:"require_saved_payees"`
	UpdatedAt          time.Time `bun:"updated_at"`
}

type challengeModel struct {
	bun.BaseModel      `bun:"table:twofactor_challenges"`
	ID                 string     `bun:"id,pk"`
	TenantID           string     `bun:"tenant_id,pk"`
	Environment        string     `bun:"environment"`
	Binding            string     `bun:"binding"`
	SourceWalletID     string     `bun:"source_wallet_id"`
	AmountBaseUnits    int64      `bun:"amount_base_units"`
	DestinationAddress string     `bun:"destination_address"`
	DestinationLabel   string     `bun:"destination_label"`
	Status             string     `bun:"status"`
	Attempts           int        `bun:"attempts"`
	ExpiresAt          time.Time  `bun:"expires_at"`
	CreatedAt          time.Time  `bun:"created_at"`
	SatisfiedAt        *time.Time `bun:"satisfied_at"`
	RedeemedAt         *time.Time `bun:"redeemed_at"`
	PaymentID          *string    `bun:"payment_id"`
}

func challengeModelOf(c twofactor.Challenge) challengeModel {
	return challengeModel{ID: c.ID, TenantID: c.TenantID, Environment: string(c.Environment), Binding: c.Binding,
		SourceWalletID: c.SourceWalletID, AmountBaseUnits: c.AmountBaseUnits, DestinationAddress: c.DestinationAddress,
		DestinationLabel: c.DestinationLabel, Status: string(c.Status), Attempts: c.Attempts, ExpiresAt: c.ExpiresAt,
		CreatedAt: c.CreatedAt, SatisfiedAt: c.SatisfiedAt, RedeemedAt: c.RedeemedAt, PaymentID: nullable(c.PaymentID)}
}

func (m challengeModel) domain() (twofactor.Challenge, error) {
	st := twofactor.ChallengeStatus(m.Status)
	switch st {
	case twofactor.ChallengePending, twofactor.ChallengeSatisfied, twofactor.ChallengeRedeemed, twofactor.ChallengeCancelled:
	default:
		return twofactor.Challenge{}, core.E(core.CodeInternal, "challenge %s has unknown status %q", m.ID, m.Status)
	}
	return twofactor.Challenge{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), Binding: m.Binding,
		SourceWalletID: m.SourceWalletID, AmountBaseUnits: m.AmountBaseUnits, DestinationAddress: m.DestinationAddress,
		DestinationLabel: m.DestinationLabel, Status: st, Attempts: m.Attempts, ExpiresAt: m.ExpiresAt.UTC(),
		CreatedAt: m.CreatedAt.UTC(), SatisfiedAt: utcPtr(m.SatisfiedAt), RedeemedAt: utcPtr(m.RedeemedAt), PaymentID: deref(m.PaymentID)}, nil
}

type twoFactorRepo struct{ db bun.IDB }

var _ ports.TwoFactorRepo = twoFactorRepo{}

func (r twoFactorRepo) CreateContact(ctx context.Context, c twofactor.Contact) error {
	m := contactModel{ID: c.ID, TenantID: c.TenantID, Environment: string(c.Environment), Address: c.Address,
		AddressLower: strings.ToLower(c.Address), Label: c.Label, ChainID: c.ChainID, CreatedAt: c.CreatedAt}
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	if code, constraint := constraintOf(err); code == "23505" && constraint == "contacts_address_key" {
		return core.E(twofactor.CodeContactExists, "address %s is already a saved contact", c.Address).
			WithDetails(map[string]any{"field": "address"})
	}
	return err
}

func (r twoFactorRepo) ListContacts(ctx context.Context, tenantID string, env core.Environment, page ports.Page) ([]twofactor.Contact, int, error) {
	var rows []contactModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", tenantID, env).
		OrderExpr("created_at DESC, id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[twofactor.Contact](rows)
	return out, int(total), err
}

func (r twoFactorRepo) FindContactByAddress(ctx context.Context, tenantID string, env core.Environment, address string) (twofactor.Contact, bool, error) {
	c, err := oneRow[twofactor.Contact, contactModel](ctx, r.db.NewSelect().
		Where("tenant_id = ? AND environment = ? AND address_lower = ?", tenantID, env, strings.ToLower(address)), errContactNotFound)
	if errors.Is(err, errContactNotFound) {
		return twofactor.Contact{}, false, nil
	}
	return c, err == nil, err
}

func (r twoFactorRepo) DeleteContact(ctx context.Context, tenantID string, env core.Environment, id string) (twofactor.Contact, error) {
	var m contactModel
	err := r.db.NewDelete().Model(&m).Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id).Returning("*").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return twofactor.Contact{}, errContactNotFound
	}
	if err != nil {
		return twofactor.Contact{}, err
	}
	return m.domain()
}

func (r twoFactorRepo) CreateFactor(ctx context.Context, f twofactor.Factor) error {
	m := factorModelOf(f)
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r twoFactorRepo) LockFactor(ctx context.Context, tenantID string, env core.Environment, id string) (twofactor.Factor, error) {
	return oneRow[twofactor.Factor, factorModel](ctx, r.db.NewSelect().
		Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id).For("UPDATE"), errFactorNotFound)
}

func (r twoFactorRepo) UpdateFactor(ctx context.Context, f twofactor.Factor) error {
	m := factorModelOf(f)
	_, err := r.db.NewUpdate().Model(&m).Column("label", "status", "verified_at", "attempts").WherePK().Exec(ctx)
	return err
}

func (r twoFactorRepo) DeleteFactor(ctx context.Context, tenantID string, env core.Environment, id string) error {
	_, err := r.db.NewDelete().Table("twofactor_factors").
		Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id).Exec(ctx)
	return err
}

func (r twoFactorRepo) DeleteCancelledFactors(ctx context.Context, tenantID string, env core.Environment) error {
	_, err := r.db.NewDelete().Table("twofactor_factors").
		Where("tenant_id = ? AND environment = ? AND status = ?", tenantID, env, string(twofactor.FactorCancelled)).Exec(ctx)
	return err
}

func (r twoFactorRepo) UseFactorStep(ctx context.Context, tenantID, factorID string, step int64) (bool, error) {
	res, err := r.db.NewUpdate().Table("twofactor_factors").Set("last_used_step = ?", step).
		Where("tenant_id = ? AND id = ? AND last_used_step < ?", tenantID, factorID, step).Exec(ctx)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (r twoFactorRepo) ListFactors(ctx context.Context, tenantID string, env core.Environment) ([]twofactor.Factor, error) {
	var rows []factorModel
	err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", tenantID, env).
		OrderExpr("created_at ASC, id ASC").Limit(twofactor.MaxFactors + 1).Scan(ctx)
	if err != nil {
		return nil, err
	}
	return domainRows[twofactor.Factor](rows)
}

func (r twoFactorRepo) FindSettings(ctx context.Context, tenantID string, env core.Environment) (twofactor.Settings, error) {
	var m settingsModel
	err := r.db.NewSelect().Model(&m).Where("tenant_id = ? AND environment = ?", tenantID, env).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return twofactor.Settings{TenantID: tenantID, Environment: env}, nil
	}
	if err != nil {
		return twofactor.Settings{}, err
	}
	return twofactor.Settings{TenantID: m.TenantID, Environment: core.Environment(m.Environment), ApprovalAboveBaseUnits: m.ApprovalAbove,
		ApproveNewPayees: m.ApproveNewPayees, RequireSavedPayees: m.RequireSavedPayees, UpdatedAt: m.UpdatedAt.UTC()}, nil
}

func (r twoFactorRepo) SaveSettings(ctx context.Context, s twofactor.Settings) error {
	m := settingsModel{TenantID: s.TenantID, Environment: string(s.Environment), ApprovalAbove: s.ApprovalAboveBaseUnits,
		ApproveNewPayees: s.ApproveNewPayees, RequireSavedPayees: s.RequireSavedPayees, UpdatedAt: s.UpdatedAt}
	_, err := r.db.NewInsert().Model(&m).On("CONFLICT (tenant_id, environment) DO UPDATE").
		Set("approval_above_base_units = EXCLUDED.approval_above_base_units").
		Set("approve_new_payees = EXCLUDED.approve_new_payees").
		Set("require_saved_payees = EXCLUDED.require_saved_payees").
		Set("updated_at = EXCLUDED.updated_at").Exec(ctx)
	return err
}

func (r twoFactorRepo) CreateChallenge(ctx context.Context, c twofactor.Challenge) error {
	m := challengeModelOf(c)
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r twoFactorRepo) LockChallenge(ctx context.Context, tenantID string, env core.Environment, id string) (twofactor.Challenge, error) {
	return oneRow[twofactor.Challenge, challengeModel](ctx, r.db.NewSelect().
		Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id).For("UPDATE"), errTwofaChallengeNotFound)
}

func (r twoFactorRepo) UpdateChallenge(ctx context.Context, c twofactor.Challenge) error {
	m := challengeModelOf(c)
	_, err := r.db.NewUpdate().Model(&m).Column("status", "attempts", "satisfied_at", "redeemed_at", "payment_id").WherePK().Exec(ctx)
	return err
}

func (r twoFactorRepo) ChallengesCreatedSince(ctx context.Context, tenantID string, env core.Environment, since time.Time) (int, time.Time, error) {
	var n int
	var first sql.NullTime
	err := r.db.NewSelect().Table("twofactor_challenges").ColumnExpr("count(*), min(created_at)").
		Where("tenant_id = ? AND environment = ? AND created_at >= ?", tenantID, env, since).Scan(ctx, &n, &first)
	if err != nil {
		return 0, time.Time{}, err
	}
	return n, first.Time.UTC(), nil
}

type budgetModel struct {
	bun.BaseModel `bun:"table:twofactor_budgets"`
	TenantID      string      `bun:"tenant_id,pk"`
	Environment   string      `bun:"environment,pk"`
	Subject       string      `bun:"subject,pk"`
	Failures      []time.Time `bun:"failures,array"`
	LockedUntil   *time.Time  `bun:"locked_until"`
}

func (r twoFactorRepo) LockBudget(ctx context.Context, tenantID string, env core.Environment, subject string) (twofactor.Budget, error) {
	empty := budgetModel{TenantID: tenantID, Environment: string(env), Subject: subject, Failures: []time.Time{}}
	if _, err := r.db.NewInsert().Model(&empty).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
		return twofactor.Budget{}, err
	}
	var m budgetModel
	err := r.db.NewSelect().Model(&m).Where("tenant_id = ? AND environment = ? AND subject = ?", tenantID, env, subject).
		For("UPDATE").Scan(ctx)
	if err != nil {
		return twofactor.Budget{}, err
	}
	b := twofactor.Budget{TenantID: m.TenantID, Environment: core.Environment(m.Environment), Subject: m.Subject, LockedUntil: m.LockedUntil}
	for _, at := range m.Failures {
		b.Failures = append(b.Failures, at.UTC())
	}
	if b.LockedUntil != nil {
		at := b.LockedUntil.UTC()
		b.LockedUntil = &at
	}
	return b, nil
}

func (r twoFactorRepo) SaveBudget(ctx context.Context, b twofactor.Budget) error {
	m := budgetModel{TenantID: b.TenantID, Environment: string(b.Environment), Subject: b.Subject,
		Failures: append([]time.Time{}, b.Failures...), LockedUntil: b.LockedUntil}
	_, err := r.db.NewUpdate().Model(&m).Column("failures", "locked_until").WherePK().Exec(ctx)
	return err
}
