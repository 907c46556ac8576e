package twofactors

import (
	"context"
	"crypto/subtle"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/twofactor"
)

// totpOptions are the RFC 6238 parameters every authenticator app understands: SHA-1, six
// digits, 30-second steps, and one step of clock skew either way.
var totpOptions = totp.ValidateOpts{Period: 30, Skew: 1, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// Enrollment is a new factor with its secret, shown once.
type Enrollment struct {
	Factor     twofactor.Factor
	Secret     string // base32
	OTPAuthURI string
}

// secretContext binds a factor's ciphertext to the factor (ports.Cipher context).
func secretContext(f twofactor.Factor) string {
	return "twofactor-factor:" + f.TenantID + ":" + string(f.Environment) + ":" + f.ID
}

// EnrollFactor creates a PENDING TOTP factor and returns its secret and otpauth URI once; a
// first valid code (VerifyFactor) activates it. Beside an ACTIVE factor, a new one is a change
// of a security setting: it needs a satisfied challenge bound to it (challengeID; stepUp), or
// anyone holding twofactor:manage could add an authenticator of their own and approve payments.
// An agent never enrolls.
func (s *Service) EnrollFactor(ctx context.Context, p auth.Principal, label, challengeID string) (Enrollment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeTwofactorManage); err != nil {
		return Enrollment{}, err
	}
	if err := refuseAgent(p); err != nil {
		return Enrollment{}, err
	}
	label = strings.TrimSpace(label)
	if label == "" {
		label = "Authenticator"
	}
	if len(label) > twofactor.MaxLabelLength {
		return Enrollment{}, core.Invalid("label", "must be at most 100 bytes")
	}
	if err := core.ValidateText("label", label); err != nil {
		return Enrollment{}, err
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: s.issuer, AccountName: label + " (" + string(p.Environment) + ")",
		Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return Enrollment{}, err
	}
	f := twofactor.Factor{ID: core.NewID(core.PrefixFactor), TenantID: p.TenantID, Environment: p.Environment, Type: twofactor.FactorTOTP,
		Label: label, Status: twofactor.FactorPending, CreatedAt: s.clock.Now().UTC()}
	if f.SecretCiphertext, err = s.cipher.Encrypt([]byte(key.Secret()), secretContext(f)); err != nil {
		return Enrollment{}, err
	}
	change := twofactor.Change{TenantID: p.TenantID, Environment: p.Environment, Kind: twofactor.ChangeEnrollFactor, Subject: "label=" + label}
	var refused *core.Error
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		refused, err = s.stepUp(ctx, tx, p, change, f.ID, challengeID, "enroll a new authenticator labelled "+label)
		if err != nil || refused != nil {
			return err
		}
		// A CANCELLED factor never activated and can never be: enrolling again removes it, so
		// the table keeps at most MaxFactors rows per tenant and environment.
		if err := tx.TwoFactor().DeleteCancelledFactors(ctx, p.TenantID, p.Environment); err != nil {
			return err
		}
		existing, err := tx.TwoFactor().ListFactors(ctx, p.TenantID, p.Environment)
		if err != nil {
			return err
		}
		if len(existing) >= twofactor.MaxFactors {
			return core.E(core.CodeInvalidState, "a tenant keeps at most %d factors per environment", twofactor.MaxFactors)
		}
		return tx.TwoFactor().CreateFactor(ctx, f)
	})
	if err == nil && refused != nil {
		return Enrollment{}, refused
	}
	return Enrollment{Factor: f, Secret: key.Secret(), OTPAuthURI: key.URL()}, err
}

// DeleteFactor removes a factor of the tenant's environment and returns it. Removing a factor
// weakens protection, so with an ACTIVE factor present (the one removed counts) it needs a
// satisfied challenge bound to this removal (challengeID; stepUp). Once no factor is ACTIVE,
// payments the settings protect answer TWOFA_NOT_ENROLLED: protection fails closed.
func (s *Service) DeleteFactor(ctx context.Context, p auth.Principal, id, challengeID string) (twofactor.Factor, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeTwofactorManage); err != nil {
		return twofactor.Factor{}, err
	}
	if err := refuseAgent(p); err != nil {
		return twofactor.Factor{}, err
	}
	var f twofactor.Factor
	var refused *core.Error
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		if f, err = tx.TwoFactor().LockFactor(ctx, p.TenantID, p.Environment, strings.TrimSpace(id)); err != nil {
			return err
		}
		change := twofactor.Change{TenantID: p.TenantID, Environment: p.Environment, Kind: twofactor.ChangeDeleteFactor, Subject: f.ID}
		refused, err = s.stepUp(ctx, tx, p, change, f.ID, challengeID, "remove the authenticator "+f.Label+" ("+f.ID+")")
		if err != nil || refused != nil {
			return err
		}
		return tx.TwoFactor().DeleteFactor(ctx, p.TenantID, p.Environment, f.ID)
	})
	if err == nil && refused != nil {
		return twofactor.Factor{}, refused
	}
	return f, err
}

// VerifyFactor activates a PENDING factor with a code from the authenticator. A wrong code is
// counted under the factor's row lock and committed before TWOFA_INVALID_CODE (with
// details.attemptsRemaining) answers; the MaxAttempts-th cancels the factor
// (TWOFA_TOO_MANY_ATTEMPTS), and a CANCELLED factor refuses every code, the right one too: the
// tenant enrolls a new factor. An ACTIVE factor has nothing left to activate and compares no
// code (INVALID_STATE), so this route is no guessing oracle for an active secret. Wrong codes
// spend the tenant's and the factor's failure budgets as a challenge's do (VerifyChallenge).
//
// Activating a factor while another is ACTIVE adds an approver as enrolling one does, so it
// needs the same step-up (challengeID, bound to this factor's activation): a factor enrolled
// while the tenant had no protection, and left PENDING, is no back door once protection is on.
// The step-up is checked before the code, and a redeemed challenge stays used whatever the code.
// An agent never activates a factor.
func (s *Service) VerifyFactor(ctx context.Context, p auth.Principal, id, code, challengeID string) (twofactor.Factor, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeTwofactorManage); err != nil {
		return twofactor.Factor{}, err
	}
	if err := refuseAgent(p); err != nil {
		return twofactor.Factor{}, err
	}
	if err := validCodeShape(code); err != nil {
		return twofactor.Factor{}, err
	}
	var f twofactor.Factor
	var refusal error
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		refusal = nil
		var err error
		if f, err = tx.TwoFactor().LockFactor(ctx, p.TenantID, p.Environment, id); err != nil {
			return err
		}
		switch f.Status {
		case twofactor.FactorCancelled:
			return f.TooManyAttempts()
		case twofactor.FactorActive:
			return core.E(core.CodeInvalidState, "factor %s is already ACTIVE; it approves challenges with its codes", f.ID).
				WithDetails(map[string]any{"factorId": f.ID, "status": string(f.Status)})
		}
		change := twofactor.Change{TenantID: p.TenantID, Environment: p.Environment, Kind: twofactor.ChangeActivateFactor, Subject: f.ID}
		if refused, err := s.stepUp(ctx, tx, p, change, f.ID, challengeID, "activate the authenticator "+f.Label+" ("+f.ID+")"); err != nil || refused != nil {
			refusal = refused
			return err
		}
		now := s.clock.Now().UTC()
		budgets, locked, err := lockBudgets(ctx, tx.TwoFactor(), p, []string{f.ID}, now)
		if err != nil || locked != nil {
			refusal = locked
			return err
		}
		ok, err := s.codeMatches(ctx, tx, f, code, now)
		if err != nil {
			return err
		}
		if ok {
			f.Status, f.VerifiedAt = twofactor.FactorActive, &now
			return tx.TwoFactor().UpdateFactor(ctx, f)
		}
		refusal = f.WrongActivationCode()
		if locked, err := spendBudgets(ctx, tx, budgets, now); err != nil || locked != nil {
			refusal = locked
			if err != nil {
				return err
			}
		}
		return tx.TwoFactor().UpdateFactor(ctx, f)
	})
	if err != nil {
		return twofactor.Factor{}, err
	}
	return f, refusal
}

// ListFactors lists the tenant's factors of this environment (never their secrets).
func (s *Service) ListFactors(ctx context.Context, p auth.Principal) ([]twofactor.Factor, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeTwofactorRead); err != nil {
		return nil, err
	}
	var out []twofactor.Factor
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, err = tx.TwoFactor().ListFactors(ctx, p.TenantID, p.Environment)
		return err
	})
	return out, err
}

// codeMatches checks a TOTP code against the factor's decrypted secret and, when it matches,
// uses it up: a code is accepted once (RFC 6238), so the time step it belongs to (the
// current one, or one either side for clock skew) must be later than the last step the factor
// accepted, and is recorded in the same unit of work. A replayed code reads as a wrong code.
func (s *Service) codeMatches(ctx context.Context, tx txView, f twofactor.Factor, code string, now time.Time) (bool, error) {
	secret, err := s.cipher.Decrypt(f.SecretCiphertext, secretContext(f))
	if err != nil {
		return false, err
	}
	step, ok := matchingStep(string(secret), code, now.UTC())
	if !ok || step <= f.LastUsedStep {
		return false, nil
	}
	return tx.TwoFactor().UseFactorStep(ctx, f.TenantID, f.ID, step)
}

// matchingStep finds the time step, among the current one and one either side (totpOptions'
// skew), whose code is code.
func matchingStep(secret, code string, now time.Time) (int64, bool) {
	const period = 30 // totpOptions.Period, in seconds
	current := now.Unix() / period
	for _, step := range []int64{current, current - 1, current + 1} {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(step*period, 0).UTC(), totpOptions)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return step, true
		}
	}
	return 0, false
}

func validCodeShape(code string) error {
	if len(code) != 6 || strings.Trim(code, "0123456789") != "" {
		return core.Invalid("code", "must be the 6-digit code of the authenticator")
	}
	return nil
}
