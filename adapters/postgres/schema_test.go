package postgres_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/test/testdb"
	"github.com/corridorhq/corridor/wiring"
)

var update = flag.Bool("update", false, "rewrite migrations/schema.sql from the migrations")

// TestSchemaIsCurrent migrates a fresh database and compares pg_dump's schema with the
// committed migrations/schema.sql, so a reader always sees the whole schema in one file.
// Regenerate with: go test ./adapters/postgres -run TestSchemaIsCurrent -update
func TestSchemaIsCurrent(t *testing.T) {
	pgDump := findPgDump(t)
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := wiring.Migrate(ctx, url); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, pgDump, "--schema-only", "--no-owner", "--no-privileges", "--no-comments", url).Output()
	if err != nil {
		t.Fatalf("pg_dump: %v", err)
	}
	got := normalize(out)
	path := filepath.Join("..", "..", "migrations", "schema.sql")
	if *update {
		header := "-- The whole schema after every migration (pg_dump --schema-only), kept current by\n-- TestSchemaIsCurrent in adapters/postgres. Do not edit: add a migration instead.\n\n"
		if err := os.WriteFile(path, append([]byte(header), got...), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run go test ./adapters/postgres -run TestSchemaIsCurrent -update", err)
	}
	if !bytes.Equal(normalize(want), got) {
		t.Fatal("migrations/schema.sql is out of date: run go test ./adapters/postgres -run TestSchemaIsCurrent -update")
	}
}

var noise = regexp.MustCompile(`(?m)^(--.*|SET .*|SELECT pg_catalog\.set_config.*|\\restrict .*|\\unrestrict .*)\n`)

func normalize(b []byte) []byte {
	s := noise.ReplaceAllString(string(b), "")
	s = regexp.MustCompile(`\n{3,}`).ReplaceAllString(s, "\n\n")
	return []byte(strings.TrimSpace(s) + "\n")
}

func findPgDump(t *testing.T) string {
	if p, err := exec.LookPath("pg_dump"); err == nil {
		if out, err := exec.Command(p, "--version").Output(); err == nil && strings.Contains(string(out), " 15.") {
			return p
		}
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/15/bin/pg_dump")
	if len(matches) == 0 {
		t.Skip("pg_dump 15 not installed")
	}
	return matches[0]
}
