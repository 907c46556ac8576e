package recipient

import (
	"time"

	"github.com/corridorhq/corridor/core"
)

// Phone alias rules (docs/decisions/offramp.md; docs/api.md Limits: a 6-digit code, 5 attempts).
const (
	CodeDigits      = 6
	MaxCodeAttempts = 5
	CodeLifetime    = 10 * time.Minute
)

// Phone-alias code budgets (defaults; configurable). Codes sent and wrong codes both count,
// per phone, per tenant and per client IP over AliasBudgetWindow, so "create an alias, guess
// five times, repeat" stops after a handful of guesses instead of covering the code space.
const (
	AliasBudgetWindow         = time.Hour
	MaxAliasAttemptsPerPhone  = 10
	MaxAliasAttemptsPerTenant = 30
	MaxAliasAttemptsPerIP     = 60
	MaxPendingAliases         = 5
)

// AliasStatus is a phone alias's lifecycle state.
type AliasStatus string

const (
	AliasPending  AliasStatus = "PENDING_VERIFICATION"
	AliasVerified AliasStatus = "VERIFIED"
	AliasFailed   AliasStatus = "FAILED" // too many wrong codes; start again with a new alias
)

// Error codes of phone aliases.
const (
	CodePhoneAliasNotFound     core.Code = "PHONE_ALIAS_NOT_FOUND"
	CodePhoneAliasTaken        core.Code = "PHONE_ALIAS_TAKEN"
	CodePhoneCodeInvalid       core.Code = "PHONE_CODE_INVALID"
	CodePhoneCodeExpired       core.Code = "PHONE_CODE_EXPIRED"
	CodePhoneCodeTooManyTries  core.Code = "PHONE_CODE_TOO_MANY_ATTEMPTS"
	CodePhoneAliasNotVerifying core.Code = "PHONE_ALIAS_NOT_PENDING"
)

// Alias is a tenant's claim on a phone number. The number itself lives only encrypted
// (PhoneCiphertext) and as a keyed hash (PhoneHash) for lookup; Masked is what responses show.
type Alias struct {
	ID              string
	TenantID        string
	Environment     core.Environment
	PhoneHash       string
	PhoneCiphertext []byte
	Masked          string
	Status          AliasStatus
	CodeHash        string
	Attempts        int
	CodeExpiresAt   time.Time
	VerifiedAt      *time.Time
	CreatedAt       time.Time
}

// CodeCheck is the outcome of one verification attempt.
type CodeCheck int

const (
	CodeMatched CodeCheck = iota
	CodeWrong
	CodeExhausted // this wrong code used the last attempt
)

// Verify applies one attempt: matches says whether the submitted code's hash equals CodeHash
// (compared by the caller in constant time). It returns the updated alias and an error for
// every outcome but success; the caller saves the alias either way, so attempts count.
func (a Alias) Verify(matches bool, now time.Time) (Alias, error) {
	reverifying := a.Reverifying()
	if a.Status != AliasPending && !reverifying {
		return a, core.E(CodePhoneAliasNotVerifying, "this phone alias is %s; create a new one to get a new code", a.Status)
	}
	if !now.Before(a.CodeExpiresAt) {
		return a, core.E(CodePhoneCodeExpired, "the code has expired; create the alias again for a new code")
	}
	if matches {
		a.Status, a.VerifiedAt = AliasVerified, &now
		a.CodeHash = ""
		return a, nil
	}
	a.Attempts++
	remaining := MaxCodeAttempts - a.Attempts
	if remaining <= 0 && reverifying {
		// The re-verification ends; the alias stays VERIFIED with its old verification time.
		a.CodeHash = ""
		return a, core.E(CodePhoneCodeTooManyTries, "too many wrong codes; ask for a new re-verification code")
	}
	if remaining <= 0 {
		a.Status = AliasFailed
		return a, core.E(CodePhoneCodeTooManyTries, "too many wrong codes; create the alias again for a new code")
	}
	return a, core.E(CodePhoneCodeInvalid, "wrong code").WithDetails(map[string]any{"attemptsRemaining": remaining})
}

// Reverifying reports a VERIFIED alias waiting for a re-verification code.
func (a Alias) Reverifying() bool { return a.Status == AliasVerified && a.CodeHash != "" }

// StartReverification gives a VERIFIED alias a fresh code to prove the phone again. It stays
// VERIFIED meanwhile (its number keeps resolving); a matching code renews VerifiedAt.
func (a Alias) StartReverification(codeHash string, now time.Time) (Alias, error) {
	if a.Status != AliasVerified {
		return a, core.E(core.CodeInvalidState, "this phone alias is %s: only a VERIFIED alias is re-verified", a.Status)
	}
	a.CodeHash, a.Attempts, a.CodeExpiresAt = codeHash, 0, now.Add(CodeLifetime)
	return a, nil
}

// ValidCodeFormat reports whether s is exactly six ASCII digits.
func ValidCodeFormat(s string) bool {
	if len(s) != CodeDigits {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// CredentialType is the only credential type v1 knows (docs/decisions/ramps.md).
const CredentialBusinessIdentity = "BUSINESS_IDENTITY"

// CredentialStatus is a BUSINESS_IDENTITY credential's status (docs/decisions/ramps.md).
type CredentialStatus string

const (
	CredentialActive    CredentialStatus = "ACTIVE"
	CredentialExpired   CredentialStatus = "EXPIRED"
	CredentialRevoked   CredentialStatus = "REVOKED"
	CredentialSuspended CredentialStatus = "SUSPENDED"
)

// ParseCredentialStatus validates a status from a request.
func ParseCredentialStatus(field, s string) (CredentialStatus, error) {
	switch st := CredentialStatus(s); st {
	case CredentialActive, CredentialExpired, CredentialRevoked, CredentialSuspended:
		return st, nil
	}
	return "", core.Invalid(field, "must be ACTIVE, EXPIRED, REVOKED or SUSPENDED")
}

// Credential is a tenant's BUSINESS_IDENTITY credential in one environment.
type Credential struct {
	TenantID    string
	Environment core.Environment
	Type        string
	Status      CredentialStatus
	UpdatedAt   time.Time
}
