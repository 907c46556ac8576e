package recipients

import (
	"context"
	"crypto/hmac"
	"fmt"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

// CreateAliasInput is POST /v1/phone-aliases; ClientIP is the caller's address (budgets).
type CreateAliasInput struct{ Phone, ClientIP string }

// CreatePhoneAlias starts proving a phone number (docs/decisions/offramp.md): it stores the number encrypted with its
// keyed hash and texts a 6-digit code through the SMS port. A number another tenant has
// verified in this environment is PHONE_ALIAS_TAKEN. Codes are budgeted per phone, tenant
// and client IP, and pending aliases per tenant (RATE_LIMITED, see alias_budget.go).
func (s *Service) CreatePhoneAlias(ctx context.Context, p auth.Principal, in CreateAliasInput) (recipient.Alias, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeIdentityWrite); err != nil {
		return recipient.Alias{}, err
	}
	if err := s.Ready(); err != nil {
		return recipient.Alias{}, err
	}
	phone, err := recipient.ParsePhone("phone", in.Phone)
	if err != nil {
		return recipient.Alias{}, err
	}
	now := s.clock.Now()
	alias := recipient.Alias{ID: core.NewID("pha"), TenantID: p.TenantID, Environment: p.Environment,
		PhoneHash: s.PhoneHash(phone.E164), Masked: recipient.MaskPhone(phone.E164),
		Status: recipient.AliasPending, CodeExpiresAt: now.Add(recipient.CodeLifetime), CreatedAt: now}
	if alias.PhoneCiphertext, err = s.cipher.Encrypt([]byte(phone.E164), "phone_alias:"+alias.ID); err != nil {
		return recipient.Alias{}, err
	}
	code := recipient.NewCode()
	alias.CodeHash = s.codeHash(alias.ID, code)
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		owner, err := tx.Recipients().FindVerifiedAlias(ctx, p.Environment, alias.PhoneHash)
		switch {
		case err == nil && owner.TenantID != p.TenantID:
			return core.E(recipient.CodePhoneAliasTaken, "this phone number is already verified by another tenant")
		case err == nil:
			return core.E(core.CodeInvalidState, "this phone number is already verified for your tenant (%s)", owner.ID)
		case !core.HasCode(err, recipient.CodePhoneAliasNotFound):
			return err
		}
		ipHash := s.cipher.LookupHash(hashPurposeIP, in.ClientIP)
		if err := s.checkAliasBudget(ctx, tx, p, alias.PhoneHash, ipHash, "", now); err != nil {
			return err
		}
		if err := tx.Recipients().CreateAlias(ctx, alias); err != nil {
			return err
		}
		if err := s.recordAliasAttempt(ctx, tx, p, alias.PhoneHash, ipHash, ports.AliasCodeSent, now); err != nil {
			return err
		}
		return s.QueueSMS(ctx, "phone_alias:"+alias.ID+":code:"+alias.CodeHash, ports.SMSMessage{TenantID: p.TenantID, Environment: p.Environment, ToHash: alias.PhoneHash,
			ToMasked: alias.Masked, ToCiphertext: alias.PhoneCiphertext, Purpose: "phone_alias_verification",
			Body: fmt.Sprintf("Your Corridor verification code is %s. It expires in %d minutes.", code, int(recipient.CodeLifetime.Minutes()))}, now)
	})
	return alias, err
}

// VerifyPhoneAlias checks a code: 6 digits, 5 attempts, expiry. Wrong codes count even though
// the request fails, so the attempt is saved in its own unit of work before the error returns;
// they also count against the phone, tenant and client-IP budgets, and a spent budget refuses
// the verify (RATE_LIMITED) before the code is compared.
func (s *Service) VerifyPhoneAlias(ctx context.Context, p auth.Principal, id, code, clientIP string) (recipient.Alias, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeIdentityWrite); err != nil {
		return recipient.Alias{}, err
	}
	if err := s.Ready(); err != nil {
		return recipient.Alias{}, err
	}
	if !recipient.ValidCodeFormat(code) {
		return recipient.Alias{}, core.Invalid("code", "must be 6 digits")
	}
	var out recipient.Alias
	var verdict error
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		alias, err := tx.Recipients().LockAlias(ctx, p.TenantID, p.Environment, id)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		ipHash := s.cipher.LookupHash(hashPurposeIP, clientIP)
		if alias.Status == recipient.AliasPending || alias.Reverifying() {
			if err := s.checkAliasBudget(ctx, tx, p, alias.PhoneHash, ipHash, ports.AliasCodeFailed, now); err != nil {
				return err
			}
		}
		matches := alias.CodeHash != "" && hmac.Equal([]byte(alias.CodeHash), []byte(s.codeHash(alias.ID, code)))
		out, verdict = alias.Verify(matches, now)
		if out.Status == alias.Status && out.Attempts == alias.Attempts && out.CodeHash == alias.CodeHash {
			return nil
		}
		if err := tx.Recipients().UpdateAlias(ctx, out); err != nil {
			return err
		}
		if out.Attempts > alias.Attempts {
			return s.recordAliasAttempt(ctx, tx, p, alias.PhoneHash, ipHash, ports.AliasCodeFailed, now)
		}
		if out.Status == recipient.AliasVerified {
			return s.changed.Raise(ctx, recipient.Changed{Environment: p.Environment, TenantID: p.TenantID})
		}
		return nil
	})
	if err != nil {
		return recipient.Alias{}, err
	}
	return out, verdict
}

// ReverifyPhoneAlias texts a fresh code to a VERIFIED alias's number so the recipient proves
// it again (the exit of PHONE_REVERIFICATION_REQUIRED); verify takes the code as for a new
// alias. It counts against the alias budgets like a new alias's code.
func (s *Service) ReverifyPhoneAlias(ctx context.Context, p auth.Principal, id, clientIP string) (recipient.Alias, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeIdentityWrite); err != nil {
		return recipient.Alias{}, err
	}
	if err := s.Ready(); err != nil {
		return recipient.Alias{}, err
	}
	var out recipient.Alias
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		alias, err := tx.Recipients().LockAlias(ctx, p.TenantID, p.Environment, id)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		code := recipient.NewCode()
		if out, err = alias.StartReverification(s.codeHash(alias.ID, code), now); err != nil {
			return err
		}
		ipHash := s.cipher.LookupHash(hashPurposeIP, clientIP)
		if err := s.checkAliasBudget(ctx, tx, p, alias.PhoneHash, ipHash, "", now); err != nil {
			return err
		}
		if err := tx.Recipients().UpdateAlias(ctx, out); err != nil {
			return err
		}
		if err := s.recordAliasAttempt(ctx, tx, p, alias.PhoneHash, ipHash, ports.AliasCodeSent, now); err != nil {
			return err
		}
		return s.QueueSMS(ctx, "phone_alias:"+out.ID+":code:"+out.CodeHash, ports.SMSMessage{TenantID: p.TenantID, Environment: p.Environment, ToHash: alias.PhoneHash,
			ToMasked: alias.Masked, ToCiphertext: alias.PhoneCiphertext, Purpose: "phone_alias_verification",
			Body: fmt.Sprintf("Your Corridor verification code is %s. It expires in %d minutes.", code, int(recipient.CodeLifetime.Minutes()))}, now)
	})
	return out, err
}

// ListPhoneAliases lists the caller's aliases, newest first.
func (s *Service) ListPhoneAliases(ctx context.Context, p auth.Principal, page ports.Page) ([]recipient.Alias, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeIdentityRead); err != nil {
		return nil, 0, err
	}
	var out []recipient.Alias
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, total, err = tx.Recipients().ListAliases(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// ListSandboxSMS reads the caller's sandbox outbox (TEST only).
func (s *Service) ListSandboxSMS(ctx context.Context, p auth.Principal, page ports.Page) ([]ports.SentSMS, int, error) {
	if err := p.RequireTenant(); err != nil {
		return nil, 0, err
	}
	if err := kernel.RequireSandbox(p, "the SMS outbox exists only in TEST"); err != nil {
		return nil, 0, err
	}
	if err := p.Require(auth.ScopeIdentityRead); err != nil {
		return nil, 0, err
	}
	if s.smsOutbox == nil {
		return nil, 0, core.E(core.CodeFeatureNotAvailable, "no sandbox SMS outbox is configured")
	}
	return s.smsOutbox.ListSMS(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
}

// codeHash binds a code to its alias under the lookup key, so the stored hash of a 6-digit
// code cannot be brute-forced offline without the key.
func (s *Service) codeHash(aliasID, code string) string {
	return s.cipher.LookupHash(hashPurposeCode, aliasID+":"+code)
}
