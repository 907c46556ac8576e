// Package architecture enforces the dependency rule of DESIGN.md §1 on the source tree.
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

const module = "corridor"

// forbidden returns why layer may not import imp, or "" when it may.
func forbidden(layer, imp string) string {
	project := func(p string) bool { return imp == module+"/"+p || strings.HasPrefix(imp, module+"/"+p+"/") }
	switch {
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
		if strings.HasPrefix(imp, module+"/") && !project("core") && !project("ledger") {
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

func TestDependencyRule(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	for _, layer := range []string{"core", "ledger", "ports", "app"} {
		err := filepath.WalkDir(filepath.Join(root, layer), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			checked++
			for _, spec := range f.Imports {
				imp, _ := strconv.Unquote(spec.Path.Value)
				if why := forbidden(layer, imp); why != "" {
					t.Errorf("%s imports %s: %s (DESIGN.md §1)", path, imp, why)
				}
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if checked < 10 {
		t.Fatalf("checked only %d files: is the test looking at the right tree?", checked)
	}
}

func TestForbiddenCatchesViolations(t *testing.T) {
	bad := map[[2]string]bool{
		{"core", "corridor/adapters/postgres"}: true,
		{"core", "corridor/app"}:               true,
		{"core", "corridor/ports"}:             true,
		{"ledger", "corridor/ports"}:           true,
		{"ports", "corridor/app"}:              true,
		{"app", "corridor/adapters/http"}:      true,
		{"app", "github.com/uptrace/bun"}:      true,
		{"app", "database/sql"}:                true,
		{"app", "corridor/wiring"}:             true,
		{"core", "corridor/core/auth"}:         false,
		{"ledger", "corridor/core"}:            false,
		{"ports", "corridor/ledger"}:           false,
		{"app", "corridor/ports"}:              false,
		{"app", "github.com/riverqueue/river"}: false,
	}
	for pair, wantBad := range bad {
		if got := forbidden(pair[0], pair[1]) != ""; got != wantBad {
			t.Errorf("forbidden(%q, %q) = %v, want %v", pair[0], pair[1], got, wantBad)
		}
	}
}
