package architecture

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/portstest"
)

// TestEveryRepositoryHasAContractSuite: each repository a unit of work hands out (a method of
// ports.Tx) has a contract suite in ports/portstest, and both the Postgres adapter's and the
// fake's tests run the whole set, so no fake the use-case tests lean on goes unchecked against
// the database.
func TestEveryRepositoryHasAContractSuite(t *testing.T) {
	suites := portstest.Repositories()
	tx := reflect.TypeFor[ports.Tx]()
	for i := range tx.NumMethod() {
		if name := tx.Method(i).Name; suites[name] == nil {
			t.Errorf("ports.Tx.%s has no contract suite in portstest.Repositories", name)
		}
	}
	for name := range suites {
		if _, ok := tx.MethodByName(name); !ok {
			t.Errorf("portstest.Repositories names %s, which ports.Tx does not have", name)
		}
	}
	for _, file := range []string{"adapters/postgres/contracts_test.go", "ports/fake/contracts_test.go"} {
		src, err := os.ReadFile(filepath.Join(repoRoot(t), file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "portstest.RunRepositories(") {
			t.Errorf("%s does not run portstest.RunRepositories", file)
		}
	}
}
