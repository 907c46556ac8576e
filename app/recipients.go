package app

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/auth"
	"corridor/core/recipient"
	"corridor/ports"
)

// Lookup-hash purposes: a phone hashed for alias lookup never equals any other hash.
const (
	hashPurposePhone = "phone"
	hashPurposeCode  = "phone-code"
)

// requireRecipients fails closed when the recipient ports are not wired.
func (a *App) requireRecipients() error {
	if a.offramp.cipher == nil || a.offramp.sms == nil {
		return core.E(core.CodeFeatureNotAvailable, "phone aliases and payout destinations are not configured in this deployment")
	}
	return nil
}

// CreateAliasInput is POST /v1/phone-aliases.
type CreateAliasInput struct{ Phone string }

// CreatePhoneAlias starts proving a phone number (D7): it stores the number encrypted with its
// keyed hash and texts a 6-digit code through the SMS port. A number another tenant has
// verified in this environment is PHONE_ALIAS_TAKEN.
func (a *App) CreatePhoneAlias(ctx context.Context, p auth.Principal, in CreateAliasInput) (recipient.Alias, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeIdentityWrite); err != nil {
		return recipient.Alias{}, err
	}
	if err := a.requireRecipients(); err != nil {
		return recipient.Alias{}, err
	}
	phone, err := recipient.ParsePhone("phone", in.Phone)
	if err != nil {
		return recipient.Alias{}, err
	}
	now := a.clock.Now()
	alias := recipient.Alias{ID: core.NewID("pha"), TenantID: p.TenantID, Environment: p.Environment,
		PhoneHash: a.offramp.cipher.LookupHash(hashPurposePhone, phone.E164), Masked: recipient.MaskPhone(phone.E164),
		Status: recipient.AliasPending, CodeExpiresAt: now.Add(recipient.CodeLifetime), CreatedAt: now}
	if alias.PhoneCiphertext, err = a.offramp.cipher.Encrypt([]byte(phone.E164), "phone_alias:"+alias.ID); err != nil {
		return recipient.Alias{}, err
	}
	code := sixDigits()
	alias.CodeHash = a.codeHash(alias.ID, code)
	err = a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		owner, err := tx.Recipients().FindVerifiedAlias(ctx, p.Environment, alias.PhoneHash)
		switch {
		case err == nil && owner.TenantID != p.TenantID:
			return core.E(recipient.CodePhoneAliasTaken, "this phone number is already verified by another tenant")
		case err == nil:
			return core.E(core.CodeInvalidState, "this phone number is already verified for your tenant (%s)", owner.ID)
		case !isCode(err, recipient.CodePhoneAliasNotFound):
			return err
		}
		if err := tx.Recipients().CreateAlias(ctx, alias); err != nil {
			return err
		}
		return a.offramp.sms.Send(ctx, ports.SMSMessage{TenantID: p.TenantID, Environment: p.Environment, ToHash: alias.PhoneHash,
			ToMasked: alias.Masked, ToCiphertext: alias.PhoneCiphertext, Purpose: "phone_alias_verification",
			Body: fmt.Sprintf("Your Corridor verification code is %s. It expires in %d minutes.", code, int(recipient.CodeLifetime.Minutes()))}, now)
	})
	return alias, err
}

// VerifyPhoneAlias checks a code: 6 digits, 5 attempts, expiry. Wrong codes count even though
// the request fails, so the attempt is saved in its own unit of work before the error returns.
func (a *App) VerifyPhoneAlias(ctx context.Context, p auth.Principal, id, code string) (recipient.Alias, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeIdentityWrite); err != nil {
		return recipient.Alias{}, err
	}
	if err := a.requireRecipients(); err != nil {
		return recipient.Alias{}, err
	}
	if !recipient.ValidCodeFormat(code) {
		return recipient.Alias{}, core.Invalid("code", "must be 6 digits")
	}
	var out recipient.Alias
	var verdict error
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		alias, err := tx.Recipients().LockAlias(ctx, p.TenantID, p.Environment, id)
		if err != nil {
			return err
		}
		matches := alias.CodeHash != "" && hmac.Equal([]byte(alias.CodeHash), []byte(a.codeHash(alias.ID, code)))
		out, verdict = alias.Verify(matches, a.clock.Now())
		if out.Status == alias.Status && out.Attempts == alias.Attempts {
			return nil
		}
		if err := tx.Recipients().UpdateAlias(ctx, out); err != nil {
			return err
		}
		if out.Status == recipient.AliasVerified {
			return a.reevaluateHeld(ctx, tx, p.Environment, p.TenantID)
		}
		return nil
	})
	if err != nil {
		return recipient.Alias{}, err
	}
	return out, verdict
}

// ListPhoneAliases lists the caller's aliases, newest first.
func (a *App) ListPhoneAliases(ctx context.Context, p auth.Principal, page ports.Page) ([]recipient.Alias, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeIdentityRead); err != nil {
		return nil, 0, err
	}
	var out []recipient.Alias
	var total int
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, total, err = tx.Recipients().ListAliases(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// ListSandboxSMS reads the caller's sandbox outbox (TEST only).
func (a *App) ListSandboxSMS(ctx context.Context, p auth.Principal, page ports.Page) ([]ports.SentSMS, int, error) {
	if err := p.RequireTenant(); err != nil {
		return nil, 0, err
	}
	if p.Environment != core.EnvTest {
		return nil, 0, core.E(core.CodeSandboxOnly, "the SMS outbox exists only in TEST")
	}
	if err := p.Require(auth.ScopeIdentityRead); err != nil {
		return nil, 0, err
	}
	if a.offramp.smsOutbox == nil {
		return nil, 0, core.E(core.CodeFeatureNotAvailable, "no sandbox SMS outbox is configured")
	}
	return a.offramp.smsOutbox.ListSMS(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
}

// GetCredential returns the caller's BUSINESS_IDENTITY credential; ok=false when it has none.
func (a *App) GetCredential(ctx context.Context, p auth.Principal) (recipient.Credential, bool, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeIdentityRead); err != nil {
		return recipient.Credential{}, false, err
	}
	var c recipient.Credential
	var ok bool
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		c, ok, err = tx.Recipients().FindCredential(ctx, p.TenantID, p.Environment)
		return err
	})
	return c, ok, err
}

// SetSandboxCredential sets the caller's credential status (D8, TEST only) and re-evaluates
// its held payments: a credential becoming ACTIVE may clear their holds.
func (a *App) SetSandboxCredential(ctx context.Context, p auth.Principal, status string) (recipient.Credential, error) {
	if err := p.RequireTenant(); err != nil {
		return recipient.Credential{}, err
	}
	if p.Environment != core.EnvTest {
		return recipient.Credential{}, core.E(core.CodeSandboxOnly, "sandbox credentials exist only in TEST")
	}
	if err := p.Require(auth.ScopeIdentityWrite); err != nil {
		return recipient.Credential{}, err
	}
	st, err := recipient.ParseCredentialStatus("status", status)
	if err != nil {
		return recipient.Credential{}, err
	}
	c := recipient.Credential{TenantID: p.TenantID, Environment: p.Environment, Type: recipient.CredentialBusinessIdentity,
		Status: st, UpdatedAt: a.clock.Now()}
	err = a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if err := tx.Recipients().PutCredential(ctx, c); err != nil {
			return err
		}
		return a.reevaluateHeld(ctx, tx, p.Environment, p.TenantID)
	})
	return c, err
}

// CreateDestination adds a payout destination (SPEC.md PayoutDestination). It needs an ACTIVE
// BUSINESS_IDENTITY credential. Identifiers are encrypted, never returned, and immutable:
// there is no update; a new place to be paid is a new destination.
func (a *App) CreateDestination(ctx context.Context, p auth.Principal, in recipient.DestinationInput) (recipient.Destination, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeIdentityWrite); err != nil {
		return recipient.Destination{}, err
	}
	if err := a.requireRecipients(); err != nil {
		return recipient.Destination{}, err
	}
	typ, ident, masked, err := recipient.ValidateDestination(in)
	if err != nil {
		return recipient.Destination{}, err
	}
	d := recipient.Destination{ID: core.NewID(core.PrefixDest), TenantID: p.TenantID, Environment: p.Environment,
		Type: typ, Status: recipient.DestActive, Masked: masked, AllowAutomaticFallback: in.AllowAutomaticFallback,
		CreatedAt: a.clock.Now()}
	if typ != recipient.DestServiceBalance {
		raw, err := json.Marshal(ident)
		if err != nil {
			return recipient.Destination{}, err
		}
		if d.IdentifierCiphertext, err = a.offramp.cipher.Encrypt(raw, "payout_destination:"+d.ID); err != nil {
			return recipient.Destination{}, err
		}
	}
	err = a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		cred, ok, err := tx.Recipients().FindCredential(ctx, p.TenantID, p.Environment)
		if err != nil {
			return err
		}
		if !ok || cred.Status != recipient.CredentialActive {
			return core.E(recipient.CodeCredentialRequired, "creating payout destinations requires an ACTIVE BUSINESS_IDENTITY credential")
		}
		if err := tx.Recipients().CreateDestination(ctx, d); err != nil {
			return err
		}
		return a.reevaluateHeld(ctx, tx, p.Environment, p.TenantID)
	})
	return d, err
}

// GetDestination returns one of the caller's destinations.
func (a *App) GetDestination(ctx context.Context, p auth.Principal, id string) (recipient.Destination, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeIdentityRead); err != nil {
		return recipient.Destination{}, err
	}
	var d recipient.Destination
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		d, err = tx.Recipients().FindDestination(ctx, p.TenantID, p.Environment, id)
		return err
	})
	return d, err
}

// ListDestinations lists the caller's destinations, oldest first.
func (a *App) ListDestinations(ctx context.Context, p auth.Principal, page ports.Page) ([]recipient.Destination, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeIdentityRead); err != nil {
		return nil, 0, err
	}
	var out []recipient.Destination
	var total int
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, total, err = tx.Recipients().ListDestinations(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// codeHash binds a code to its alias under the lookup key, so the stored hash of a 6-digit
// code cannot be brute-forced offline without the key.
func (a *App) codeHash(aliasID, code string) string {
	return a.offramp.cipher.LookupHash(hashPurposeCode, aliasID+":"+code)
}

func sixDigits() string {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		panic("app: crypto/rand: " + err.Error())
	}
	return fmt.Sprintf("%06d", n.Int64())
}

func isCode(err error, code core.Code) bool {
	e, ok := err.(*core.Error)
	return ok && e.Code == code
}
