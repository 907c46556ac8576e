package tenant

import (
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
)

// Role of a member in a tenant.
type Role string

const (
	RoleAdmin  Role = "ADMIN"
	RoleMember Role = "MEMBER"
)

// MemberStatus follows docs/api.md: PENDING on invite, ACTIVE on accept, REVOKED on revoke.
type MemberStatus string

const (
	MemberPending MemberStatus = "PENDING"
	MemberActive  MemberStatus = "ACTIVE"
	MemberRevoked MemberStatus = "REVOKED"
)

// InviteLifetime bounds how long an invite token can be accepted.
const InviteLifetime = 7 * 24 * time.Hour

// Member is a person invited into a tenant.
type Member struct {
	ID              string
	TenantID        string
	Email           string
	DisplayName     string
	Role            Role
	Status          MemberStatus
	SignerAddress   string
	IdentityUserID  string
	InviteTokenHash string
	InviteExpiresAt time.Time
	CreatedAt       time.Time
	AcceptedAt      *time.Time
	RevokedAt       *time.Time
}

// ParseRole accepts ADMIN or MEMBER (default MEMBER when empty).
func ParseRole(s string) (Role, error) {
	switch Role(strings.ToUpper(s)) {
	case "":
		return RoleMember, nil
	case RoleAdmin:
		return RoleAdmin, nil
	case RoleMember:
		return RoleMember, nil
	}
	return "", core.Invalid("role", "must be ADMIN or MEMBER")
}

// ValidateEmail is a deliberately small check: one @, a dot in the domain, no spaces.
func ValidateEmail(field, email string) (string, error) {
	email = strings.TrimSpace(email)
	if email == "" {
		return "", core.Invalid(field, "is required")
	}
	at := strings.LastIndex(email, "@")
	if at < 1 || at == len(email)-1 || strings.ContainsAny(email, " \t\r\n") || len(email) > 254 ||
		!strings.Contains(email[at+1:], ".") {
		return "", core.Invalid(field, "must be an email address")
	}
	return strings.ToLower(email), nil
}

// Accept moves a pending invite to ACTIVE. An invite is accepted once only.
func (m Member) Accept(signer, displayName, identityUserID string, now time.Time) (Member, error) {
	switch {
	case m.Status == MemberActive:
		return m, core.E(core.CodeInvalidState, "this invite was already accepted")
	case m.Status == MemberRevoked:
		return m, core.E(core.CodeInvalidState, "this invite was revoked")
	case !now.Before(m.InviteExpiresAt):
		return m, core.E(core.CodeInvalidState, "this invite expired")
	}
	m.Status = MemberActive
	m.SignerAddress = signer
	if displayName != "" {
		m.DisplayName = displayName
	}
	if identityUserID != "" {
		m.IdentityUserID = identityUserID
	}
	m.AcceptedAt = &now
	return m, nil
}

// Revoke moves a member to REVOKED; revoking twice is harmless.
func (m Member) Revoke(now time.Time) Member {
	if m.Status == MemberRevoked {
		return m
	}
	m.Status = MemberRevoked
	m.RevokedAt = &now
	return m
}

// ChangeRole gives an ACTIVE or PENDING member another role. A revoked member keeps the role it
// had when it was revoked: its sessions and keys are gone, and a new role would be a grant nobody
// can use, so it answers INVALID_STATE. Setting the role it already has changes nothing.
func (m Member) ChangeRole(role Role) (Member, error) {
	if m.Status == MemberRevoked {
		return m, core.E(core.CodeInvalidState, "this member was revoked: invite the person again instead")
	}
	m.Role = role
	return m, nil
}

// CodeInviteEmailMismatch refuses an invite accepted by someone other than its invitee (docs/decisions/tenancy.md).
const CodeInviteEmailMismatch core.Code = "INVITE_EMAIL_MISMATCH"

// CheckInvitee binds an invite to its email: only a session whose verified identity email
// equals the invited one, compared case-insensitively, may accept it. An empty session email
// (the provider did not verify one) never matches.
func (m Member) CheckInvitee(sessionEmail string) error {
	if sessionEmail == "" || !strings.EqualFold(strings.TrimSpace(sessionEmail), m.Email) {
		return core.E(CodeInviteEmailMismatch,
			"this invite was sent to another email address: sign in as the invited person (a verified identity email equal to the invite's) to accept it")
	}
	return nil
}
