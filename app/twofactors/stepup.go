package twofactors

import (
	"context"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/twofactor"
)

// stepUp guards a security change (docs/decisions/tenancy.md) inside its unit of work. A tenant with no ACTIVE factor
// has nothing to step up with, and the change goes ahead (enrolling the first factor is how
// protection starts). Otherwise: without challengeID, a new challenge bound to the change and
// TWOFA_REQUIRED; with challengeID, the challenge must be SATISFIED, unexpired and bound to this
// very change, and is redeemed for usedBy. A refusal is returned as refused: the caller commits
// what was written (the new challenge, or nothing) and does not make the change.
func (s *Service) stepUp(ctx context.Context, tx txView, p auth.Principal, change twofactor.Change, usedBy, challengeID, describe string) (*core.Error, error) {
	repo := tx.TwoFactor()
	active, err := activeFactors(ctx, repo, p)
	if err != nil {
		return nil, err
	}
	if len(active) == 0 {
		return nil, nil
	}
	now := s.clock.Now().UTC()
	binding := twofactor.BindChange(change)
	if challengeID != "" {
		return redeem(ctx, repo, p, usedBy, challengeID, binding, now)
	}
	if refused, err := allowChallenge(ctx, repo, p, now); err != nil || refused != nil {
		return refused, err
	}
	ch := twofactor.Challenge{ID: core.NewID(core.PrefixChallenge), TenantID: p.TenantID, Environment: p.Environment, Binding: binding,
		DestinationLabel: describe, Status: twofactor.ChallengePending, ExpiresAt: now.Add(twofactor.ChallengeTTL), CreatedAt: now}
	if err := repo.CreateChallenge(ctx, ch); err != nil {
		return nil, err
	}
	return core.E(twofactor.CodeRequired, "this change of a security setting needs two-factor approval: verify a code on challenge %s, then send the same request with twofaChallengeId", ch.ID).
		WithDetails(map[string]any{
			"challengeId": ch.ID, "requiredFactors": 1, "factors": active, "expiresAt": ch.ExpiresAt.Format("2006-01-02T15:04:05Z07:00"),
			"change": map[string]any{"kind": change.Kind, "description": describe},
		}), nil
}

// refuseAgent keeps agents away from every security setting, whatever scopes their key's row
// holds: an agent cannot complete a challenge, so it could only ever weaken protection.
func refuseAgent(p auth.Principal) error {
	if p.AgentID != "" {
		return core.E(twofactor.CodeAgentNotPermitted, "an agent key can never change two-factor settings, factors or contacts' protection")
	}
	return nil
}
