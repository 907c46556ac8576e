package tenant

import (
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

func TestSlugs(t *testing.T) {
	for _, ok := range []string{"acme", "acme-pay", "a1", "x-2-y"} {
		if err := ValidateSlug(ok); err != nil {
			t.Errorf("ValidateSlug(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a", "Acme", "acme_pay", "-acme", "acme-", "ac--me", "acme pay"} {
		if err := ValidateSlug(bad); !errors.Is(err, core.ErrValidation) {
			t.Errorf("ValidateSlug(%q) = %v, want VALIDATION_FAILED", bad, err)
		}
	}
	for name, want := range map[string]string{"Acme Pay, Inc.": "acme-pay-inc", "  ": "tenant", "Ünïcode Co": "unicode-co", "Café Zoë": "cafe-zoe", "X": "tenant"} {
		if got := SlugFromName(name); got != want {
			t.Errorf("SlugFromName(%q) = %q, want %q", name, got, want)
		}
		if err := ValidateSlug(SlugFromName(name)); err != nil {
			t.Errorf("derived slug %q invalid: %v", SlugFromName(name), err)
		}
	}
	if SlugCandidate("acme", 1) != "acme" || SlugCandidate("acme", 3) != "acme-3" {
		t.Fatal("SlugCandidate")
	}
}

func TestValidateAddress(t *testing.T) {
	const checksummed = "0x52908400098527886E0F7030069857D2E4169EE7"
	for in, want := range map[string]string{checksummed: checksummed, "0x52908400098527886e0f7030069857d2e4169ee7": checksummed} {
		if got, err := ValidateAddress("a", in); err != nil || got != want {
			t.Errorf("ValidateAddress(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "0x123", "52908400098527886E0F7030069857D2E4169EE7", "0x52908400098527886e0F7030069857D2E4169EE7", "0x0000000000000000000000000000000000000000", "0xZZ908400098527886E0F7030069857D2E4169EE7"} {
		if _, err := ValidateAddress("a", bad); err == nil {
			t.Errorf("ValidateAddress(%q) accepted", bad)
		}
	}
}

// TestMember_Transitions walks docs/api.md's member lifecycle row by row: PENDING on invite,
// activated on accept, REVOKED on revoke; anything else is refused.
func TestMember_Transitions(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pending := Member{Status: MemberPending, InviteExpiresAt: now.Add(time.Hour)}
	rows := []struct {
		name    string
		from    Member
		action  string
		want    MemberStatus
		wantErr bool
	}{
		{"PENDING accept → ACTIVE", pending, "accept", MemberActive, false},
		{"PENDING revoke → REVOKED", pending, "revoke", MemberRevoked, false},
		{"ACTIVE revoke → REVOKED", Member{Status: MemberActive}, "revoke", MemberRevoked, false},
		{"REVOKED revoke → REVOKED (idempotent)", Member{Status: MemberRevoked}, "revoke", MemberRevoked, false},
		{"ACTIVE accept refused", Member{Status: MemberActive, InviteExpiresAt: now.Add(time.Hour)}, "accept", MemberActive, true},
		{"REVOKED accept refused", Member{Status: MemberRevoked, InviteExpiresAt: now.Add(time.Hour)}, "accept", MemberRevoked, true},
		{"expired PENDING accept refused", Member{Status: MemberPending, InviteExpiresAt: now}, "accept", MemberPending, true},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			var got Member
			var err error
			if r.action == "accept" {
				got, err = r.from.Accept("0xabc", "", "", now)
			} else {
				got = r.from.Revoke(now)
			}
			if (err != nil) != r.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, r.wantErr)
			}
			if err != nil && !errors.Is(err, core.ErrInvalidState) {
				t.Fatalf("refusal %v is not INVALID_STATE", err)
			}
			if got.Status != r.want {
				t.Fatalf("status %s, want %s", got.Status, r.want)
			}
		})
	}
}

func TestParseRoleAndEmail(t *testing.T) {
	if r, err := ParseRole(""); err != nil || r != RoleMember {
		t.Fatal("default role is MEMBER")
	}
	if _, err := ParseRole("OWNER"); err == nil {
		t.Fatal("OWNER is not an invitable role")
	}
	if e, err := ValidateEmail("email", " Ada@Example.COM "); err != nil || e != "ada@example.com" {
		t.Fatalf("ValidateEmail = %q, %v", e, err)
	}
	for _, bad := range []string{"", "a", "a@", "@b.co", "a b@c.co", "a@nodot"} {
		if _, err := ValidateEmail("email", bad); err == nil {
			t.Errorf("ValidateEmail(%q) accepted", bad)
		}
	}
}

func TestAPIKeyUsable(t *testing.T) {
	now := time.Now()
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	if !(APIKey{}).Usable(now) || !(APIKey{ExpiresAt: &future}).Usable(now) {
		t.Fatal("a live key is unusable")
	}
	if (APIKey{ExpiresAt: &past}).Usable(now) || (APIKey{RevokedAt: &past}).Usable(now) || (APIKey{ExpiresAt: &now}).Usable(now) {
		t.Fatal("an expired or revoked key is usable")
	}
}
