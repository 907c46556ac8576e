package twofactor

import (
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/timestamp"
)

// Failure budget of code verification. Each challenge allows MaxAttempts wrong codes, but
// challenges are cheap, so a budget that spans challenges bounds guessing: FailureBudget wrong
// codes within FailureWindow lock verification for LockoutDuration. A six-digit code with one
// step of skew either way is guessed with probability 3/10⁶ a try, so at ten tries per fifteen
// minutes a guesser needs about a year on average, against about an hour unbounded.
const (
	FailureBudget   = 10
	FailureWindow   = 15 * time.Minute
	LockoutDuration = 15 * time.Minute
	// ChallengeBudget bounds the challenges one tenant creates per environment within
	// ChallengeWindow: payments needing approval and security changes create them, an honest
	// tenant far fewer.
	ChallengeBudget = 60
	ChallengeWindow = 15 * time.Minute
)

// Budget subjects: the whole tenant's environment, or one factor.
const (
	SubjectTenant       = "tenant"
	subjectFactorPrefix = "factor:"
)

// SubjectFactor is the budget subject of one factor.
func SubjectFactor(factorID string) string { return subjectFactorPrefix + factorID }

// Budget is the recent wrong codes of one subject (the tenant's environment, or one factor)
// and, once they exhausted it, until when verification is locked.
type Budget struct {
	TenantID    string
	Environment core.Environment
	Subject     string
	// Failures are the times of the wrong codes still inside FailureWindow, oldest first (at
	// most FailureBudget).
	Failures    []time.Time
	LockedUntil *time.Time
}

// Locked returns how long verification stays locked at now, and whether it is.
func (b Budget) Locked(now time.Time) (time.Duration, bool) {
	if b.LockedUntil == nil || !now.Before(*b.LockedUntil) {
		return 0, false
	}
	return b.LockedUntil.Sub(now), true
}

// Fail counts one wrong code at now: failures older than FailureWindow are forgotten, and the
// FailureBudget-th within it locks the subject for LockoutDuration (the failures are then
// cleared: the lock is the penalty). It reports whether this failure locked it.
func (b *Budget) Fail(now time.Time) bool {
	kept := b.Failures[:0:0]
	for _, at := range b.Failures {
		if now.Sub(at) < FailureWindow {
			kept = append(kept, at)
		}
	}
	kept = append(kept, now)
	if len(kept) >= FailureBudget {
		until := now.Add(LockoutDuration)
		b.Failures, b.LockedUntil = nil, &until
		return true
	}
	b.Failures = kept
	return false
}

// LockedError is the refusal while a budget is locked: 429 RATE_LIMITED with
// details.retryAfterSeconds (the Retry-After header) and details.lockedUntil.
func LockedError(b Budget, now time.Time) *core.Error {
	wait, _ := b.Locked(now)
	secs := retrySeconds(wait)
	what := "this tenant's two-factor verification"
	if b.Subject != SubjectTenant {
		what = "this factor's verification"
	}
	return core.E(core.CodeRateLimited, "%s is locked after %d wrong codes within %s; retry after %d seconds",
		what, FailureBudget, FailureWindow, secs).
		WithDetails(map[string]any{"retryAfterSeconds": secs, "lockedUntil": timestamp.Format(*b.LockedUntil)})
}

// ChallengesExhausted is the refusal of a new challenge once ChallengeBudget were created
// within ChallengeWindow; oldest is the first of them, whose leaving the window frees one.
func ChallengesExhausted(oldest, now time.Time) *core.Error {
	secs := retrySeconds(oldest.Add(ChallengeWindow).Sub(now))
	return core.E(core.CodeRateLimited, "this tenant created %d two-factor challenges within %s; retry after %d seconds",
		ChallengeBudget, ChallengeWindow, secs).
		WithDetails(map[string]any{"retryAfterSeconds": secs})
}

// retrySeconds rounds a wait up to whole seconds, at least 1.
func retrySeconds(d time.Duration) int {
	secs := int((d + time.Second - 1) / time.Second)
	return max(secs, 1)
}
