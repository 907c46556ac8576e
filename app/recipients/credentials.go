package recipients

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/recipient"
)

// GetCredential returns the caller's BUSINESS_IDENTITY credential; ok=false when it has none.
func (s *Service) GetCredential(ctx context.Context, p auth.Principal) (recipient.Credential, bool, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeIdentityRead); err != nil {
		return recipient.Credential{}, false, err
	}
	var c recipient.Credential
	var ok bool
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		c, ok, err = tx.Recipients().FindCredential(ctx, p.TenantID, p.Environment)
		return err
	})
	return c, ok, err
}

// SetSandboxCredential sets the caller's credential status (docs/decisions/ramps.md, TEST only) and re-evaluates
// its held payments: a credential becoming ACTIVE may clear their holds.
func (s *Service) SetSandboxCredential(ctx context.Context, p auth.Principal, status string) (recipient.Credential, error) {
	if err := p.RequireTenant(); err != nil {
		return recipient.Credential{}, err
	}
	if err := kernel.RequireSandbox(p, "sandbox credentials exist only in TEST"); err != nil {
		return recipient.Credential{}, err
	}
	if err := p.Require(auth.ScopeIdentityWrite); err != nil {
		return recipient.Credential{}, err
	}
	st, err := recipient.ParseCredentialStatus("status", status)
	if err != nil {
		return recipient.Credential{}, err
	}
	c := recipient.Credential{TenantID: p.TenantID, Environment: p.Environment, Type: recipient.CredentialBusinessIdentity,
		Status: st, UpdatedAt: s.clock.Now()}
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		if err := tx.Recipients().PutCredential(ctx, c); err != nil {
			return err
		}
		return s.changed.Raise(ctx, recipient.Changed{Environment: p.Environment, TenantID: p.TenantID})
	})
	return c, err
}
