package http

import (
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/tenancy"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ports"
)

func (h *tenancyHandlers) createTenant(c *fiber.Ctx) error {
	var req tenantCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	view, created, err := h.svc.CreateTenant(c.UserContext(), principal(c), tenancy.CreateTenantInput{Name: req.Name, Slug: req.Slug})
	if err != nil {
		return err
	}
	status := fiber.StatusOK
	if created {
		status = fiber.StatusCreated
	}
	return c.Status(status).JSON(toTenant(view))
}

func (h *tenancyHandlers) currentTenant(c *fiber.Ctx) error {
	view, err := h.svc.CurrentTenant(c.UserContext(), principal(c))
	if err != nil {
		return err
	}
	return c.JSON(toTenant(view))
}

func (h *tenancyHandlers) inviteMember(c *fiber.Ctx) error {
	var req memberInviteRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	inv, err := h.svc.InviteMember(c.UserContext(), principal(c),
		tenancy.InviteInput{Email: req.Email, DisplayName: req.DisplayName, Role: req.Role})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(memberInviteResponse{memberResponse: toMember(inv.Member), InviteToken: inv.InviteToken})
}

func (h *tenancyHandlers) listMembers(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	members, total, err := h.svc.ListMembers(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := memberListResponse{Members: make([]memberResponse, len(members)), Total: total}
	for i, m := range members {
		out.Members[i] = toMember(m)
	}
	return c.JSON(out)
}

func (h *tenancyHandlers) changeMemberRole(c *fiber.Ctx) error {
	var req memberRoleRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	m, err := h.svc.ChangeMemberRole(c.UserContext(), principal(c), c.Params("id"), tenancy.ChangeRoleInput{Role: req.Role})
	if err != nil {
		return err
	}
	return c.JSON(toMember(m))
}

func (h *tenancyHandlers) acceptInvite(c *fiber.Ctx) error {
	var req memberAcceptRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	in := tenancy.AcceptInput{Token: req.Token, SignerAddress: req.SignerAddress, DisplayName: req.DisplayName}
	if p, ok := principalOf(c); ok && p.Kind == auth.KindSession {
		in.IdentityUserID, in.IdentityEmail = p.UserID, p.Email
	}
	m, err := h.svc.AcceptInvite(c.UserContext(), in)
	if err != nil {
		return err
	}
	return c.JSON(toMember(m))
}

// revokeMember reads which wallets the member's signer still owns on chain outside the
// runner's unit of work, then revokes inside it.
func (h *tenancyHandlers) revokeMember(c *fiber.Ctx) (fiber.Handler, error) {
	read, err := h.svc.ReadRevocation(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		out, err := h.svc.RevokeMember(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.JSON(memberRevokeResponse{ID: out.Member.ID, Status: string(out.Member.Status), StillOwnerOfWalletIDs: out.StillOwnerOfWalletIDs})
	}, nil
}

func (h *tenancyHandlers) createKey(c *fiber.Ctx) error {
	var req apiKeyCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	in := tenancy.CreateKeyInput{Name: req.Name, Environment: req.Environment}
	if req.Scopes != nil {
		in.Scopes, in.ScopesSet = *req.Scopes, true
	}
	if req.ExpiresAt != "" {
		t, err := time.Parse(time.RFC3339, req.ExpiresAt)
		if err != nil {
			return core.Invalid("expiresAt", "must be an RFC 3339 timestamp such as 2027-01-31T00:00:00Z")
		}
		t = t.UTC().Truncate(time.Microsecond)
		in.ExpiresAt = &t
	}
	k, err := h.svc.CreateKey(c.UserContext(), principal(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(apiKeyCreateResponse{apiKeyResponse: toAPIKey(k.Key, h.svc.Now()), Key: k.Plaintext})
}

func (h *tenancyHandlers) listKeys(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	keys, total, err := h.svc.ListKeys(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	now := h.svc.Now()
	out := apiKeyListResponse{APIKeys: make([]apiKeyResponse, len(keys)), Total: total}
	for i, k := range keys {
		out.APIKeys[i] = toAPIKey(k, now)
	}
	return c.JSON(out)
}

func (h *tenancyHandlers) revokeKey(c *fiber.Ctx) error {
	k, err := h.svc.RevokeKey(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toAPIKey(k, h.svc.Now()))
}

// pageOf reads skip and take (take at most 100, default 100).
func pageOf(c *fiber.Ctx) (ports.Page, error) {
	errs := core.FieldErrors{}
	page := pageInto(c, errs)
	return page, errs.Err()
}

// pageInto reads skip and take, recording a bad one in errs (for lists with more parameters).
func pageInto(c *fiber.Ctx, errs core.FieldErrors) ports.Page {
	skip, err := queryInt(c, "skip", 0, ports.MaxSkip)
	if err != nil {
		errs.Add("skip", "must be an integer from 0 to "+strconv.Itoa(ports.MaxSkip))
	}
	take, err := queryInt(c, "take", ports.MaxTake, ports.MaxTake)
	if err != nil {
		errs.Add("take", "must be an integer from 1 to 100")
	}
	if take == 0 && c.Query("take") != "" {
		errs.Add("take", "must be an integer from 1 to 100")
	}
	return ports.Page{Skip: skip, Take: take}
}
