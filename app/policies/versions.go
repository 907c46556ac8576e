package policies

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
)

// CreatePolicyVersion appends a version compiled from the document and moves the active
// pointer to it. Earlier versions are never changed.
func (s *Service) CreatePolicyVersion(ctx context.Context, p auth.Principal, id string, raw []byte) (policy.Version, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesWrite); err != nil {
		return policy.Version{}, err
	}
	doc, err := parseDocument(raw)
	if err != nil {
		return policy.Version{}, err
	}
	var v policy.Version
	err = s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		locked, err := tx.Policies().LockPolicy(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		v = policy.NewVersion(core.NewID(core.PrefixVersion), locked.ID, locked.ActiveVersion+1, doc, raw, s.clock.Now().UTC())
		next, err := locked.Activate(v)
		if err != nil {
			return err
		}
		if err := tx.Policies().CreateVersion(ctx, locked.TenantID, v); err != nil {
			return err
		}
		return tx.Policies().UpdatePolicy(ctx, next)
	})
	return v, err
}

// ListPolicyVersions lists a policy's versions, oldest first.
func (s *Service) ListPolicyVersions(ctx context.Context, p auth.Principal, id string, page ports.Page) ([]policy.Version, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesRead); err != nil {
		return nil, 0, err
	}
	var out []policy.Version
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		pol, err := tx.Policies().FindPolicy(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		out, total, err = tx.Policies().ListVersions(ctx, pol.TenantID, pol.ID, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}
