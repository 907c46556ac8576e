package api

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// A unit of work the store retries (a serialization failure at commit) runs its closure again
// from the start: what a rolled-back run resolved must not survive into the retried one.

// resolveSpyTx reports when the closure resolves user's tenant.
type resolveSpyTx struct {
	ports.Tx
	user     string
	resolved *bool
}

func (t resolveSpyTx) Tenants() ports.TenantRepo {
	return resolveSpyRepo{TenantRepo: t.Tx.Tenants(), user: t.user, resolved: t.resolved}
}

type resolveSpyRepo struct {
	ports.TenantRepo
	user     string
	resolved *bool
}

func (r resolveSpyRepo) FindTenantForUser(ctx context.Context, userID string) (tenant.Tenant, *tenant.Member, error) {
	t, m, err := r.TenantRepo.FindTenantForUser(ctx, userID)
	if userID == r.user && err == nil {
		*r.resolved = true
	}
	return t, m, err
}

// TestAuth_SessionRetriedAfterRevocation: a member's session is being resolved when the member
// is revoked and the unit of work is retried; the retried run finds no membership, so the
// request has no tenant (403 TENANT_REQUIRED), not the role the rolled-back run found.
func TestAuth_SessionRetriedAfterRevocation(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	inv := ten.Session.Post("/v1/tenants/members", map[string]any{"email": "retry@example.com", "role": "ADMIN"}).Expect(t, 201).JSON(t)
	userID, token := e.NewUserWithEmail(t, "retry@example.com")
	accepted := e.Client(t).WithSession(token).Post("/v1/tenants/members/accept", map[string]any{
		"token": inv["inviteToken"], "signerAddress": signerN(7),
	}).Expect(t, 200).JSON(t)
	memberID, _ := accepted["id"].(string)
	if memberID == "" {
		t.Fatalf("accepted member %v", accepted)
	}
	e.Client(t).WithSession(token).Get("/v1/wallets").Expect(t, 200)

	var injected atomic.Int64
	srv := harness.NewServer(t, func(c *wiring.Config) {
		c.WrapStore = func(s ports.Store) ports.Store {
			return harness.RetryOnce{Store: s, Injected: &injected,
				Watch: func(tx ports.Tx, hit *bool) ports.Tx { return resolveSpyTx{Tx: tx, user: userID, resolved: hit} },
				Between: func() {
					ten.Session.Post("/v1/tenants/members/"+memberID+"/revoke", nil).Expect(t, 200)
				}}
		}
	})
	srv.Client(t).WithSession(token).Get("/v1/wallets").ExpectError(t, 403, "TENANT_REQUIRED")
	if injected.Load() != 1 {
		t.Fatal("no serialization failure was injected: the test proves nothing")
	}
}
