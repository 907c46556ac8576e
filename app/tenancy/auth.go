package tenancy

import (
	"context"
	"errors"
	"slices"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
)

var errBadKey = core.E(core.CodeUnauthenticated, "invalid API key")

// AuthenticateKey turns a presented API key into a principal. Unknown, wrong-secret, expired and
// revoked keys all answer the same UNAUTHENTICATED message, so a prober learns nothing.
func (s *Service) AuthenticateKey(ctx context.Context, raw string) (auth.Principal, error) {
	parsed, err := auth.ParseKey(raw)
	if err != nil {
		return auth.Principal{}, err
	}
	cached, ok, gen := s.keys.get(parsed.PubID)
	if ok {
		return s.principalOfKey(ctx, cached, parsed)
	}
	var p auth.Principal
	// The lookup reads one row and writes nothing: it runs beside the commit pipeline's
	// batches, not as a unit inside one that the money-moving units behind it would wait for.
	err = s.store.InTx(ports.WithUnitAlone(ctx), func(ctx context.Context, tx ports.Tx) error {
		k, err := s.findKey(ctx, tx, parsed.PubID)
		if errors.Is(err, &core.Error{Code: core.CodeAPIKeyNotFound}) {
			return errBadKey
		}
		if err != nil {
			return err
		}
		if p, err = s.principalOfKey(ctx, k, parsed); err != nil {
			return err
		}
		s.keys.put(k, gen)
		return nil
	})
	return p, err
}

// findKey reads the key of pubID. A key looked up before is read where it lives, by its tenant
// and id (a key never moves): on Citus that is one read on the tenant's worker, so a worker
// that stops answering does not hold up authentication of the other workers' tenants once their
// cached rows expire. A key not seen yet is found through its public id's lookup row.
func (s *Service) findKey(ctx context.Context, tx ports.Tx, pubID string) (tenant.APIKey, error) {
	if h, ok := s.keys.home(pubID); ok {
		k, err := tx.APIKeys().FindAPIKey(ctx, h.tenantID, h.env, h.id)
		if err == nil && k.PubID == pubID {
			return k, nil
		}
		if err != nil && !errors.Is(err, &core.Error{Code: core.CodeAPIKeyNotFound}) {
			return tenant.APIKey{}, err
		}
	}
	k, err := tx.APIKeys().FindAPIKeyByPubID(ctx, pubID)
	if err == nil {
		s.keys.remember(k)
	}
	return k, err
}

// principalOfKey checks a presented key against its row (secret, environment, revocation,
// expiry, its agent's state) and returns the principal it authenticates.
func (s *Service) principalOfKey(ctx context.Context, k tenant.APIKey, parsed auth.ParsedKey) (auth.Principal, error) {
	if k.Environment != parsed.Environment || !auth.SecretMatches(parsed.Secret, k.SecretHash) {
		return auth.Principal{}, errBadKey
	}
	if k.RevokedAt != nil {
		return auth.Principal{}, core.E(core.CodeUnauthenticated, "this API key was revoked")
	}
	if !k.Usable(s.clock.Now()) {
		return auth.Principal{}, core.E(core.CodeUnauthenticated, "this API key expired")
	}
	// An agent key is declined while its agent is suspended (AGENT_SUSPENDED): checked on
	// every request, so suspension takes effect on the agent's next action.
	if k.AgentID != "" {
		if err := s.agents.RequireActiveAgent(ctx, k.TenantID, k.Environment, k.AgentID); err != nil {
			return auth.Principal{}, err
		}
	}
	scopes := slices.Clone(k.Scopes)
	if k.AgentID != "" {
		// An agent key never holds a forbidden scope, whatever its row says: keys minted
		// before the forbidden set grew (docs/decisions/tenancy.md) lose members:manage and twofactor:manage here.
		scopes = agent.StripScopes(scopes)
	}
	return auth.Principal{
		Kind: auth.KindAPIKey, TenantID: k.TenantID, Environment: k.Environment,
		Scopes: scopes, KeyID: k.ID, KeyPubID: k.PubID, KeyExpiresAt: k.ExpiresAt, AgentID: k.AgentID,
	}, nil
}

// AuthenticateSession verifies an identity-provider token and resolves the tenant through
// ownership or membership; the session's scopes are its role's in this environment
// (tenant.RoleScopes). A session with no tenant is still a principal with no scope: only
// POST /v1/tenants accepts it, everything else answers TENANT_REQUIRED.
func (s *Service) AuthenticateSession(ctx context.Context, token string, env core.Environment) (auth.Principal, error) {
	session, err := s.identity.VerifySession(ctx, token)
	if err != nil {
		return auth.Principal{}, err
	}
	base := auth.Principal{Kind: auth.KindSession, Environment: env, UserID: session.UserID, Email: session.Email}
	p := base
	err = s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		// A retried run starts from the bare session: a tenant, role or member id an earlier,
		// rolled-back run resolved must not survive a run that finds the membership gone.
		p = base
		t, member, err := tx.Tenants().FindTenantForUser(ctx, session.UserID)
		if errors.Is(err, &core.Error{Code: core.CodeTenantNotFound}) {
			return nil
		}
		if err != nil {
			return err
		}
		role := tenant.RoleOwner
		if t.OwnerUserID != session.UserID {
			if member == nil {
				return nil // neither owner nor member: no tenant, no scope
			}
			role, p.MemberID = member.Role, member.ID
		}
		p.TenantID, p.Role, p.Scopes = t.ID, string(role), tenant.RoleScopes(role, env)
		return nil
	})
	return p, err
}
