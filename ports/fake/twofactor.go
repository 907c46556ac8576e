package fake

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/twofactor"
	"github.com/corridorhq/corridor/ports"
)

// twoFactorTables hold contacts, TOTP factors, approval settings and challenges.
type twoFactorTables struct {
	contacts   table[twofactor.Contact]
	factors    table[twofactor.Factor]
	settings   map[string]twofactor.Settings // tenant|environment
	challenges table[twofactor.Challenge]
	budgets    map[string]twofactor.Budget // tenant|environment|subject
}

func newTwoFactorTables() twoFactorTables {
	return twoFactorTables{contacts: newTable[twofactor.Contact](), factors: newTable[twofactor.Factor](),
		settings: map[string]twofactor.Settings{}, challenges: newTable[twofactor.Challenge](), budgets: map[string]twofactor.Budget{}}
}

func (t twoFactorTables) clone() twoFactorTables {
	return twoFactorTables{contacts: t.contacts.clone(), factors: t.factors.clone(), settings: copyOf(t.settings),
		challenges: t.challenges.clone(), budgets: copyOf(t.budgets)}
}

type twoFactorRepo struct{ s *Store }

var _ ports.TwoFactorRepo = twoFactorRepo{}

var (
	errContactNotFound        = core.NotFound(twofactor.CodeContactNotFound, "contact")
	errFactorNotFound         = core.NotFound(twofactor.CodeFactorNotFound, "two-factor factor")
	errTwofaChallengeNotFound = core.NotFound(twofactor.CodeChallengeNotFound, "two-factor challenge")
)

func (r twoFactorRepo) t() *twoFactorTables { return &r.s.state.twoFactor }

func (r twoFactorRepo) tenantContacts(tenantID string, env core.Environment) []twofactor.Contact {
	return r.t().contacts.filter(func(c twofactor.Contact) bool { return c.TenantID == tenantID && c.Environment == env }, false)
}

// CreateContact refuses an address the tenant already saved in env (any case).
func (r twoFactorRepo) CreateContact(_ context.Context, c twofactor.Contact) error {
	for _, x := range r.tenantContacts(c.TenantID, c.Environment) {
		if strings.EqualFold(x.Address, c.Address) {
			return core.E(twofactor.CodeContactExists, "address %s is already a saved contact", c.Address).
				WithDetails(map[string]any{"field": "address"})
		}
	}
	return r.t().contacts.insert(c.ID, c)
}

// ListContacts is newest first.
func (r twoFactorRepo) ListContacts(_ context.Context, tenantID string, env core.Environment, p ports.Page) ([]twofactor.Contact, int, error) {
	rows := r.tenantContacts(tenantID, env)
	sort.SliceStable(rows, func(i, j int) bool {
		return rows[i].CreatedAt.After(rows[j].CreatedAt) || rows[i].ID > rows[j].ID && rows[i].CreatedAt.Equal(rows[j].CreatedAt)
	})
	out, total := page(rows, p)
	return out, total, nil
}

func (r twoFactorRepo) FindContactByAddress(_ context.Context, tenantID string, env core.Environment, address string) (twofactor.Contact, bool, error) {
	for _, c := range r.tenantContacts(tenantID, env) {
		if strings.EqualFold(c.Address, address) {
			return c, true, nil
		}
	}
	return twofactor.Contact{}, false, nil
}

func (r twoFactorRepo) DeleteContact(_ context.Context, tenantID string, env core.Environment, id string) (twofactor.Contact, error) {
	c, ok := r.t().contacts.rows[id]
	if !ok || c.TenantID != tenantID || c.Environment != env {
		return twofactor.Contact{}, errContactNotFound
	}
	delete(r.t().contacts.rows, id)
	return c, nil
}

func (r twoFactorRepo) CreateFactor(_ context.Context, f twofactor.Factor) error {
	return r.t().factors.insert(f.ID, f)
}

func (r twoFactorRepo) LockFactor(_ context.Context, tenantID string, env core.Environment, id string) (twofactor.Factor, error) {
	f, ok := r.t().factors.rows[id]
	if !ok || f.TenantID != tenantID || f.Environment != env {
		return twofactor.Factor{}, errFactorNotFound
	}
	return f, nil
}

// UpdateFactor writes the label, status, verification time and wrong-code count.
func (r twoFactorRepo) UpdateFactor(_ context.Context, f twofactor.Factor) error {
	stored, ok := r.t().factors.rows[f.ID]
	if !ok {
		return errFactorNotFound
	}
	stored.Label, stored.Status, stored.VerifiedAt, stored.Attempts = f.Label, f.Status, f.VerifiedAt, f.Attempts
	r.t().factors.rows[f.ID] = stored
	return nil
}

func (r twoFactorRepo) DeleteFactor(_ context.Context, tenantID string, env core.Environment, id string) error {
	if f, ok := r.t().factors.rows[id]; ok && f.TenantID == tenantID && f.Environment == env {
		delete(r.t().factors.rows, id)
	}
	return nil
}

func (r twoFactorRepo) DeleteCancelledFactors(_ context.Context, tenantID string, env core.Environment) error {
	for id, f := range r.t().factors.rows {
		if f.TenantID == tenantID && f.Environment == env && f.Status == twofactor.FactorCancelled {
			delete(r.t().factors.rows, id)
		}
	}
	return nil
}

// UseFactorStep accepts a step only above the last one used.
func (r twoFactorRepo) UseFactorStep(_ context.Context, tenantID, factorID string, step int64) (bool, error) {
	f, ok := r.t().factors.rows[factorID]
	if !ok || f.TenantID != tenantID || f.LastUsedStep >= step {
		return false, nil
	}
	f.LastUsedStep = step
	r.t().factors.rows[factorID] = f
	return true, nil
}

// ListFactors is oldest first, at most one more than MaxFactors.
func (r twoFactorRepo) ListFactors(_ context.Context, tenantID string, env core.Environment) ([]twofactor.Factor, error) {
	rows := r.t().factors.filter(func(f twofactor.Factor) bool { return f.TenantID == tenantID && f.Environment == env }, false)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].CreatedAt.Before(rows[j].CreatedAt) })
	out, _ := page(rows, ports.Page{Take: twofactor.MaxFactors + 1})
	return out, nil
}

func (r twoFactorRepo) FindSettings(_ context.Context, tenantID string, env core.Environment) (twofactor.Settings, error) {
	s, ok := r.t().settings[tenantID+"|"+string(env)]
	if !ok {
		return twofactor.Settings{TenantID: tenantID, Environment: env}, nil
	}
	return s, nil
}

func (r twoFactorRepo) SaveSettings(_ context.Context, s twofactor.Settings) error {
	r.t().settings[s.TenantID+"|"+string(s.Environment)] = s
	return nil
}

func (r twoFactorRepo) CreateChallenge(_ context.Context, c twofactor.Challenge) error {
	return r.t().challenges.insert(c.ID, c)
}

func (r twoFactorRepo) LockChallenge(_ context.Context, tenantID string, env core.Environment, id string) (twofactor.Challenge, error) {
	c, ok := r.t().challenges.rows[id]
	if !ok || c.TenantID != tenantID || c.Environment != env {
		return twofactor.Challenge{}, errTwofaChallengeNotFound
	}
	return c, nil
}

// UpdateChallenge writes the status, attempts, satisfaction and redemption.
func (r twoFactorRepo) UpdateChallenge(_ context.Context, c twofactor.Challenge) error {
	stored, ok := r.t().challenges.rows[c.ID]
	if !ok {
		return errTwofaChallengeNotFound
	}
	stored.Status, stored.Attempts, stored.SatisfiedAt, stored.RedeemedAt, stored.PaymentID = c.Status, c.Attempts, c.SatisfiedAt, c.RedeemedAt, c.PaymentID
	r.t().challenges.rows[c.ID] = stored
	return nil
}

func (r twoFactorRepo) ChallengesCreatedSince(_ context.Context, tenantID string, env core.Environment, since time.Time) (int, time.Time, error) {
	n, first := 0, time.Time{}
	for _, c := range r.t().challenges.rows {
		if c.TenantID != tenantID || c.Environment != env || c.CreatedAt.Before(since) {
			continue
		}
		n++
		if first.IsZero() || c.CreatedAt.Before(first) {
			first = c.CreatedAt
		}
	}
	return n, first, nil
}

func budgetKey(tenantID string, env core.Environment, subject string) string {
	return tenantID + "|" + string(env) + "|" + subject
}

// LockBudget answers the stored budget or an empty one; the fake's store lock serializes units.
func (r twoFactorRepo) LockBudget(_ context.Context, tenantID string, env core.Environment, subject string) (twofactor.Budget, error) {
	b, ok := r.t().budgets[budgetKey(tenantID, env, subject)]
	if !ok {
		b = twofactor.Budget{TenantID: tenantID, Environment: env, Subject: subject}
	}
	b.Failures = append([]time.Time(nil), b.Failures...)
	return b, nil
}

func (r twoFactorRepo) SaveBudget(_ context.Context, b twofactor.Budget) error {
	b.Failures = append([]time.Time(nil), b.Failures...)
	r.t().budgets[budgetKey(b.TenantID, b.Environment, b.Subject)] = b
	return nil
}
