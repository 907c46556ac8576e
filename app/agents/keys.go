package agents

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/tenant"
)

// KeyInput is the body of POST /v1/agents/{id}/keys.
type KeyInput struct {
	Name      string
	Scopes    []string
	ExpiresAt *time.Time // nil: none in TEST, LiveAgentKeyLifetime in LIVE
}

// LiveAgentKeyLifetime is the longest life of a LIVE agent key, and its default: a LIVE agent
// key moves real money without a person in the loop, so it is never a forever credential.
const LiveAgentKeyLifetime = 90 * 24 * time.Hour

// CreatedKey carries the plaintext once; it is never stored.
type CreatedKey struct {
	Key       tenant.APIKey
	Plaintext string
}

// CreateAgentKey mints an API key whose principal is the agent. The forbidden scopes
// (agent.ForbiddenScopes) are dropped silently, "*" stands for every other scope, and the
// caller must hold every scope it grants, so an agent key is never stronger than its minter.
// Every key of an agent is minted here, so the stripping holds for each later key too. The
// key expires no later than the caller's own key. A LIVE agent key is a LIVE key: minting it
// needs keys:manage in LIVE, as POST /v1/api-keys does, and it always expires
// (LiveAgentKeyLifetime at most).
func (s *Service) CreateAgentKey(ctx context.Context, p auth.Principal, agentID string, in KeyInput) (CreatedKey, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeAgentsManage); err != nil {
		return CreatedKey{}, err
	}
	now := s.clock.Now().UTC()
	scopes, err := validateKeyInput(in, now)
	if err != nil {
		return CreatedKey{}, err
	}
	expiresAt, err := agentKeyExpiry(p, in.ExpiresAt, now)
	if err != nil {
		return CreatedKey{}, err
	}
	grant := auth.Grant{Kind: auth.GrantAgentKey, ToAgent: true, Scopes: auth.Holding{p.Environment: scopes}}
	if err := auth.AuthorizeGrant(p, tenant.HoldingOf(p), grant); err != nil {
		return CreatedKey{}, err
	}
	material := auth.MintKey(p.Environment)
	k := tenant.APIKey{
		ID: core.NewID(core.PrefixAPIKey), TenantID: p.TenantID, Environment: p.Environment,
		Name: strings.TrimSpace(in.Name), PubID: material.PubID, SecretHash: material.SecretHash,
		Scopes: scopes, ExpiresAt: expiresAt, CreatedAt: now, CreatedBy: creatorOf(p),
	}
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		a, err := tx.Agents().FindAgent(ctx, p.TenantID, p.Environment, strings.TrimSpace(agentID))
		if err != nil {
			return err
		}
		k.AgentID = a.ID
		return tx.APIKeys().CreateAPIKey(ctx, k)
	})
	return CreatedKey{Key: k, Plaintext: material.Plaintext}, err
}

// agentKeyExpiry is when a new agent key expires: what was asked, else nothing in TEST and
// LiveAgentKeyLifetime from now in LIVE; never later than the caller's own key. In LIVE the
// caller must hold keys:manage there (an ADMIN session does not: the LIVE key rule).
func agentKeyExpiry(p auth.Principal, asked *time.Time, now time.Time) (*time.Time, error) {
	expiresAt := asked
	if p.Environment == core.EnvLive {
		if !tenant.HoldingOf(p).Holds(core.EnvLive, auth.ScopeKeysManage) {
			return nil, (&core.Error{Code: core.CodeInsufficientScope, Message: "a LIVE agent key is a LIVE key: minting one needs keys:manage in LIVE (the owner's session or a LIVE key holding it)"}).
				WithDetails(map[string]any{"required": string(auth.ScopeKeysManage), "missing": []string{string(auth.ScopeKeysManage)}, "environment": string(core.EnvLive)})
		}
		longest := now.Add(LiveAgentKeyLifetime)
		if expiresAt == nil {
			expiresAt = &longest
		} else if expiresAt.After(longest) {
			return nil, core.Invalid("expiresAt", "a LIVE agent key expires at most 90 days after it is minted (no later than "+longest.Format(time.RFC3339)+")")
		}
	}
	if p.KeyExpiresAt != nil && (expiresAt == nil || expiresAt.After(*p.KeyExpiresAt)) {
		if asked != nil {
			return nil, core.Invalid("expiresAt", "must be no later than the expiry of the key making the request ("+p.KeyExpiresAt.UTC().Format(time.RFC3339)+")")
		}
		expiresAt = p.KeyExpiresAt
	}
	return expiresAt, nil
}

func validateKeyInput(in KeyInput, now time.Time) ([]auth.Scope, error) {
	errs := core.FieldErrors{}
	if in.ExpiresAt != nil && !in.ExpiresAt.After(now) {
		errs.Add("expiresAt", "must be in the future")
	}
	if err := tenant.ValidateName("name", in.Name, true); err != nil {
		errs.Add("name", kernel.FieldReason(err, "name"))
	}
	requested := make([]auth.Scope, 0, len(in.Scopes))
	for i, sc := range in.Scopes {
		if !auth.Known(auth.Scope(sc)) {
			errs.Add(fmt.Sprintf("scopes[%d]", i), "unknown scope "+sc)
		}
		requested = append(requested, auth.Scope(sc))
	}
	if len(in.Scopes) == 0 {
		errs.Add("scopes", "must name at least one scope")
	}
	return agent.StripScopes(requested), errs.Err()
}

// creatorOf records who minted a key: the session user (and member), or the parent key.
func creatorOf(p auth.Principal) tenant.KeyCreator {
	if p.Kind == auth.KindAPIKey {
		return tenant.KeyCreator{KeyID: p.KeyID}
	}
	return tenant.KeyCreator{UserID: p.UserID, MemberID: p.MemberID}
}
