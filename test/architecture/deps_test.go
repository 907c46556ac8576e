// Package architecture enforces the dependency rule of docs/architecture.md on the source tree.
package architecture

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/corridorhq/corridor"

// forbidden returns why layer may not import imp, or "" when it may. layer is a top-level
// directory ("core", "app", …) or, under app/, a capability package ("app/wallets").
func forbidden(layer, imp string) string {
	project := func(p string) bool { return imp == module+"/"+p || strings.HasPrefix(imp, module+"/"+p+"/") }
	if capability, ok := strings.CutPrefix(layer, "app/"); ok {
		if why := crossCapability(capability, imp); why != "" {
			return why
		}
		layer = "app"
	}
	switch {
	case (project("ports/fake") || project("ports/portstest")) && !strings.HasPrefix(layer, "ports"):
		return "the fakes and contract suites of ports/ are for tests only"
	case project("adapters"), project("cmd"), project("test"), project("wiring"):
		return "only cmd and test wire adapters"
	case strings.HasPrefix(imp, "github.com/gofiber/"), strings.HasPrefix(imp, "github.com/uptrace/bun"),
		imp == "database/sql", strings.HasPrefix(imp, "github.com/jackc/"),
		strings.HasPrefix(imp, "github.com/ethereum/go-ethereum/ethclient"), strings.HasPrefix(imp, "github.com/ethereum/go-ethereum/rpc"),
		strings.HasPrefix(imp, "net/http"):
		return "frameworks, SQL and network clients live in adapters"
	case strings.HasPrefix(imp, "github.com/riverqueue/river") && !(layer == "app" && imp == "github.com/riverqueue/river"):
		return "River's drivers stay in adapters; app may use river's worker types"
	}
	switch layer {
	case "core", "ledger":
		if strings.HasPrefix(imp, module+"/") && !project("core") {
			return "core and ledger import no project package but core"
		}
	case "ports":
		if strings.HasPrefix(imp, module+"/") && !project("core") && !project("ledger") && !project("ports") {
			return "ports imports only core and ledger"
		}
	case "app":
		if project("app") || project("core") || project("ledger") || project("ports") || !strings.HasPrefix(imp, module+"/") {
			return ""
		}
		return "app imports only core, ledger and ports"
	}
	return ""
}

// kernelPackage is the shared kernel every capability may import.
const kernelPackage = "kernel"

// crossCapability refuses an import of another capability package under app/: a capability
// that needs another declares a small interface and wiring passes the implementation
// (docs/architecture.md). The kernel may be imported by every capability and itself imports none.
func crossCapability(capability, imp string) string {
	other, ok := strings.CutPrefix(imp, module+"/app/")
	if !ok {
		if imp == module+"/app" {
			return "capability packages do not import the app root"
		}
		return ""
	}
	other, _, _ = strings.Cut(other, "/")
	switch {
	case other == capability:
		return ""
	case other == kernelPackage && capability != kernelPackage:
		return ""
	case capability == kernelPackage:
		return "the kernel imports no capability package"
	}
	return "capability packages under app/ do not import each other; declare the small interface you need and let wiring pass it"
}

// layerOf is the layer a Go file belongs to: its top-level directory, or app/<capability> for
// a file under app/.
func layerOf(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return ""
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if parts[0] == "app" && len(parts) > 2 {
		return "app/" + parts[1]
	}
	return parts[0]
}

func TestDependencyRule(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	capabilities := map[string]bool{}
	for _, layer := range []string{"core", "ledger", "ports", "app", "web"} {
		err := filepath.WalkDir(filepath.Join(root, layer), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			checked++
			fileLayer := layerOf(root, path)
			if fileLayer == "app" {
				t.Errorf("%s: app/ holds only capability packages and the kernel, one directory each (docs/architecture.md)", path)
			}
			if strings.HasPrefix(fileLayer, "app/") {
				capabilities[fileLayer] = true
			}
			for _, spec := range f.Imports {
				imp, _ := strconv.Unquote(spec.Path.Value)
				if why := forbidden(fileLayer, imp); why != "" {
					t.Errorf("%s imports %s: %s (docs/architecture.md)", path, imp, why)
				}
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if checked < 10 || len(capabilities) < 3 {
		t.Fatalf("checked only %d files in %d app packages: is the test looking at the right tree?", checked, len(capabilities))
	}
}

func TestForbiddenCatchesViolations(t *testing.T) {
	bad := map[[2]string]bool{
		{"core", "github.com/corridorhq/corridor/adapters/postgres"}: true,
		{"core", "github.com/corridorhq/corridor/app"}:               true,
		{"core", "github.com/corridorhq/corridor/ports"}:             true,
		{"ledger", "github.com/corridorhq/corridor/ports"}:           true,
		{"ports", "github.com/corridorhq/corridor/app"}:              true,
		{"app", "github.com/corridorhq/corridor/adapters/http"}:      true,
		{"app", "github.com/uptrace/bun"}:                            true,
		{"app", "database/sql"}:                                      true,
		{"app", "github.com/corridorhq/corridor/wiring"}:             true,
		{"core", "github.com/corridorhq/corridor/core/auth"}:         false,
		{"ledger", "github.com/corridorhq/corridor/core"}:            false,
		{"ports", "github.com/corridorhq/corridor/ledger"}:           false,
		{"app", "github.com/corridorhq/corridor/ports"}:              false,
		{"app", "github.com/riverqueue/river"}:                       false,
		// ports/fake and ports/portstest build on ports; production code never imports them.
		{"ports", "github.com/corridorhq/corridor/ports"}:          false,
		{"app/cards", "github.com/corridorhq/corridor/ports/fake"}: true,
		{"app", "github.com/corridorhq/corridor/ports/portstest"}:  true,
		// Capability packages under app/ import the kernel, core, ledger and ports, never
		// each other.
		{"app/offramps", "github.com/corridorhq/corridor/app/policies"}:        true,
		{"app/safepayments", "github.com/corridorhq/corridor/app/wallets"}:     true,
		{"app/tenancy", "github.com/corridorhq/corridor/app/wallets/internal"}: true,
		{"app/kernel", "github.com/corridorhq/corridor/app/tenancy"}:           true,
		{"app/wallets", "github.com/corridorhq/corridor/app"}:                  true,
		{"app/wallets", "github.com/corridorhq/corridor/adapters/postgres"}:    true,
		{"app/offramps", "github.com/corridorhq/corridor/app/kernel"}:          false,
		{"app/offramps", "github.com/corridorhq/corridor/app/offramps"}:        false,
		{"app/policies", "github.com/corridorhq/corridor/core/policy"}:         false,
		{"app/finance", "github.com/corridorhq/corridor/ledger"}:               false,
		{"app/safepayments", "github.com/riverqueue/river"}:                    false,
		{"app/wallets", "github.com/riverqueue/river/rivertype"}:               true,
	}
	for pair, wantBad := range bad {
		if got := forbidden(pair[0], pair[1]) != ""; got != wantBad {
			t.Errorf("forbidden(%q, %q) = %v, want %v", pair[0], pair[1], got, wantBad)
		}
	}
}

// TestUnitTests_NeedNoDatabase: the tests of core, ledger, ports and app run without
// PostgreSQL, a chain or the HTTP server (`make test-unit`): they import no adapter, no test
// harness or database helper, no wiring and no database driver. Use cases are tested on
// ports/fake, whose behaviour the contract suites of ports/portstest hold to the adapters'.
func TestUnitTests_NeedNoDatabase(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	for _, layer := range []string{"core", "ledger", "ports", "app"} {
		err := filepath.WalkDir(filepath.Join(root, layer), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			checked++
			for _, spec := range f.Imports {
				imp, _ := strconv.Unquote(spec.Path.Value)
				if why := needsOutside(imp); why != "" {
					t.Errorf("%s imports %s: %s", path, imp, why)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d test files: is the test looking at the right tree?", checked)
	}
}

// needsOutside says why a unit test may not import imp, or "".
func needsOutside(imp string) string {
	for _, prefix := range []string{module + "/adapters", module + "/test", module + "/wiring", module + "/cmd", module + "/web"} {
		if imp == prefix || strings.HasPrefix(imp, prefix+"/") {
			return "unit tests of core, ledger, ports and app run on ports/fake, without adapters, harnesses or a database"
		}
	}
	for _, driver := range []string{"database/sql", "github.com/uptrace/bun", "github.com/jackc/", "github.com/testcontainers/", "github.com/riverqueue/river/riverdriver"} {
		if strings.HasPrefix(imp, driver) {
			return "unit tests of core, ledger, ports and app reach no database"
		}
	}
	return ""
}

func TestNeedsOutside(t *testing.T) {
	for imp, wantRefused := range map[string]bool{
		"github.com/corridorhq/corridor/test/testdb":       true,
		"github.com/corridorhq/corridor/adapters/postgres": true,
		"github.com/corridorhq/corridor/wiring":            true,
		"database/sql":                                     true,
		"github.com/jackc/pgx/v5":                          true,
		"github.com/corridorhq/corridor/ports/fake":        false,
		"github.com/corridorhq/corridor/ledger":            false,
		"github.com/riverqueue/river":                      false,
		"github.com/ethereum/go-ethereum/crypto":           false,
	} {
		if got := needsOutside(imp) != ""; got != wantRefused {
			t.Errorf("needsOutside(%q) refused = %v, want %v", imp, got, wantRefused)
		}
	}
}
