package postgres

import (
	"os"
	"strings"
	"testing"
)

// The batch tells a twin's reference committed after its lookup from any other failure by the
// name of the constraint PostgreSQL reports (referenceTaken). The name once differed from the
// schema's, so the batch never recognized the case; the schema must hold the key under the
// name the code looks for.
func TestReferenceTaken_NamesTheSchemasKey(t *testing.T) {
	schema, err := os.ReadFile("../../migrations/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	want := "ADD CONSTRAINT " + transferReferenceKey + " UNIQUE (environment, reference);"
	if !strings.Contains(string(schema), want) {
		t.Fatalf("migrations/schema.sql has no %q: referenceTaken looks for a constraint that does not exist", want)
	}
}
