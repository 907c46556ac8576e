package agents

import (
	"context"
	"fmt"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
)

// KeyInput is the body of POST /v1/agents/{id}/keys.
type KeyInput struct {
	Name   string
	Scopes []string
}

// CreatedKey carries the plaintext once; it is never stored.
type CreatedKey struct {
	Key       tenant.APIKey
	Plaintext string
}

// CreateAgentKey mints an API key whose principal is the agent. The forbidden scopes
// (agent.ForbiddenScopes) are dropped silently, "*" stands for every other scope, and the
// caller must hold every scope it grants, so an agent key is never stronger than its minter.
// Every key of an agent is minted here, so the stripping holds for each later key too. The
// key expires no later than the caller's own key.
func (s *Service) CreateAgentKey(ctx context.Context, p auth.Principal, agentID string, in KeyInput) (CreatedKey, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeAgentsManage); err != nil {
		return CreatedKey{}, err
	}
	scopes, err := validateKeyInput(in)
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
		Scopes: scopes, ExpiresAt: p.KeyExpiresAt, CreatedAt: s.clock.Now().UTC(), CreatedBy: creatorOf(p),
	}
	err = s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		a, err := tx.Agents().FindAgent(ctx, p.TenantID, p.Environment, strings.TrimSpace(agentID))
		if err != nil {
			return err
		}
		k.AgentID = a.ID
		return tx.APIKeys().CreateAPIKey(ctx, k)
	})
	return CreatedKey{Key: k, Plaintext: material.Plaintext}, err
}

func validateKeyInput(in KeyInput) ([]auth.Scope, error) {
	errs := core.FieldErrors{}
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
