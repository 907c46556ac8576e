// Package twofactor holds the rules of contacts (saved payees with a cooling-off window),
// TOTP factors, the tenant's approval settings and the challenges that bind a Safe payment
// to a verified second factor (docs/twofactor.md).
package twofactor

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/claim"
)

// Error codes of contacts and two-factor approval (docs/api.md Errors). The codes a challenge's
// verification shares with claim phone challenges (TWOFA_INVALID_CODE, …) are declared in
// core/claim and reused.
const (
	CodeRequired          core.Code = "TWOFA_REQUIRED"
	CodeBindingMismatch   core.Code = "TWOFA_BINDING_MISMATCH"
	CodeNotEnrolled       core.Code = "TWOFA_NOT_ENROLLED"
	CodeAgentNotPermitted core.Code = "TWOFA_AGENT_NOT_PERMITTED"
	CodeNewPayeeNotSaved  core.Code = "NEW_PAYEE_NOT_SAVED"
	CodePayeeCoolingOff   core.Code = "PAYEE_COOLING_OFF"
	CodeContactNotFound   core.Code = "CONTACT_NOT_FOUND"
	CodeContactExists     core.Code = "CONTACT_EXISTS"
	CodeFactorNotFound    core.Code = "TWOFA_FACTOR_NOT_FOUND"
	CodeChallengeNotFound core.Code = "TWOFA_CHALLENGE_NOT_FOUND"
)

// Bounds and defaults.
const (
	// DefaultCoolingOff is a contact's cooling-off window unless configured otherwise.
	DefaultCoolingOff = 24 * time.Hour
	// ChallengeTTL is how long a challenge can be verified and then redeemed.
	ChallengeTTL = 10 * time.Minute
	// MaxAttempts wrong codes cancel a challenge.
	MaxAttempts = 5
	// MaxLabelLength bounds a contact's or a factor's label in bytes.
	MaxLabelLength = 100
	// MaxFactors bounds the factors of one tenant and environment.
	MaxFactors = 10
	// MaxContacts bounds the contacts of one tenant and environment.
	MaxContacts = 1000
	// FactorTOTP is the only factor type.
	FactorTOTP = "totp"
)

// Contact is a saved payee of a tenant in one environment.
type Contact struct {
	ID          string
	TenantID    string
	Environment core.Environment
	Address     string // EIP-55
	Label       string
	ChainID     int64
	CreatedAt   time.Time
}

// AvailableAt is when the contact's cooling-off window ends.
func (c Contact) AvailableAt(window time.Duration) time.Time { return c.CreatedAt.Add(window) }

// CoolingOff returns PAYEE_COOLING_OFF while the contact is younger than window, else nil.
func (c Contact) CoolingOff(now time.Time, window time.Duration) *core.Error {
	at := c.AvailableAt(window)
	if !now.Before(at) {
		return nil
	}
	remaining := int64(at.Sub(now).Seconds())
	if at.Sub(now) > time.Duration(remaining)*time.Second {
		remaining++ // round up: a client waiting secondsRemaining is then past the window
	}
	return core.E(CodePayeeCoolingOff, "contact %s (%s) was saved at %s; payments to it are possible from %s",
		c.ID, c.Address, c.CreatedAt.UTC().Format(time.RFC3339), at.UTC().Format(time.RFC3339)).
		WithDetails(map[string]any{"contactId": c.ID, "availableAt": at.UTC().Format(time.RFC3339), "secondsRemaining": remaining})
}

// FactorStatus is a factor's state: PENDING until a first code verifies it, then ACTIVE;
// CANCELLED after MaxAttempts wrong activation codes (final: the tenant enrolls again).
type FactorStatus string

const (
	FactorPending   FactorStatus = "PENDING"
	FactorActive    FactorStatus = "ACTIVE"
	FactorCancelled FactorStatus = "CANCELLED"
)

// Factor is a TOTP authenticator of a tenant in one environment. The secret is stored
// encrypted (SecretCiphertext) and shown once, at enrolment.
type Factor struct {
	ID               string
	TenantID         string
	Environment      core.Environment
	Type             string
	Label            string
	Status           FactorStatus
	SecretCiphertext []byte
	CreatedAt        time.Time
	VerifiedAt       *time.Time
	// LastUsedStep is the TOTP time step (unix seconds / 30) of the last code the factor
	// accepted: a code is accepted once, so a code of that step or an earlier one is refused.
	LastUsedStep int64
	// Attempts counts the wrong activation codes of a PENDING factor; the MaxAttempts-th
	// cancels it.
	Attempts int
}

// AttemptsRemaining is how many wrong activation codes the factor still accepts.
func (f Factor) AttemptsRemaining() int {
	if n := MaxAttempts - f.Attempts; n > 0 {
		return n
	}
	return 0
}

// WrongActivationCode counts one wrong code against a PENDING factor and returns the refusal:
// TWOFA_INVALID_CODE with details.attemptsRemaining, or, for the MaxAttempts-th wrong code,
// TWOFA_TOO_MANY_ATTEMPTS with the factor CANCELLED. The caller saves the factor before
// answering, so the count survives the refusal.
func (f *Factor) WrongActivationCode() *core.Error {
	f.Attempts++
	if f.Attempts >= MaxAttempts {
		f.Attempts, f.Status = MaxAttempts, FactorCancelled
		return f.TooManyAttempts()
	}
	return core.E(claim.CodeInvalidCode, "the code does not match factor %s; %d attempts remain, use the current code of the authenticator", f.ID, f.AttemptsRemaining()).
		WithDetails(map[string]any{"factorId": f.ID, "attemptsRemaining": f.AttemptsRemaining()})
}

// TooManyAttempts is the refusal of a CANCELLED factor.
func (f Factor) TooManyAttempts() *core.Error {
	return core.E(claim.CodeTooManyAttempts, "factor %s was cancelled after %d wrong activation codes; enroll a new factor with POST /v1/twofactor/factors", f.ID, MaxAttempts).
		WithDetails(map[string]any{"factorId": f.ID, "attemptsRemaining": 0})
}

// Settings say which Safe payments of a tenant's environment need approval.
type Settings struct {
	TenantID    string
	Environment core.Environment
	// ApprovalAboveBaseUnits: a payment of more than this amount needs two-factor approval;
	// nil: no amount threshold.
	ApprovalAboveBaseUnits *int64
	// ApproveNewPayees: a payment to a destination that is not a saved contact needs approval.
	ApproveNewPayees bool
	// RequireSavedPayees: a payment to a destination that is not a saved contact is refused
	// (NEW_PAYEE_NOT_SAVED).
	RequireSavedPayees bool
	UpdatedAt          time.Time
}

// Protected reports whether some payments need two-factor approval.
func (s Settings) Protected() bool { return s.ApprovalAboveBaseUnits != nil || s.ApproveNewPayees }

// NeedsApproval reports whether a payment of amount to a destination (saved: a saved contact)
// needs two-factor approval.
func (s Settings) NeedsApproval(amountBaseUnits int64, saved bool) bool {
	if s.ApprovalAboveBaseUnits != nil && amountBaseUnits > *s.ApprovalAboveBaseUnits {
		return true
	}
	return s.ApproveNewPayees && !saved
}

// ChallengeStatus is a challenge's state.
type ChallengeStatus string

const (
	// ChallengePending waits for a code.
	ChallengePending ChallengeStatus = "PENDING"
	// ChallengeSatisfied had a valid code; one propose may redeem it.
	ChallengeSatisfied ChallengeStatus = "SATISFIED"
	// ChallengeRedeemed created its payment; it is used.
	ChallengeRedeemed ChallengeStatus = "REDEEMED"
	// ChallengeCancelled had too many wrong codes.
	ChallengeCancelled ChallengeStatus = "CANCELLED"
)

// Challenge is a two-factor approval bound to one proposed transaction.
type Challenge struct {
	ID                 string
	TenantID           string
	Environment        core.Environment
	Binding            string // Bind of the transaction
	SourceWalletID     string
	AmountBaseUnits    int64
	DestinationAddress string
	DestinationLabel   string
	Status             ChallengeStatus
	Attempts           int
	ExpiresAt          time.Time
	CreatedAt          time.Time
	SatisfiedAt        *time.Time
	RedeemedAt         *time.Time
	PaymentID          string
}

// Expired reports whether the challenge can no longer be verified or redeemed.
func (c Challenge) Expired(now time.Time) bool { return !now.Before(c.ExpiresAt) }

// AttemptsRemaining is how many wrong codes the challenge still accepts.
func (c Challenge) AttemptsRemaining() int {
	if n := MaxAttempts - c.Attempts; n > 0 {
		return n
	}
	return 0
}

// Transaction is what a challenge binds: everything of a propose that decides where money goes.
type Transaction struct {
	TenantID           string
	Environment        core.Environment
	SourceWalletID     string
	DestinationAddress string
	ChainID            int64
	Asset              string
	AmountBaseUnits    int64
	Memo               string
	// Call is set for a transaction proposal: its value in wei and its calldata.
	CallValueWei string
	CallData     []byte
	IsCall       bool
}

// Bind is the hex SHA-256 of the transaction's fields, length-prefixed so no two transactions
// share an encoding.
func Bind(t Transaction) string {
	h := sha256.New()
	call := "transfer"
	if t.IsCall {
		sum := sha256.Sum256(t.CallData)
		call = "call:" + t.CallValueWei + ":" + hex.EncodeToString(sum[:])
	}
	for _, f := range []string{"corridor-twofa-v1", t.TenantID, string(t.Environment), t.SourceWalletID,
		strings.ToLower(t.DestinationAddress), strconv.FormatInt(t.ChainID, 10), t.Asset,
		strconv.FormatInt(t.AmountBaseUnits, 10), t.Memo, call} {
		fmt.Fprintf(h, "%d:%s;", len(f), f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Change is a security setting being changed (docs/decisions/tenancy.md): the tenant's two-factor settings, a new
// factor beside an active one, or a factor's removal. A change needs a satisfied challenge
// bound to it when the tenant has an active factor.
type Change struct {
	TenantID    string
	Environment core.Environment
	// Kind says what changes: ChangeSettings, ChangeEnrollFactor, ChangeActivateFactor or
	// ChangeDeleteFactor.
	Kind string
	// Subject is the change's content in a canonical form: the new settings, the new factor's
	// label, or the removed factor's id.
	Subject string
}

// Kinds of Change.
const (
	ChangeSettings     = "twofactor_settings"
	ChangeEnrollFactor = "twofactor_factor_enroll"
	ChangeDeleteFactor = "twofactor_factor_delete"
	// ChangeActivateFactor is a PENDING factor's activation beside an ACTIVE one.
	ChangeActivateFactor = "twofactor_factor_activate"
)

// BindChange is the hex SHA-256 of a change's fields, in a domain of its own so that a change
// and a transaction never share a binding.
func BindChange(c Change) string {
	h := sha256.New()
	for _, f := range []string{"corridor-twofa-change-v1", c.TenantID, string(c.Environment), c.Kind, c.Subject} {
		fmt.Fprintf(h, "%d:%s;", len(f), f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// SettingsSubject is the canonical form of settings for BindChange.
func SettingsSubject(s Settings) string {
	above := "none"
	if s.ApprovalAboveBaseUnits != nil {
		above = strconv.FormatInt(*s.ApprovalAboveBaseUnits, 10)
	}
	return fmt.Sprintf("above=%s;newPayees=%t;savedOnly=%t", above, s.ApproveNewPayees, s.RequireSavedPayees)
}
