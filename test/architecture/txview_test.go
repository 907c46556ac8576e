package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// txMethods are the repositories ports.Tx hands out, read from ports/store.go.
func txMethods(t *testing.T) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(repoRoot(t), "ports", "store.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "Tx" {
			for _, m := range ts.Type.(*ast.InterfaceType).Methods.List {
				for _, name := range m.Names {
					out[name.Name] = true
				}
			}
		}
		return true
	})
	if len(out) < 10 {
		t.Fatalf("found %d methods of ports.Tx: is the test reading the right file?", len(out))
	}
	return out
}

// TestTxViews: every package under app/ that runs units of work declares the transaction view it
// uses (type txView, the repositories it touches), so a reader finds a capability's tables in
// one place, and the view lists no repository the package never asks a transaction (a value
// named tx) for. That the package asks for nothing the view leaves out is the compiler's check
// where its units are narrowed: every package's units are (TestNarrowDoorways).
func TestTxViews(t *testing.T) {
	repos := txMethods(t)
	appDir := filepath.Join(repoRoot(t), "app")
	entries, err := os.ReadDir(appDir)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		view, used := txViewOf(t, filepath.Join(appDir, e.Name()), repos)
		if view == nil && len(used) == 0 {
			continue // no unit of work of its own (app/operations reads through its own port)
		}
		if view == nil {
			t.Errorf("app/%s declares no txView: list the repositories it asks a transaction for", e.Name())
			continue
		}
		if unused := notIn(view, used); len(unused) > 0 {
			t.Errorf("app/%s lists %s in its txView but never asks a transaction for it", e.Name(), strings.Join(unused, ", "))
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("checked only %d app packages", checked)
	}
}

// notIn lists the keys of a that b lacks, sorted.
func notIn(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// txViewOf reads one package's (non-test) files: the methods of its txView, or nil without
// one, and the repositories its code asks tx for.
func txViewOf(t *testing.T, dir string, repos map[string]bool) (view, used map[string]bool) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	used = map[string]bool{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.TypeSpec:
				if it, ok := x.Type.(*ast.InterfaceType); ok && x.Name.Name == "txView" {
					view = map[string]bool{}
					for _, m := range it.Methods.List {
						for _, name := range m.Names {
							view[name.Name] = true
						}
					}
				}
			case *ast.CallExpr:
				if sel, ok := x.Fun.(*ast.SelectorExpr); ok && len(x.Args) == 0 && repos[sel.Sel.Name] {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "tx" {
						used[sel.Sel.Name] = true
					}
				}
			}
			return true
		})
	}
	return view, used
}

// repoRoot is the repository root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	return filepath.Join("..", "..")
}
