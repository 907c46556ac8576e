package twofactor

import (
	"context"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/auth"
	"corridor/core/twofactor"
	"corridor/ports"
)

// SettingsInput is a PUT of the settings: every field is sent (a full replacement);
// ApprovalAboveValue "" (or absent) clears the amount threshold.
type SettingsInput struct {
	ApprovalAboveValue *string
	ApproveNewPayees   bool
	RequireSavedPayees bool
}

// Settings answers the tenant's settings of this environment (zero: nothing protected).
func (s *Service) Settings(ctx context.Context, p auth.Principal) (twofactor.Settings, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeTwofactorRead); err != nil {
		return twofactor.Settings{}, err
	}
	var out twofactor.Settings
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, err = tx.TwoFactor().FindSettings(ctx, p.TenantID, p.Environment)
		return err
	})
	return out, err
}

// PutSettings replaces the settings. Turning approval on needs no factor yet: a payment that
// then needs approval answers TWOFA_NOT_ENROLLED until one is ACTIVE.
func (s *Service) PutSettings(ctx context.Context, p auth.Principal, in SettingsInput) (twofactor.Settings, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeTwofactorManage); err != nil {
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
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		return tx.TwoFactor().SaveSettings(ctx, out)
	})
	return out, err
}
