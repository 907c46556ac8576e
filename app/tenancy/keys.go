package tenancy

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
)

// CreateKeyInput is the body of POST /v1/api-keys.
type CreateKeyInput struct {
	Name        string
	Environment string // "test" or "live"; empty = the caller's environment
	Scopes      []string
	ScopesSet   bool // false when the body omitted scopes: the read-only default applies
	ExpiresAt   *time.Time
}

// CreatedKey carries the plaintext once; it is never stored.
type CreatedKey struct {
	Key       tenant.APIKey
	Plaintext string
}

// CreateKey mints an API key and records who minted it. A caller may grant only scopes it
// holds itself (a session: its role's scopes in the key's environment); a key only in its own
// environment, and never past its own expiry.
func (s *Service) CreateKey(ctx context.Context, p auth.Principal, in CreateKeyInput) (CreatedKey, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeKeysManage); err != nil {
		return CreatedKey{}, err
	}
	now := s.clock.Now()
	env, scopes, err := validateKeyInput(p, in, now)
	if err != nil {
		return CreatedKey{}, err
	}
	if err := canGrant(p, env, scopes, in.ExpiresAt); err != nil {
		return CreatedKey{}, err
	}
	material := auth.MintKey(env)
	k := tenant.APIKey{
		ID: core.NewID(core.PrefixAPIKey), TenantID: p.TenantID, Environment: env,
		Name: strings.TrimSpace(in.Name), PubID: material.PubID, SecretHash: material.SecretHash,
		Scopes: scopes, ExpiresAt: in.ExpiresAt, CreatedAt: now, CreatedBy: creatorOf(p),
	}
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		return tx.APIKeys().CreateAPIKey(ctx, k)
	})
	return CreatedKey{Key: k, Plaintext: material.Plaintext}, err
}

func validateKeyInput(p auth.Principal, in CreateKeyInput, now time.Time) (core.Environment, []auth.Scope, error) {
	errs := core.FieldErrors{}
	if err := tenant.ValidateName("name", in.Name, true); err != nil {
		errs.Add("name", kernel.FieldReason(err, "name"))
	}
	env := p.Environment
	if in.Environment != "" {
		parsed, ok := core.ParseEnvironment(in.Environment)
		if !ok {
			errs.Add("environment", "must be test or live")
		}
		env = parsed
	}
	scopes := auth.DefaultScopes()
	if in.ScopesSet {
		scopes = make([]auth.Scope, 0, len(in.Scopes))
		for i, s := range in.Scopes {
			if !auth.Known(auth.Scope(s)) {
				errs.Add(fmt.Sprintf("scopes[%d]", i), "unknown scope "+s)
			}
			scopes = append(scopes, auth.Scope(s))
		}
		if len(in.Scopes) == 0 {
			errs.Add("scopes", "must name at least one scope, or be omitted for the read-only default")
		}
	}
	if in.ExpiresAt != nil && !in.ExpiresAt.After(now) {
		errs.Add("expiresAt", "must be in the future")
	}
	return env, auth.Normalize(scopes), errs.Err()
}

// creatorOf is the record of who mints a key: the session user (and member), or the parent key.
func creatorOf(p auth.Principal) tenant.KeyCreator {
	if p.Kind == auth.KindAPIKey {
		return tenant.KeyCreator{KeyID: p.KeyID}
	}
	return tenant.KeyCreator{UserID: p.UserID, MemberID: p.MemberID}
}

// canGrant stops a caller from minting a key stronger than itself (the grant rule,
// auth.AuthorizeGrant), a key in the other environment (a key), a key outliving it (an expiring
// key), or a key in an environment where its role may not manage keys (a session).
func canGrant(p auth.Principal, env core.Environment, scopes []auth.Scope, expiresAt *time.Time) error {
	if env != p.Environment {
		if p.Kind != auth.KindSession {
			return core.Invalid("environment", "an API key can only create keys in its own environment")
		}
		if !tenant.HoldingOf(p).Holds(env, auth.ScopeKeysManage) {
			return auth.Principal{}.Require(auth.ScopeKeysManage)
		}
	}
	if p.KeyExpiresAt != nil && (expiresAt == nil || expiresAt.After(*p.KeyExpiresAt)) {
		return core.Invalid("expiresAt", "must be set, and no later than the expiry of the key making the request ("+
			p.KeyExpiresAt.UTC().Format(time.RFC3339)+")")
	}
	return auth.AuthorizeGrant(p, tenant.HoldingOf(p), auth.Grant{Kind: auth.GrantKey, Scopes: auth.Holding{env: scopes}})
}

// ListKeys returns key metadata for the caller's environment, never a secret.
func (s *Service) ListKeys(ctx context.Context, p auth.Principal, page ports.Page) ([]tenant.APIKey, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeKeysManage); err != nil {
		return nil, 0, err
	}
	var keys []tenant.APIKey
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		keys, total, err = tx.APIKeys().ListAPIKeys(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	return keys, total, err
}

// RevokeKey soft-revokes a key; revoking a revoked key returns it unchanged. The caller must
// hold every scope of the key it revokes (auth.AuthorizeRevoke): a limited credential cannot
// take down a stronger one.
func (s *Service) RevokeKey(ctx context.Context, p auth.Principal, id string) (tenant.APIKey, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeKeysManage); err != nil {
		return tenant.APIKey{}, err
	}
	var k tenant.APIKey
	// The cached rows are dropped before and after: the revocation takes effect on this
	// instance at once, whenever the caller's transaction commits (keyCache).
	s.keys.invalidate()
	defer s.keys.invalidate()
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		target, err := tx.APIKeys().FindAPIKey(ctx, p.TenantID, p.Environment, id)
		if err != nil {
			return err
		}
		if err := auth.AuthorizeRevoke(tenant.HoldingOf(p), auth.GrantKey, keyHolding(target)); err != nil {
			return err
		}
		if err := tx.APIKeys().RevokeAPIKey(ctx, p.TenantID, p.Environment, id, s.clock.Now()); err != nil {
			return err
		}
		k, err = tx.APIKeys().FindAPIKey(ctx, p.TenantID, p.Environment, id)
		return err
	})
	return k, err
}

// keyHolding is what a key holds, for the revoke rule: its scopes in its own environment, an
// agent's less the forbidden set.
func keyHolding(k tenant.APIKey) auth.Holding {
	scopes := k.Scopes
	if k.AgentID != "" {
		scopes = auth.StripAgentForbidden(scopes)
	}
	return auth.Holding{k.Environment: scopes}
}
