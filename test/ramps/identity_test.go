package ramps

import (
	"testing"
)

// TestIdentity: the caller's principal, verification and credentials, for a key and a
// session; VERIFIED once the BUSINESS_IDENTITY credential is ACTIVE; identity:read required.
func TestIdentity(t *testing.T) {
	ten := env().NewTenant(t)
	got := ten.Root.Get("/v1/identity").Expect(t, 200).JSON(t)
	p := got["principal"].(map[string]any)
	if p["type"] != "API_KEY" || p["tenantId"] != ten.ID || p["environment"] != "TEST" || p["keyId"] == nil || p["userId"] != nil {
		t.Fatalf("principal: %v", p)
	}
	v := got["verification"].(map[string]any)
	creds := got["credentials"].([]any)
	if v["status"] != "UNVERIFIED" || v["businessIdentityStatus"] != nil || len(creds) != 1 ||
		creds[0].(map[string]any)["type"] != "BUSINESS_IDENTITY" || creds[0].(map[string]any)["status"] != nil {
		t.Fatalf("before a credential: %v", got)
	}

	ten.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	got = ten.Root.Get("/v1/identity").Expect(t, 200).JSON(t)
	if v := got["verification"].(map[string]any); v["status"] != "VERIFIED" || v["businessIdentityStatus"] != "ACTIVE" {
		t.Fatalf("after ACTIVE: %v", got)
	}
	ten.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "SUSPENDED"}).Expect(t, 200)
	if v := ten.Root.Get("/v1/identity").Expect(t, 200).JSON(t)["verification"].(map[string]any); v["status"] != "UNVERIFIED" || v["businessIdentityStatus"] != "SUSPENDED" {
		t.Fatalf("after SUSPENDED: %v", v)
	}

	session := ten.Session.Get("/v1/identity").Expect(t, 200).JSON(t)["principal"].(map[string]any)
	if session["type"] != "SESSION" || session["userId"] != ten.UserID || session["email"] == nil || session["keyId"] != nil {
		t.Fatalf("session principal: %v", session)
	}

	noScope := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "no identity", "scopes": []string{"wallets:read"}}))
	noScope.Get("/v1/identity").ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	env().Client(t).Get("/v1/identity").ExpectError(t, 401, "UNAUTHENTICATED")
}

// TestStatus: the service, the database and the dev chain are ok, the mirror's lag is
// reported, the relayer's address and balance are not, LIVE has no chain here; status:read
// required. A chain that cannot be read is an
// app-level test (app/finance TestStatus): it is reported, never a 5xx.
func TestStatus(t *testing.T) {
	ten := env().NewTenant(t)
	got := ten.Root.Get("/v1/status").Expect(t, 200).JSON(t)
	if got["status"] != "ok" || got["service"] != "ok" || got["database"] != "ok" || got["checkedAt"] == nil {
		t.Fatalf("status: %v", got)
	}
	chains := got["chains"].([]any)
	if len(chains) != 2 {
		t.Fatalf("chains: %v", chains)
	}
	test, live := chains[0].(map[string]any), chains[1].(map[string]any)
	if test["environment"] != "TEST" || test["status"] != "ok" || test["latestBlock"] == nil || test["chainId"] == nil {
		t.Errorf("TEST chain: %v", test)
	}
	// The platform relayer's internals are the operator's (the metrics listener), not a tenant's.
	for _, internal := range []string{"relayerAddress", "relayerBalanceEth"} {
		if _, shown := test[internal]; shown {
			t.Errorf("TEST chain shows the platform relayer's %s: %v", internal, test)
		}
	}
	if live["environment"] != "LIVE" || live["status"] != "not_configured" || live["latestBlock"] != nil {
		t.Errorf("LIVE chain: %v", live)
	}
	noScope := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "no status", "scopes": []string{"wallets:read"}}))
	noScope.Get("/v1/status").ExpectError(t, 403, "INSUFFICIENT_SCOPE")
}
