package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/test/testdb"
)

// TestClaimPlans_GenericOnAFreshDatabase: the claim statements run on their generic plans, made
// once per connection, and on a new database that happens while the tables are empty and
// never analyzed. The plan made then must look the references up by index, one lookup per
// reference: a plan that scans ledger_transfers (a hash join over it, as the join over the
// unnested references got) costs more with every transfer the database records, for the
// connection's life.
func TestClaimPlans_GenericOnAFreshDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := Migrate(url); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(ctx) })
	if _, err := conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		t.Fatal(err)
	}
	for name, stmt := range map[string]string{"claim that locks": claimLockSQL, "batch claim": batchClaimSQL, "locking read": lockSQL} {
		if _, err := conn.Exec(ctx, "PREPARE s AS "+stmt); err != nil {
			t.Fatal(name, err)
		}
		var args []string
		for range maxParam(stmt) {
			args = append(args, "NULL")
		}
		rows, err := conn.Query(ctx, "EXPLAIN EXECUTE s("+strings.Join(args, ", ")+")")
		if err != nil {
			t.Fatal(name, err)
		}
		var plan []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, line)
		}
		rows.Close()
		text := strings.Join(plan, "\n")
		if strings.Contains(text, "Seq Scan on ledger_transfers") {
			t.Errorf("%s: the generic plan made on a fresh database scans ledger_transfers:\n%s", name, text)
		}
		if _, err := conn.Exec(ctx, "DEALLOCATE s"); err != nil {
			t.Fatal(err)
		}
	}
}

// maxParam is the highest $n a statement names.
func maxParam(stmt string) int {
	highest := 0
	for i := 0; i < len(stmt); i++ {
		if stmt[i] != '$' {
			continue
		}
		n := 0
		for j := i + 1; j < len(stmt) && stmt[j] >= '0' && stmt[j] <= '9'; j++ {
			n = n*10 + int(stmt[j]-'0')
		}
		highest = max(highest, n)
	}
	return highest
}
