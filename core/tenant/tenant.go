// Package tenant holds the pure rules of tenants, members and API keys.
package tenant

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ethereum/go-ethereum/common"
	"golang.org/x/text/unicode/norm"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
)

// Tenant is a partner organisation; it owns every other resource. Tenants span both
// environments, like a Stripe account: their keys and resources carry the environment.
type Tenant struct {
	ID          string
	Slug        string
	Name        string
	OwnerUserID string
	CreatedAt   time.Time
}

// MaxSlugLength bounds slugs, suffix included.
const MaxSlugLength = 48

var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidateSlug checks a client-supplied slug: lowercase letters, digits and single hyphens.
func ValidateSlug(slug string) error {
	if len(slug) < 2 || len(slug) > MaxSlugLength-4 {
		return core.Invalid("slug", "must be 2 to 44 characters")
	}
	if !slugPattern.MatchString(slug) {
		return core.Invalid("slug", "must be lowercase letters, digits and single hyphens, starting and ending with a letter or digit")
	}
	return nil
}

// SlugFromName derives a slug from a display name ("Acme Pay, Inc." → "acme-pay-inc").
func SlugFromName(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range stripMarks(strings.ToLower(name)) {
		switch {
		case (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			b.WriteRune(r)
			hyphen = false
		case b.Len() > 0 && !hyphen:
			b.WriteByte('-')
			hyphen = true
		}
	}
	slug := strings.Trim(b.String(), "-")
	if len(slug) > MaxSlugLength-4 {
		slug = strings.Trim(slug[:MaxSlugLength-4], "-")
	}
	if len(slug) < 2 {
		return "tenant"
	}
	return slug
}

// stripMarks decomposes accented letters and drops the combining marks ("é" → "e").
func stripMarks(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// SlugCandidate returns the n-th candidate for a wanted slug: the slug itself, then slug-2, slug-3…
func SlugCandidate(base string, n int) string {
	if n <= 1 {
		return base
	}
	return base + "-" + strconv.Itoa(n)
}

// ValidateName bounds a display name.
func ValidateName(field, name string, required bool) error {
	if strings.TrimSpace(name) == "" {
		if required {
			return core.Invalid(field, "is required")
		}
		return nil
	}
	if len(name) > 200 {
		return core.Invalid(field, "must be at most 200 characters")
	}
	return core.ValidateText(field, name)
}

// ValidateAddress checks an EVM address: 0x and 40 hex digits; mixed case must be a valid
// EIP-55 checksum. It returns the checksummed form.
func ValidateAddress(field, s string) (string, error) {
	if !common.IsHexAddress(s) || !strings.HasPrefix(s, "0x") {
		return "", core.Invalid(field, "must be an EVM address: 0x followed by 40 hex digits")
	}
	addr := common.HexToAddress(s)
	body := s[2:]
	if strings.ToLower(body) != body && strings.ToUpper(body) != body && addr.Hex() != s {
		return "", core.Invalid(field, "has an invalid EIP-55 checksum")
	}
	if addr == (common.Address{}) {
		return "", core.Invalid(field, "must not be the zero address")
	}
	return addr.Hex(), nil
}

// RoleFor is the caller's role in a tenant as shown on the Tenant resource.
func RoleFor(t Tenant, userID string, m *Member) string {
	if userID != "" && userID == t.OwnerUserID {
		return "OWNER"
	}
	if m != nil {
		return string(m.Role)
	}
	return "OWNER"
}

// APIKey is a stored key: metadata plus the hash of its secret, never the secret.
type APIKey struct {
	ID          string
	TenantID    string
	Environment core.Environment
	Name        string
	PubID       string
	SecretHash  string
	Scopes      []auth.Scope
	ExpiresAt   *time.Time
	RevokedAt   *time.Time
	CreatedAt   time.Time
	CreatedBy   KeyCreator
	// AgentID is the agent whose key this is; "" for a tenant key. An agent key's principal
	// is the agent: its scopes never include the ones agents may not hold.
	AgentID string
}

// KeyCreator records who minted a key: a session user (with their member id; none for the
// owner) or, when a key minted it, the parent key. All empty for keys older than the record.
type KeyCreator struct {
	UserID   string
	MemberID string
	KeyID    string
}

// Usable reports whether the key may authenticate at now.
func (k APIKey) Usable(now time.Time) bool {
	if k.RevokedAt != nil {
		return false
	}
	return k.ExpiresAt == nil || now.Before(*k.ExpiresAt)
}
