package api

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/test/harness"
)

func operatorClient(t *testing.T) *harness.Client {
	return env().Client(t).With("X-Operator-Token", harness.OperatorToken)
}

type adminTenants struct {
	Tenants []struct {
		ID        string `json:"id"`
		Slug      string `json:"slug"`
		MatchedBy string `json:"matchedBy"`
		Members   int    `json:"members"`
	} `json:"tenants"`
}

func findTenants(t *testing.T, q string) adminTenants {
	t.Helper()
	var out adminTenants
	operatorClient(t).Get("/v1/admin/tenants?q="+url.QueryEscape(q)).Expect(t, 200).Decode(t, &out)
	return out
}

// operatorLookups counts the audit trail's entries of one lookup action whose detail is detail.
func operatorLookups(t *testing.T, action, detail string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	var n int
	err = conn.QueryRow(ctx, `SELECT count(*) FROM operator_actions WHERE action = $1 AND detail = $2 AND via = 'api'
		AND operator LIKE 'operator-token:%'`, action, detail).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAdmin_FindTenants: the operator looks a tenant up by id, slug or a member's email (in any
// case), sees only matching tenants, and every lookup is in the audit trail; tenant
// credentials and a wrong token are refused, and a missing query is a validation error.
func TestAdmin_FindTenants(t *testing.T) {
	t.Parallel()
	ten, other := env().NewTenant(t), env().NewTenant(t)
	current := ten.Root.Get("/v1/tenants/current").Expect(t, 200).JSON(t)
	slug := current["slug"].(string)
	email := "finance-" + strings.ToLower(ten.ID) + "@example.com"
	ten.Session.Post("/v1/tenants/members", map[string]any{"email": email}).Expect(t, 201)

	for q, matchedBy := range map[string]string{ten.ID: "id", slug: "slug", strings.ToUpper(email): "email"} {
		got := findTenants(t, q)
		if len(got.Tenants) != 1 || got.Tenants[0].ID != ten.ID || got.Tenants[0].MatchedBy != matchedBy || got.Tenants[0].Slug != slug || got.Tenants[0].Members < 1 {
			t.Fatalf("q=%s: %+v, want %s matched by %s", q, got, ten.ID, matchedBy)
		}
		if n := operatorLookups(t, "list-tenants", "q="+q); n != 1 {
			t.Fatalf("q=%s: %d audit entries", q, n)
		}
	}
	if got := findTenants(t, "nobody-"+other.ID+"@example.com"); len(got.Tenants) != 0 {
		t.Fatalf("an unknown email matched %+v", got)
	}

	path := "/v1/admin/tenants?q=" + url.QueryEscape(ten.ID)
	ten.Root.Get(path).ExpectError(t, 401, "UNAUTHENTICATED")
	other.Root.With("X-Operator-Token", harness.OperatorToken).Get(path).ExpectError(t, 401, "UNAUTHENTICATED")
	env().Client(t).With("X-Operator-Token", harness.OperatorToken+"x").Get(path).ExpectError(t, 401, "UNAUTHENTICATED")
	operatorClient(t).Get("/v1/admin/tenants").ExpectError(t, 400, "VALIDATION_FAILED")
	operatorClient(t).Get("/v1/admin/tenants?q="+strings.Repeat("x", 321)).ExpectError(t, 400, "VALIDATION_FAILED")
}

// TestAdmin_Lists: stuck work, failed jobs and disabled endpoints answer their lists to the
// operator only, and each lookup is audited.
func TestAdmin_Lists(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	for path, key := range map[string]string{
		"/v1/admin/stuck-work": "payments", "/v1/admin/failed-jobs": "jobs", "/v1/admin/disabled-webhook-endpoints": "endpoints",
	} {
		body := operatorClient(t).Get(path).Expect(t, 200).JSON(t)
		if _, ok := body[key].([]any); !ok {
			t.Fatalf("%s: %v lacks the list %q", path, body, key)
		}
		ten.Root.Get(path).ExpectError(t, 401, "UNAUTHENTICATED")
	}
	for _, action := range []string{"list-stuck-work", "list-failed-jobs", "list-disabled-endpoints"} {
		if n := operatorLookups(t, action, ""); n < 1 {
			t.Fatalf("%s not audited", action)
		}
	}
}
