package claim

import (
	"time"

	"github.com/corridorhq/corridor/core"
)

// ChallengeStatus is a phone challenge's status.
type ChallengeStatus string

const (
	ChallengePending   ChallengeStatus = "PENDING"
	ChallengeVerified  ChallengeStatus = "VERIFIED"
	ChallengeCancelled ChallengeStatus = "CANCELLED" // too many wrong codes
	ChallengeConsumed  ChallengeStatus = "CONSUMED"  // used by a redeem
)

// Challenge proves control of the claim's phone by a 6-digit code sent to the number on the
// claim record. The code is stored only as a keyed hash (CodeHash).
type Challenge struct {
	// TenantID is the claim's sender's tenant: a challenge is stored with its claim.
	TenantID          string
	ID                string
	ClaimID           string
	Environment       core.Environment
	CodeHash          string
	PhoneHash         string
	IPHash            string
	Status            ChallengeStatus
	AttemptsRemaining int
	ExpiresAt         time.Time
	VerifiedAt        *time.Time
	ConsumedAt        *time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// PrefixChallenge prefixes challenge ids.
const PrefixChallenge = "chl"

// Verify records one confirmation attempt; matches says whether the code's hash equals
// CodeHash (compared by the caller in constant time). It returns the refusal, if any, after
// updating the challenge: a wrong code spends an attempt (TWOFA_INVALID_CODE with
// details.attemptsRemaining), the last wrong code cancels the challenge
// (TWOFA_TOO_MANY_ATTEMPTS), an expired challenge is TWOFA_CHALLENGE_EXPIRED.
// Verifying a VERIFIED challenge again with the right code is a harmless repeat.
func (c *Challenge) Verify(matches bool, now time.Time) error {
	switch c.Status {
	case ChallengeCancelled:
		return core.E(CodeTooManyAttempts, "this challenge was cancelled after too many wrong codes; request a new code")
	case ChallengeConsumed:
		return core.E(CodeChallengeNotUsable, "this challenge has already been used")
	case ChallengeVerified:
		if matches {
			return nil
		}
	}
	if !now.Before(c.ExpiresAt) {
		return core.E(CodeChallengeExpired, "this code has expired; request a new one")
	}
	if c.Status == ChallengeVerified {
		return core.E(CodeInvalidCode, "wrong code").WithDetails(map[string]any{"attemptsRemaining": c.AttemptsRemaining})
	}
	c.UpdatedAt = now
	if matches {
		c.Status, c.VerifiedAt = ChallengeVerified, &now
		return nil
	}
	c.AttemptsRemaining--
	if c.AttemptsRemaining <= 0 {
		c.AttemptsRemaining, c.Status = 0, ChallengeCancelled
		return core.E(CodeTooManyAttempts, "too many wrong codes; the challenge is cancelled, request a new code")
	}
	return core.E(CodeInvalidCode, "wrong code").WithDetails(map[string]any{"attemptsRemaining": c.AttemptsRemaining})
}

// Redeemable checks that a challenge proves the phone for a redeem of claimID at now: a
// verified challenge proves it only until it expires, so a proof cannot be kept and used
// later (TWOFA_CHALLENGE_EXPIRED; request and verify a new code).
func (c Challenge) Redeemable(claimID string, now time.Time) error {
	if c.ClaimID != claimID || c.Status != ChallengeVerified {
		return core.E(CodeChallengeNotUsable, "challengeId is not a verified phone challenge of this claim")
	}
	if !now.Before(c.ExpiresAt) {
		return core.E(CodeChallengeExpired, "this phone challenge has expired; request and verify a new code")
	}
	return nil
}
