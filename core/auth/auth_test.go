package auth

import (
	"errors"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core"
)

func TestMintAndParseKey(t *testing.T) {
	for _, env := range []core.Environment{core.EnvTest, core.EnvLive} {
		m := MintKey(env)
		if !strings.HasPrefix(m.Plaintext, "csk_"+env.KeyLabel()+"_"+m.PubID+"_") {
			t.Fatalf("plaintext %q has the wrong shape", m.Plaintext)
		}
		p, err := ParseKey(m.Plaintext)
		if err != nil || p.Environment != env || p.PubID != m.PubID {
			t.Fatalf("ParseKey(%q) = %+v, %v", m.Plaintext, p, err)
		}
		if !SecretMatches(p.Secret, m.SecretHash) || SecretMatches(p.Secret+"x", m.SecretHash) {
			t.Fatal("secret comparison is wrong")
		}
		if strings.Contains(m.SecretHash, p.Secret) {
			t.Fatal("the stored hash contains the secret")
		}
	}
}

func TestParseKeyRejects(t *testing.T) {
	for _, k := range []string{"", "csk", "csk_test_abc", "csk_prod_a_b", "sk_test_a_b", "csk_test__b", "csk_test_a_", "csk_test_a_b_c"} {
		if _, err := ParseKey(k); !errors.Is(err, core.ErrUnauthenticated) {
			t.Errorf("ParseKey(%q) = %v, want UNAUTHENTICATED", k, err)
		}
	}
}

func TestScopes(t *testing.T) {
	if len(AllScopes) != 33 {
		t.Fatalf("SPEC lists 33 scopes including *, have %d", len(AllScopes))
	}
	for _, s := range DefaultScopes() {
		if !strings.HasSuffix(string(s), ":read") {
			t.Fatalf("default scope %s is not read-only", s)
		}
	}
	if got := Normalize([]Scope{"b:read", "a:read", "b:read"}); len(got) != 2 || got[0] != "a:read" {
		t.Fatalf("Normalize = %v", got)
	}
	if got := Normalize([]Scope{"a:read", ScopeRoot}); len(got) != 1 || got[0] != ScopeRoot {
		t.Fatalf("Normalize with * = %v", got)
	}
}

func TestPrincipalScopes(t *testing.T) {
	key := Principal{Kind: KindAPIKey, TenantID: "ten_1", Scopes: []Scope{ScopeWalletsRead}}
	if !key.Has(ScopeWalletsRead) || key.Has(ScopeKeysManage) {
		t.Fatal("key scope check wrong")
	}
	err := key.Require(ScopeWalletsRead, ScopeKeysManage)
	var e *core.Error
	if !errors.As(err, &e) || e.Code != core.CodeInsufficientScope || e.Details["required"] != "keys:manage" {
		t.Fatalf("Require = %v", err)
	}
	root := Principal{Kind: KindAPIKey, Scopes: []Scope{ScopeRoot}}
	session := Principal{Kind: KindSession}
	if !root.Has(ScopeKeysManage) || !root.IsRoot() {
		t.Fatal("root keys hold keys:manage")
	}
	// A session holds only the scopes its role gave it: none before it has a tenant.
	if session.Has(ScopeWalletsRead) || session.IsRoot() {
		t.Fatal("a session without role scopes holds a scope")
	}
	if err := session.RequireTenant(); !errors.Is(err, &core.Error{Code: core.CodeTenantRequired}) {
		t.Fatalf("RequireTenant = %v", err)
	}
}
