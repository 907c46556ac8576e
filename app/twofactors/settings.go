package twofactors

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/twofactor"
)

// SettingsInput is a PUT of the settings: every field is sent (a full replacement);
// ApprovalAboveValue "" (or absent) clears the amount threshold. TwofaChallengeID completes the
// step-up a tenant with an active factor needs for the change.
type SettingsInput struct {
	ApprovalAboveValue *string
	ApproveNewPayees   bool
	RequireSavedPayees bool
	TwofaChallengeID   string
}

// Settings answers the tenant's settings of this environment (zero: nothing protected).
func (s *Service) Settings(ctx context.Context, p auth.Principal) (twofactor.Settings, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeTwofactorRead); err != nil {
		return twofactor.Settings{}, err
	}
	var out twofactor.Settings
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, err = tx.TwoFactor().FindSettings(ctx, p.TenantID, p.Environment)
		return err
	})
	return out, err
}

// PutSettings replaces the settings. Turning approval on needs no factor yet: a payment that
// then needs approval answers TWOFA_NOT_ENROLLED until one is ACTIVE. Once a factor is ACTIVE,
// every change needs a satisfied challenge bound to it (stepUp), and an agent never changes
// them (TWOFA_AGENT_NOT_PERMITTED).
func (s *Service) PutSettings(ctx context.Context, p auth.Principal, in SettingsInput) (twofactor.Settings, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeTwofactorManage); err != nil {
		return twofactor.Settings{}, err
	}
	if err := refuseAgent(p); err != nil {
		return twofactor.Settings{}, err
	}
	out := twofactor.Settings{TenantID: p.TenantID, Environment: p.Environment, ApproveNewPayees: in.ApproveNewPayees,
		RequireSavedPayees: in.RequireSavedPayees, UpdatedAt: s.clock.Now().UTC()}
	if in.ApprovalAboveValue != nil && *in.ApprovalAboveValue != "" {
		amount, err := core.ParseAmount("approvalAboveUsd", core.USDCDecimals, *in.ApprovalAboveValue)
		if err != nil {
			return twofactor.Settings{}, err
		}
		out.ApprovalAboveBaseUnits = &amount
	}
	change := twofactor.Change{TenantID: p.TenantID, Environment: p.Environment, Kind: twofactor.ChangeSettings, Subject: twofactor.SettingsSubject(out)}
	var refused *core.Error
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		refused, err = s.stepUp(ctx, tx, p, change, twofactor.ChangeSettings, in.TwofaChallengeID, "change the two-factor settings to "+change.Subject)
		if err != nil || refused != nil {
			return err
		}
		return tx.TwoFactor().SaveSettings(ctx, out)
	})
	if err == nil && refused != nil {
		return twofactor.Settings{}, refused
	}
	return out, err
}
