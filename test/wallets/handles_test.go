package wallets

import (
	"strings"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestHandles_PutTakenAndValidation(t *testing.T) {
	t.Parallel()
	e := env()
	a, b := e.NewTenant(t), e.NewTenant(t)
	first, second := newWallet(t, a.Root), newWallet(t, a.Root)
	handle := "acme-" + strings.ToLower(first["id"].(string)[len(first["id"].(string))-10:])

	info := a.Root.Do("PUT", "/v1/directory/handle", map[string]any{"handle": "@" + strings.ToUpper(handle), "walletId": first["id"], "displayName": "Acme"}).Expect(t, 200).JSON(t)
	if info["handle"] != handle || info["address"] != first["address"] || info["chainId"].(float64) != 84532 ||
		info["displayName"] != "Acme" || info["verified"] != false {
		t.Fatalf("handle info: %v", info)
	}
	// The holder re-points its handle; PUT replaces, so an omitted displayName is null.
	info = a.Root.Do("PUT", "/v1/directory/handle", map[string]any{"handle": handle, "walletId": second["id"]}).Expect(t, 200).JSON(t)
	if info["address"] != second["address"] || info["displayName"] != nil {
		t.Fatalf("re-pointed: %v", info)
	}
	bWallet := newWallet(t, b.Root)
	b.Root.Do("PUT", "/v1/directory/handle", map[string]any{"handle": handle, "walletId": bWallet["id"]}).ExpectError(t, 409, "HANDLE_TAKEN")
	b.Root.Do("PUT", "/v1/directory/handle", map[string]any{"handle": "b-" + handle, "walletId": first["id"]}).ExpectError(t, 404, "WALLET_NOT_FOUND")

	for _, bad := range []map[string]any{
		{"handle": "ab", "walletId": first["id"]},
		{"handle": "has space", "walletId": first["id"]},
		{"handle": "-dash", "walletId": first["id"]},
		{"handle": strings.Repeat("a", 33), "walletId": first["id"]},
		{"walletId": first["id"]},
	} {
		m := a.Root.Do("PUT", "/v1/directory/handle", bad).ExpectError(t, 400, "VALIDATION_FAILED")
		if harness.Field(m, "handle") == "" {
			t.Fatalf("%v: handle not named: %v", bad, m)
		}
	}
	m := a.Root.Do("PUT", "/v1/directory/handle", map[string]any{"handle": "fine-handle"}).ExpectError(t, 400, "VALIDATION_FAILED")
	if harness.Field(m, "walletId") == "" {
		t.Fatalf("walletId not named: %v", m)
	}
}

// TestHandles_AgentKeysCannotRepoint: the handle names where others pay the tenant, so an agent
// key minted with every scope it can hold neither claims nor re-points it (403, nothing
// changes); the tenant's own key still does.
// (The refusal comes before the unit of work, so nothing is written.)
func TestHandles_AgentKeysCannotRepoint(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	first, second := newWallet(t, ten.Root), newWallet(t, ten.Root)
	handle := "agentless-" + strings.ToLower(first["id"].(string)[len(first["id"].(string))-10:])
	ten.Root.Do("PUT", "/v1/directory/handle", map[string]any{"handle": handle, "walletId": first["id"]}).Expect(t, 200)

	agentID := ten.Root.Post("/v1/agents", map[string]any{"name": "bot"}).Expect(t, 201).JSON(t)["id"].(string)
	key := ten.Root.Post("/v1/agents/"+agentID+"/keys", map[string]any{"name": "k", "scopes": []string{"*"}}).Expect(t, 201).JSON(t)["key"].(string)
	bot := e.Client(t).WithKey(key)
	bot.Do("PUT", "/v1/directory/handle", map[string]any{"handle": handle, "walletId": second["id"]}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	bot.Do("PUT", "/v1/directory/handle", map[string]any{"handle": "bot-" + handle, "walletId": second["id"]}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	info := ten.Root.Do("PUT", "/v1/directory/handle", map[string]any{"handle": handle, "walletId": second["id"]}).Expect(t, 200).JSON(t)
	if info["address"] != second["address"] {
		t.Fatalf("the tenant's key could not re-point its handle: %v", info)
	}
}
