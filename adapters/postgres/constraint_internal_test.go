package postgres

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestConstraintOf_CutsTheShardSuffix: a unique violation raised in a Citus shard names the
// shard's constraint, relayed by the coordinator in the message only; constraintOf answers the
// table's, and leaves other names alone.
func TestConstraintOf_CutsTheShardSuffix(t *testing.T) {
	for name, want := range map[string]string{
		"contacts_address_key_102040": "contacts_address_key",
		"contacts_address_key":        "contacts_address_key",
		"version_gte_1":               "version_gte_1",
		"river_migration_pkey1":       "river_migration_pkey1",
	} {
		err := fmt.Errorf("wrapped: %w", &pgconn.PgError{Code: "23505", ConstraintName: name})
		if code, got := constraintOf(err); code != "23505" || got != want {
			t.Errorf("%s: %s %s, want 23505 %s", name, code, got, want)
		}
	}
	relayed := &pgconn.PgError{Code: "23505", Message: `duplicate key value violates unique constraint "contacts_address_key_102059"`}
	if code, got := constraintOf(relayed); code != "23505" || got != "contacts_address_key" {
		t.Errorf("relayed by the coordinator: %s %s, want 23505 contacts_address_key", code, got)
	}
}
