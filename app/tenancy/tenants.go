package tenancy

import (
	"context"
	"errors"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
)

// maxSlugAttempts bounds the numeric suffixes (slug-2 … slug-20) tried for a taken slug.
const maxSlugAttempts = 20

// TenantView is a tenant as its caller sees it.
type TenantView struct {
	Tenant tenant.Tenant
	Role   string
}

// CreateTenantInput is the body of POST /v1/tenants.
type CreateTenantInput struct {
	Name string
	Slug string
}

// CreateTenant creates the session user's tenant, or returns the one it already has
// (created=false). Only sessions may call it: it is the one write that needs no tenant.
func (s *Service) CreateTenant(ctx context.Context, p auth.Principal, in CreateTenantInput) (TenantView, bool, error) {
	if p.Kind != auth.KindSession {
		return TenantView{}, false, core.E(core.CodeUnauthenticated, "creating a tenant needs an identity-provider session (Authorization: Bearer …), not an API key")
	}
	if err := validateTenantInput(in); err != nil {
		return TenantView{}, false, err
	}
	var view TenantView
	created := false
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		// A retried run decides afresh: "created" from a rolled-back insert must not be
		// reported when the retry finds the tenant another request created.
		view, created = TenantView{}, false
		if err := tx.Tenants().LockUser(ctx, p.UserID); err != nil {
			return err
		}
		existing, member, err := tx.Tenants().FindTenantForUser(ctx, p.UserID)
		if err == nil {
			view = TenantView{Tenant: existing, Role: tenant.RoleFor(existing, p.UserID, member)}
			return nil
		}
		if !errors.Is(err, &core.Error{Code: core.CodeTenantNotFound}) {
			return err
		}
		t, err := s.insertTenant(ctx, tx, p.UserID, in)
		view, created = TenantView{Tenant: t, Role: "OWNER"}, true
		return err
	})
	return view, created, err
}

func validateTenantInput(in CreateTenantInput) error {
	if err := tenant.ValidateName("name", in.Name, false); err != nil {
		return err
	}
	if in.Slug != "" {
		return tenant.ValidateSlug(in.Slug)
	}
	return nil
}

// insertTenant tries the wanted slug, then slug-2, slug-3… until one is free.
func (s *Service) insertTenant(ctx context.Context, tx txView, userID string, in CreateTenantInput) (tenant.Tenant, error) {
	base := in.Slug
	if base == "" {
		base = tenant.SlugFromName(in.Name)
	}
	name := in.Name
	if name == "" {
		name = base
	}
	t := tenant.Tenant{ID: core.NewID(core.PrefixTenant), Name: name, OwnerUserID: userID, CreatedAt: s.clock.Now()}
	for n := 1; n <= maxSlugAttempts; n++ {
		t.Slug = tenant.SlugCandidate(base, n)
		err := tx.Tenants().CreateTenant(ctx, t)
		if !errors.Is(err, ports.ErrSlugTaken) {
			return t, err
		}
	}
	// A popular name: past the numeric suffixes, a random one (collisions are then negligible,
	// and a few tries bound the loop).
	for i := 0; i < 5; i++ {
		t.Slug = base + "-" + core.RandomToken(4)
		err := tx.Tenants().CreateTenant(ctx, t)
		if !errors.Is(err, ports.ErrSlugTaken) {
			return t, err
		}
	}
	return tenant.Tenant{}, core.E(core.CodeInternal, "no free slug for %q", base)
}

// CurrentTenant returns the caller's tenant.
func (s *Service) CurrentTenant(ctx context.Context, p auth.Principal) (TenantView, error) {
	if err := p.RequireTenant(); err != nil {
		return TenantView{}, err
	}
	var view TenantView
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		if p.Kind == auth.KindSession {
			t, m, err := tx.Tenants().FindTenantForUser(ctx, p.UserID)
			view = TenantView{Tenant: t, Role: tenant.RoleFor(t, p.UserID, m)}
			return err
		}
		t, err := tx.Tenants().FindTenant(ctx, p.TenantID)
		view = TenantView{Tenant: t, Role: "OWNER"}
		return err
	})
	return view, err
}
