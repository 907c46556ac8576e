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

// Bounds of the policies capability.
const (
	policyNameMaxLength = 200
	// policyAttachmentsCap bounds the attachments listed for one policy.
	policyAttachmentsCap = 1000
)

// CreatePolicyInput is the body of POST /v1/policies. Document is the raw JSON document (nil
// when absent), parsed strictly by core/policy so every error names its full field path.
type CreatePolicyInput struct {
	Name     string
	Document []byte
}

// parseDocument reads a required document field.
func parseDocument(raw []byte) (policy.Document, error) {
	if len(raw) == 0 || strings.TrimSpace(string(raw)) == "null" {
		return policy.Document{}, core.Invalid("document", "is required")
	}
	return policy.ParseDocument("document", raw)
}

// CreatePolicy compiles the document into immutable version 1 and activates it.
func (s *Service) CreatePolicy(ctx context.Context, p auth.Principal, in CreatePolicyInput) (policy.Policy, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesWrite); err != nil {
		return policy.Policy{}, err
	}
	errs := core.FieldErrors{}
	name := strings.TrimSpace(in.Name)
	switch {
	case name == "":
		errs.Add("name", "is required")
	case len(name) > policyNameMaxLength:
		errs.Add("name", "must be at most 200 characters")
	case core.TextProblem(name) != "":
		errs.Add("name", core.TextProblem(name))
	}
	doc, err := parseDocument(in.Document)
	errs.Merge(err)
	if err := errs.Err(); err != nil {
		return policy.Policy{}, err
	}
	now := s.clock.Now().UTC()
	pol := policy.Policy{ID: core.NewID(core.PrefixPolicy), TenantID: p.TenantID, Environment: p.Environment,
		Name: name, Status: policy.StatusActive, CreatedAt: now}
	v := policy.NewVersion(core.NewID(core.PrefixVersion), pol.ID, 1, doc, in.Document, now)
	pol, err = pol.Activate(v)
	if err != nil {
		return policy.Policy{}, err
	}
	err = s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		return tx.Policies().CreatePolicy(ctx, pol, v)
	})
	return pol, err
}

// GetPolicy returns one of the caller's policies (archived ones too).
func (s *Service) GetPolicy(ctx context.Context, p auth.Principal, id string) (policy.Policy, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesRead); err != nil {
		return policy.Policy{}, err
	}
	var pol policy.Policy
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		pol, err = tx.Policies().FindPolicy(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		return err
	})
	return pol, err
}

// ListPolicies lists the caller's policies of its environment, oldest first.
func (s *Service) ListPolicies(ctx context.Context, p auth.Principal, page ports.Page) ([]policy.Policy, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesRead); err != nil {
		return nil, 0, err
	}
	var out []policy.Policy
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, total, err = tx.Policies().ListPolicies(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// ArchivePolicy archives a policy and detaches it from every subject in the same unit of
// work. Archiving an archived policy returns it unchanged.
func (s *Service) ArchivePolicy(ctx context.Context, p auth.Principal, id string) (policy.Policy, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesWrite); err != nil {
		return policy.Policy{}, err
	}
	var pol policy.Policy
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		locked, err := tx.Policies().LockPolicy(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		if _, err := tx.Policies().DetachAll(ctx, locked.TenantID, locked.ID, now); err != nil {
			return err
		}
		pol = locked.Archive(now)
		return tx.Policies().UpdatePolicy(ctx, pol)
	})
	return pol, err
}
