package checkout

import (
	"net/url"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
)

// checkoutIDs is GET path's checkout ids in order, and its total.
func checkoutIDs(t *testing.T, c *harness.Client, path string) ([]string, int) {
	t.Helper()
	m := c.Get(path).Expect(t, 200).JSON(t)
	var ids []string
	for _, raw := range m["checkouts"].([]any) {
		ids = append(ids, raw.(map[string]any)["id"].(string))
	}
	return ids, int(m["total"].(float64))
}

// TestCheckout_List: GET /v1/checkouts lists the merchant's own checkouts newest first, with
// status and creation-date filters and skip/take paging; it is a list of the primary kind, so
// bad filters answer 400 in the canonical envelope like every skip/take list; another tenant
// and the LIVE key see none of them.
func TestCheckout_List(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	before := time.Now().UTC().Add(-time.Second)
	paid := create(t, ten.Root, 2)
	expired := create(t, ten.Root, 3)["id"].(string)
	open := create(t, ten.Root, 4)["id"].(string)
	ten.Root.Post("/v1/sandbox/payments/"+paid["id"].(string)+"/pay", nil).Expect(t, 201)
	mine(t, confirmations)
	waitStatus(t, ten.Root, paid["id"].(string), "completed")
	ten.Root.Post("/v1/sandbox/payments/"+expired+"/expire", nil).Expect(t, 200)
	waitStatus(t, ten.Root, expired, "failed")

	ids, total := checkoutIDs(t, ten.Root, "/v1/checkouts")
	if total != 3 || len(ids) != 3 || ids[0] != open || ids[1] != expired || ids[2] != paid["id"] {
		t.Fatalf("list %v (total %d), want newest first", ids, total)
	}
	first := ten.Root.Get("/v1/checkouts?take=1").Expect(t, 200).JSON(t)["checkouts"].([]any)[0].(map[string]any)
	if first["id"] != open || first["status"] != "created" || first["amount"] != 4.0 || first["deposit_address"] == nil {
		t.Fatalf("list entry %v", first)
	}
	for query, want := range map[string][]string{
		"?status=completed": {paid["id"].(string)}, "?status=failed": {expired}, "?status=created": {open}, "?status=pending": nil,
		"?take=2": {open, expired}, "?skip=2&take=2": {paid["id"].(string)}, "?skip=5": nil,
		"?from_date=" + url.QueryEscape(before.Format(time.RFC3339Nano)):         {open, expired, paid["id"].(string)},
		"?to_date=" + url.QueryEscape(before.Format(time.RFC3339Nano)):           nil,
		"?from_date=" + time.Now().UTC().Add(48*time.Hour).Format(time.DateOnly): nil,
	} {
		got, total := checkoutIDs(t, ten.Root, "/v1/checkouts"+query)
		wantTotal := len(want)
		switch query {
		case "?take=2", "?skip=2&take=2", "?skip=5":
			wantTotal = 3
		}
		if len(got) != len(want) || total != wantTotal {
			t.Fatalf("%s: %v (total %d), want %v (total %d)", query, got, total, want, wantTotal)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: %v, want %v", query, got, want)
			}
		}
	}
	for _, bad := range []struct{ query, field string }{
		{"?status=paid", "status"}, {"?take=500", "take"}, {"?from_date=yesterday", "from_date"},
		{"?from_date=2026-01-02&to_date=2026-01-01", "to_date"},
	} {
		r := ten.Root.Get("/v1/checkouts" + bad.query)
		if e := r.ExpectError(t, 400, "VALIDATION_FAILED"); harness.Field(e, bad.field) == "" || e["statusCode"] != float64(400) {
			t.Fatalf("%s: %s", bad.query, r.Body)
		}
	}
	if ids, total := checkoutIDs(t, env().NewTenant(t).Root, "/v1/checkouts"); total != 0 || len(ids) != 0 {
		t.Fatalf("another tenant sees %v", ids)
	}
	live := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "live", "environment": "live", "scopes": []string{"*"}}))
	if ids, total := checkoutIDs(t, live, "/v1/checkouts"); total != 0 || len(ids) != 0 {
		t.Fatalf("the LIVE key sees %v", ids)
	}
	noRead := env().Client(t).WithKey(env().NewKey(t, ten.Root, map[string]any{"name": "wallets only", "scopes": []string{"wallets:read"}}))
	noRead.Get("/v1/checkouts").Expect(t, 403)
}
