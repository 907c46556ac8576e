package ports

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/twofactor"
)

// TwoFactorRepo stores contacts, TOTP factors, approval settings and challenges, per tenant
// and environment. Finds of another tenant's row answer its NOT_FOUND code.
type TwoFactorRepo interface {
	// CreateContact inserts c; an address already saved answers CONTACT_EXISTS.
	CreateContact(ctx context.Context, c twofactor.Contact) error
	ListContacts(ctx context.Context, tenantID string, env core.Environment, page Page) ([]twofactor.Contact, int, error)
	// FindContactByAddress finds the contact saved for address (any case), found=false if none.
	FindContactByAddress(ctx context.Context, tenantID string, env core.Environment, address string) (twofactor.Contact, bool, error)
	// DeleteContact removes the contact; not found: CONTACT_NOT_FOUND.
	DeleteContact(ctx context.Context, tenantID string, env core.Environment, id string) (twofactor.Contact, error)

	CreateFactor(ctx context.Context, f twofactor.Factor) error
	// LockFactor finds the factor for update; not found: TWOFA_FACTOR_NOT_FOUND.
	LockFactor(ctx context.Context, tenantID string, env core.Environment, id string) (twofactor.Factor, error)
	// UpdateFactor saves the factor's label, status, verification time and wrong-code count.
	UpdateFactor(ctx context.Context, f twofactor.Factor) error
	// DeleteFactor removes one factor of the tenant and environment.
	DeleteFactor(ctx context.Context, tenantID string, env core.Environment, id string) error
	// DeleteCancelledFactors removes the tenant's CANCELLED factors of env (never activated).
	DeleteCancelledFactors(ctx context.Context, tenantID string, env core.Environment) error
	// UseFactorStep records that the factor accepted a code of TOTP time step step, unless it
	// already accepted one of that step or a later one; used=false (nothing changed) then. The
	// check and the write are one conditional update, so two requests with one code cannot
	// both use it. The tenant names the factor's shard group on Citus.
	UseFactorStep(ctx context.Context, tenantID, factorID string, step int64) (used bool, err error)
	ListFactors(ctx context.Context, tenantID string, env core.Environment) ([]twofactor.Factor, error)

	// FindSettings answers the stored settings, or the zero settings (nothing protected).
	FindSettings(ctx context.Context, tenantID string, env core.Environment) (twofactor.Settings, error)
	SaveSettings(ctx context.Context, s twofactor.Settings) error

	CreateChallenge(ctx context.Context, c twofactor.Challenge) error
	// LockChallenge finds the challenge for update; not found: TWOFA_CHALLENGE_NOT_FOUND.
	LockChallenge(ctx context.Context, tenantID string, env core.Environment, id string) (twofactor.Challenge, error)
	UpdateChallenge(ctx context.Context, c twofactor.Challenge) error
	// ChallengesCreatedSince counts the tenant's challenges of env created at or after since,
	// and gives the first one's creation time (zero when none).
	ChallengesCreatedSince(ctx context.Context, tenantID string, env core.Environment, since time.Time) (int, time.Time, error)

	// LockBudget finds the failure budget of subject for update, creating an empty one first,
	// so parallel verifications of one tenant take their turns and none reads a stale count.
	LockBudget(ctx context.Context, tenantID string, env core.Environment, subject string) (twofactor.Budget, error)
	// SaveBudget writes a budget's failures and lock.
	SaveBudget(ctx context.Context, b twofactor.Budget) error
}
