package postgres_test

import (
	"context"
	"os"
	"regexp"
	"sort"
	"testing"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/test/testdb"
)

// TestCitusPlan_NamesEveryTableOnce: every table of the committed schema (and no other) has
// exactly one placement, a distributed one its column, and the co-location group's first table
// comes first, so a migration adding a table must say where it lives on Citus.
func TestCitusPlan_NamesEveryTableOnce(t *testing.T) {
	schema, err := os.ReadFile("../../migrations/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^CREATE (?:UNLOGGED )?TABLE public\.([a-z_0-9]+)`).FindAllSubmatch(schema, -1) {
		want[string(m[1])] = true
	}
	if len(want) < 50 {
		t.Fatalf("read only %d tables from schema.sql", len(want))
	}
	seen := map[string]bool{}
	for i, p := range postgres.CitusPlan {
		switch {
		case seen[p.Table]:
			t.Errorf("%s placed twice", p.Table)
		case !want[p.Table]:
			t.Errorf("%s is placed but is not in the schema", p.Table)
		case p.Placement == postgres.Distributed && p.Column == "":
			t.Errorf("%s is distributed without a column", p.Table)
		case p.Placement == postgres.Distributed && i > 0 && postgres.CitusPlan[0].Placement != postgres.Distributed:
			t.Errorf("the co-location group's first table must come first")
		}
		seen[p.Table] = true
	}
	var missing []string
	for table := range want {
		if !seen[table] {
			missing = append(missing, table)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("tables without a placement on Citus: %v", missing)
	}
}

// TestDistribute_NoOpOnPostgres: on plain PostgreSQL the distribution step of migrate reports
// "not Citus" and changes nothing (TestSchemaIsCurrent compares the whole schema after it).
func TestDistribute_NoOpOnPostgres(t *testing.T) {
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := postgres.Migrate(url); err != nil {
		t.Fatal(err)
	}
	citus, err := postgres.Distribute(ctx, url)
	if err != nil || citus {
		t.Fatalf("Distribute on PostgreSQL: citus %v, err %v; want false, nil", citus, err)
	}
}
