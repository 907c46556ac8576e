package console

import (
	"context"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/tenancy"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/tenant"
)

// memberPages are the tenant's members: the list, an invite (its one-time token shown once)
// and a revoke. Each form calls the same use case as the API (members:manage, the grant rule),
// so the console never decides who may grant what.
type memberPages struct{ *Console }

func (k memberPages) memberRoutes(r fiber.Router) {
	r.Get("/members", k.members)
	r.Post("/members", k.invite)
	r.Post("/members/:id/revoke", k.revoke)
	r.Post("/members/:id/role", k.changeRole)
}

type membersData struct {
	Members []tenant.Member
	Page    *pager
	Roles   []tenant.Role
	Invited *flash
	// Manage: the member's role holds members:manage, so the page renders the invite, role
	// and revoke forms; without it the page only lists (the use cases refuse it all the same).
	Manage bool
}

func (k memberPages) members(c *fiber.Ctx) error {
	notice, invited := k.takeSecretFlash(c, "member")
	page, pg := pageOf(c)
	list, total, err := k.svc.Tenancy.ListMembers(c.UserContext(), principal(c), page)
	if err != nil {
		return k.fail(c, err)
	}
	pg.Total = total
	return k.render(c, fiber.StatusOK, "members", "Members", notice,
		membersData{Members: list, Page: pg, Roles: []tenant.Role{tenant.RoleMember, tenant.RoleAdmin}, Invited: invited,
			Manage: can(c, auth.ScopeMembersManage)})
}

// invite creates a pending member; the invite token is shown on the next page only, since only
// its hash is kept.
func (k memberPages) invite(c *fiber.Ctx) error {
	in := tenancy.InviteInput{Email: strings.TrimSpace(c.FormValue("email")), DisplayName: strings.TrimSpace(c.FormValue("displayName")),
		Role: c.FormValue("role")}
	return k.runOnce(c, func(ctx context.Context) (outcome, error) {
		inv, err := k.svc.Tenancy.InviteMember(ctx, principal(c), in)
		if err != nil {
			return outcome{}, err
		}
		return outcome{Location: Prefix + "/members",
			First: flash{Kind: "member", ID: inv.Member.ID, Label: inv.Member.Email, Secret: inv.InviteToken,
				Notice: "Invited " + inv.Member.Email + ". Send them the invite token now: it is shown only once."},
			Again: flash{Kind: "member", ID: inv.Member.ID,
				Notice: "This form was already submitted: " + inv.Member.Email + " was invited then, once. The token was shown on that first answer only: if it was lost, revoke the invite and invite again."},
		}, nil
	})
}

// changeRole gives a member the role chosen in its row's form, as PATCH
// /v1/tenants/members/{id} does: the same use case, so the grant rule decides.
func (k memberPages) changeRole(c *fiber.Ctx) error {
	id, in := c.Params("id"), tenancy.ChangeRoleInput{Role: c.FormValue("role")}
	return k.runOnce(c, func(ctx context.Context) (outcome, error) {
		m, err := k.svc.Tenancy.ChangeMemberRole(ctx, principal(c), id, in)
		if err != nil {
			return outcome{}, err
		}
		return outcome{Location: Prefix + "/members",
			First: flash{Kind: "member", Notice: m.Email + " is now " + string(m.Role) + "."},
			Again: flash{Kind: "member", Notice: "This form was already submitted: " + m.Email + " is " + string(m.Role) + "."},
		}, nil
	})
}

// revoke reads what the revocation needs (the wallets the member's signer still owns) and then
// revokes the member and its keys, as POST /v1/tenants/members/{id}/revoke does.
func (k memberPages) revoke(c *fiber.Ctx) error {
	read, err := k.svc.Tenancy.ReadRevocation(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return k.fail(c, err)
	}
	return k.runOnce(c, func(ctx context.Context) (outcome, error) {
		out, err := k.svc.Tenancy.RevokeMember(ctx, principal(c), read)
		if err != nil {
			return outcome{}, err
		}
		notice := "Member " + out.Member.Email + " revoked, with the API keys they created."
		if n := len(out.StillOwnerOfWalletIDs); n > 0 {
			notice += " Their signer still owns " + strings.Join(out.StillOwnerOfWalletIDs, ", ") + ": change those Safes' owners."
		}
		return outcome{Location: Prefix + "/members",
			First: flash{Kind: "member", Notice: notice},
			Again: flash{Kind: "member", Notice: "This form was already submitted: the member was revoked then."},
		}, nil
	})
}
