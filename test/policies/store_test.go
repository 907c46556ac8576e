package policies

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// TestPolicies_VersionsImmutableInTheDatabase: history cannot be rewritten even with direct
// SQL; the trigger refuses UPDATE and DELETE of a version.
func TestPolicies_VersionsImmutableInTheDatabase(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	p := createPolicy(t, ten.Root, "immutable", limitsDoc)
	db, err := sql.Open("pgx", env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	id := p["activeVersionId"].(string)
	for _, stmt := range []string{
		`UPDATE policy_versions SET ir = '{"schemaVersion":1}' WHERE id = $1`,
		`DELETE FROM policy_versions WHERE id = $1`,
	} {
		if _, err := db.ExecContext(ctx, stmt, id); err == nil || !strings.Contains(err.Error(), "immutable") {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	ten.Root.Get("/v1/policies/"+p["policyId"].(string)+"/versions").Expect(t, http.StatusOK)
}
