package twofactors

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/timestamp"
	"github.com/corridorhq/corridor/core/twofactor"
	"github.com/corridorhq/corridor/ports"
)

// lockBudgets locks the failure budgets a code verification spends from: the tenant's
// environment's first, then each factor's in the order given (so two verifications never wait
// on each other in a cycle). A locked budget answers its refusal (429 with Retry-After) before
// any code is compared: a locked subject is no oracle.
func lockBudgets(ctx context.Context, repo ports.TwoFactorRepo, p auth.Principal, factorIDs []string, now time.Time) ([]twofactor.Budget, *core.Error, error) {
	subjects := []string{twofactor.SubjectTenant}
	for _, id := range factorIDs {
		subjects = append(subjects, twofactor.SubjectFactor(id))
	}
	budgets := make([]twofactor.Budget, 0, len(subjects))
	for _, subject := range subjects {
		b, err := repo.LockBudget(ctx, p.TenantID, p.Environment, subject)
		if err != nil {
			return nil, nil, err
		}
		if _, locked := b.Locked(now); locked {
			return nil, twofactor.LockedError(b, now), nil
		}
		budgets = append(budgets, b)
	}
	return budgets, nil, nil
}

// spendBudgets counts one wrong code against every budget locked by lockBudgets and saves
// them. A budget this code exhausts is locked for twofactor.LockoutDuration, announced by a
// twofactor.locked event in the same unit of work (the alert and the tenant's webhooks see
// it), and the refusal becomes 429 RATE_LIMITED.
func spendBudgets(ctx context.Context, tx txView, budgets []twofactor.Budget, now time.Time) (*core.Error, error) {
	var refused *core.Error
	for i := range budgets {
		b := &budgets[i]
		if b.Fail(now) {
			refused = twofactor.LockedError(*b, now)
			resource := b.TenantID
			if b.Subject != twofactor.SubjectTenant {
				resource = b.Subject[len(twofactor.SubjectFactor("")):]
			}
			if err := kernel.RecordChangeEvent(ctx, tx, b.TenantID, b.Environment, "twofactor", resource, "LOCKED", "LOCKED", now,
				map[string]any{"subject": b.Subject, "lockedUntil": timestamp.Format(*b.LockedUntil), "failures": twofactor.FailureBudget}); err != nil {
				return nil, err
			}
		}
		if err := tx.TwoFactor().SaveBudget(ctx, *b); err != nil {
			return nil, err
		}
	}
	return refused, nil
}

// allowChallenge refuses a new challenge once the tenant created twofactor.ChallengeBudget of
// them in this environment within twofactor.ChallengeWindow (429 with Retry-After).
func allowChallenge(ctx context.Context, repo ports.TwoFactorRepo, p auth.Principal, now time.Time) (*core.Error, error) {
	n, first, err := repo.ChallengesCreatedSince(ctx, p.TenantID, p.Environment, now.Add(-twofactor.ChallengeWindow))
	if err != nil || n < twofactor.ChallengeBudget {
		return nil, err
	}
	return twofactor.ChallengesExhausted(first, now), nil
}
