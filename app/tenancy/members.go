package tenancy

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// maxOwnershipScan bounds the wallets a member revoke looks at.
const maxOwnershipScan = 1000

// InviteInput is the body of POST /v1/tenants/members.
type InviteInput struct {
	Email       string
	DisplayName string
	Role        string
}

// Invited carries the one-time invite token; only its hash is stored.
type Invited struct {
	Member      tenant.Member
	InviteToken string
}

// inviteTokenBytes is the CSPRNG entropy of an invite token.
const inviteTokenBytes = 32

// InviteMember creates a PENDING member with a one-time token.
func (s *Service) InviteMember(ctx context.Context, p auth.Principal, in InviteInput) (Invited, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeMembersManage); err != nil {
		return Invited{}, err
	}
	errs := core.FieldErrors{}
	email, err := tenant.ValidateEmail("email", in.Email)
	if err != nil {
		errs.Add("email", kernel.FieldReason(err, "email"))
	}
	role, err := tenant.ParseRole(in.Role)
	if err != nil {
		errs.Add("role", kernel.FieldReason(err, "role"))
	}
	if err := tenant.ValidateName("displayName", in.DisplayName, false); err != nil {
		errs.Add("displayName", kernel.FieldReason(err, "displayName"))
	}
	if err := errs.Err(); err != nil {
		return Invited{}, err
	}
	// A member role is tenant-wide: the inviter must hold the role's scopes in both environments.
	if err := auth.AuthorizeGrant(p, tenant.HoldingOf(p), auth.Grant{Kind: auth.GrantMember, Scopes: tenant.RoleGrant(role)}); err != nil {
		return Invited{}, err
	}
	now := s.clock.Now()
	token := "inv_" + core.RandomToken(inviteTokenBytes)
	m := tenant.Member{
		ID: core.NewID(core.PrefixMember), TenantID: p.TenantID, Email: email,
		DisplayName: strings.TrimSpace(in.DisplayName), Role: role, Status: tenant.MemberPending,
		InviteTokenHash: auth.HashSecret(token), InviteExpiresAt: now.Add(tenant.InviteLifetime), CreatedAt: now,
	}
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		return tx.Members().CreateMember(ctx, m)
	})
	return Invited{Member: m, InviteToken: token}, err
}

// ListMembers lists the tenant's members.
func (s *Service) ListMembers(ctx context.Context, p auth.Principal, page ports.Page) ([]tenant.Member, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeMembersRead); err != nil {
		return nil, 0, err
	}
	var out []tenant.Member
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, total, err = tx.Members().ListMembers(ctx, p.TenantID, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// AcceptInput is the body of POST /v1/tenants/members/accept.
type AcceptInput struct {
	Token         string
	SignerAddress string
	DisplayName   string
	// IdentityUserID links the member to an identity-provider user: the accept request's
	// session, which then resolves to this tenant.
	IdentityUserID string
	// IdentityEmail is that session's verified email; it must equal the invited email.
	IdentityEmail string
}

// AcceptInvite activates a member once. The token names the invite; the caller's session must
// be the invitee's (its verified email equals the invited one), so a leaked token is useless.
func (s *Service) AcceptInvite(ctx context.Context, in AcceptInput) (tenant.Member, error) {
	errs := core.FieldErrors{}
	if strings.TrimSpace(in.Token) == "" {
		errs.Add("token", "is required")
	}
	signer, err := tenant.ValidateAddress("signerAddress", in.SignerAddress)
	if in.SignerAddress == "" {
		errs.Add("signerAddress", "is required")
	} else if err != nil {
		errs.Add("signerAddress", kernel.FieldReason(err, "signerAddress"))
	}
	if err := tenant.ValidateName("displayName", in.DisplayName, false); err != nil {
		errs.Add("displayName", kernel.FieldReason(err, "displayName"))
	}
	if err := errs.Err(); err != nil {
		return tenant.Member{}, err
	}
	if in.IdentityUserID == "" {
		return tenant.Member{}, core.E(core.CodeUnauthenticated,
			"accepting an invite needs the invited person's session (Authorization: Bearer <session token>) beside the invite token")
	}
	var m tenant.Member
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		found, err := tx.Members().FindMemberByInviteHashForUpdate(ctx, auth.HashSecret(in.Token))
		if err != nil {
			return err
		}
		if err := found.CheckInvitee(in.IdentityEmail); err != nil {
			return err
		}
		m, err = found.Accept(signer, strings.TrimSpace(in.DisplayName), in.IdentityUserID, s.clock.Now())
		if err != nil {
			return err
		}
		return tx.Members().UpdateMember(ctx, m)
	})
	return m, err
}

// RevokedMember is the revoke response: the member and the wallets where its signer is still
// an owner, which revoking the member does not change on chain.
type RevokedMember struct {
	Member                tenant.Member
	StillOwnerOfWalletIDs []string
}

// RevocationRead is what a member revoke reads before its unit of work: the wallets where the
// member's signer is still an owner, read from the chain by ReadRevocation.
type RevocationRead struct {
	tenantID           string
	memberID           string
	stillOwnerOfWallet []string
}

// ReadRevocation finds the member and reads, outside any transaction, which of the tenant's
// wallets its signer still owns (see WalletOwners). Only the caller's environment's wallets are
// listed (in a short read of their own), so the answer never names the other environment's
// wallets. It must be called outside any unit of work: it reads the chain.
func (s *Service) ReadRevocation(ctx context.Context, p auth.Principal, id string) (RevocationRead, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeMembersManage); err != nil {
		return RevocationRead{}, err
	}
	var m tenant.Member
	var wallets []wallet.Wallet
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		if m, err = tx.Members().FindMember(ctx, p.TenantID, id); err != nil {
			return err
		}
		if err := canRevokeMember(p, m); err != nil {
			return err
		}
		wallets = nil
		if m.SignerAddress != "" {
			wallets, err = tx.Wallets().ListTenantWallets(ctx, p.TenantID, p.Environment, maxOwnershipScan)
		}
		return err
	})
	if err != nil {
		return RevocationRead{}, err
	}
	return RevocationRead{tenantID: p.TenantID, memberID: m.ID,
		stillOwnerOfWallet: s.walletOwners.WalletsOwnedBy(ctx, wallets, m.SignerAddress)}, nil
}

// RevokeMember revokes a member and, in the same transaction, every API key the member created
// (in both environments: a member is tenant-wide) and every key those keys minted; revoking
// twice is harmless. The wallets its signer still owns come from ReadRevocation: this unit of
// work makes no network call.
func (s *Service) RevokeMember(ctx context.Context, p auth.Principal, read RevocationRead) (RevokedMember, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeMembersManage); err != nil {
		return RevokedMember{}, err
	}
	if read.tenantID == "" || read.tenantID != p.TenantID {
		return RevokedMember{}, core.E(core.CodeInternal, "a revocation read was used for another caller")
	}
	var out RevokedMember
	// The member's keys are revoked below: cached key rows are dropped (RevokeKey).
	s.keys.invalidate()
	defer s.keys.invalidate()
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		m, err := tx.Members().FindMember(ctx, p.TenantID, read.memberID)
		if err != nil {
			return err
		}
		if err := canRevokeMember(p, m); err != nil {
			return err
		}
		now := s.clock.Now()
		m = m.Revoke(now)
		out = RevokedMember{Member: m, StillOwnerOfWalletIDs: append([]string{}, read.stillOwnerOfWallet...)}
		if _, err := tx.APIKeys().RevokeKeysCreatedByMember(ctx, p.TenantID, m.ID, now); err != nil {
			return err
		}
		return tx.Members().UpdateMember(ctx, m)
	})
	return out, err
}

// canRevokeMember is the revoke rule for people: a member's role acts in both environments, so
// the caller must hold the role's scopes in TEST and in LIVE (auth.AuthorizeRevoke). Revoking
// a MEMBER needs what a MEMBER holds; revoking an ADMIN needs what an ADMIN holds.
func canRevokeMember(p auth.Principal, m tenant.Member) error {
	return auth.AuthorizeRevoke(tenant.HoldingOf(p), auth.GrantMember, tenant.RoleGrant(m.Role))
}

// ChangeRoleInput is the body of PATCH /v1/tenants/members/{id}.
type ChangeRoleInput struct {
	Role string
}

// ChangeMemberRole gives a member another role (ADMIN or MEMBER). It follows the grant rule
// both ways: the caller must hold, in TEST and in LIVE, every power of the role it gives
// (auth.AuthorizeGrant, as an invite of that role) and of the role it takes away
// (auth.AuthorizeRevoke, as revoking the member). The tenant's OWNER is not a member row and
// OWNER is not a member role, so ownership can neither be given nor taken here and the tenant
// always keeps its owner. A change records member.role_changed in the caller's environment, with
// who made it: the tenant's audit of role changes. Another tenant's member is 404.
func (s *Service) ChangeMemberRole(ctx context.Context, p auth.Principal, id string, in ChangeRoleInput) (tenant.Member, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeMembersManage); err != nil {
		return tenant.Member{}, err
	}
	if strings.TrimSpace(in.Role) == "" {
		return tenant.Member{}, core.Invalid("role", "is required: ADMIN or MEMBER")
	}
	role, err := tenant.ParseRole(in.Role)
	if err != nil {
		return tenant.Member{}, core.Invalid("role", kernel.FieldReason(err, "role"))
	}
	var out tenant.Member
	// A role change changes what the member's sessions hold on their next request; keys the
	// member created keep their own scopes (a key never holds more than it was given).
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		m, err := tx.Members().FindMember(ctx, p.TenantID, id)
		if err != nil {
			return err
		}
		if err := canChangeRole(p, m.Role, role); err != nil {
			return err
		}
		previous := m.Role
		if out, err = m.ChangeRole(role); err != nil || previous == role {
			return err
		}
		if err := tx.Members().UpdateMember(ctx, out); err != nil {
			return err
		}
		return kernel.RecordChangeEvent(ctx, tx, p.TenantID, p.Environment, "member", out.ID, "ROLE_CHANGED", string(out.Status),
			s.clock.Now(), map[string]any{"role": string(out.Role), "previousRole": string(previous), "changedBy": actorOf(p)})
	})
	return out, err
}

// canChangeRole is the grant rule for a role change: removing the old role's powers needs what
// revoking such a member needs, and giving the new role's powers needs what inviting one needs.
func canChangeRole(p auth.Principal, from, to tenant.Role) error {
	if err := canRevokeMember(p, tenant.Member{Role: from}); err != nil {
		return err
	}
	return auth.AuthorizeGrant(p, tenant.HoldingOf(p), auth.Grant{Kind: auth.GrantMember, Scopes: tenant.RoleGrant(to)})
}

// actorOf names who acted, for an event's audit fields: the key's id, or the session's member
// id (the owner has none) or user id. Never a secret.
func actorOf(p auth.Principal) string {
	switch {
	case p.KeyID != "":
		return p.KeyID
	case p.MemberID != "":
		return p.MemberID
	default:
		return p.UserID
	}
}
