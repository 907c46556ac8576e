package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// kernelMechanism are the app/kernel files that may name the whole transaction: the mechanism
// that narrows it (units.go), the store decorator the spend guard wraps around the ledger
// (spendledger.go), and the domain events that hand a raiser's transaction to each reactor's
// narrow (domain_events.go).
var kernelMechanism = map[string]bool{"units.go": true, "spendledger.go": true, "domain_events.go": true}

// TestNarrowDoorways: no app package's non-test code names ports.Tx (the transaction with
// every repository) except in its one narrowing adapter, `func narrow(tx ports.Tx) txView`,
// which kernel.NewUnits takes. Every unit of work, helper and reaction therefore holds the
// package's txView, and the compiler refuses a repository the view does not list.
func TestNarrowDoorways(t *testing.T) {
	appDir := filepath.Join(repoRoot(t), "app")
	entries, err := os.ReadDir(appDir)
	if err != nil {
		t.Fatal(err)
	}
	narrowed := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		pkg := e.Name()
		stray, narrows := wholeTxMentions(t, filepath.Join(appDir, pkg), pkg == "kernel")
		if len(stray) > 0 {
			t.Errorf("app/%s names ports.Tx outside its narrowing adapter (take tx txView, open units through kernel.Units):\n\t%s",
				pkg, strings.Join(stray, "\n\t"))
		}
		if narrows > 1 {
			t.Errorf("app/%s declares %d narrowing adapters: one per package", pkg, narrows)
		}
		if narrows == 1 {
			narrowed++
		}
	}
	if narrowed < 15 {
		t.Fatalf("found only %d packages with a narrowing adapter: is the test reading app/?", narrowed)
	}
}

// wholeTxMentions lists the places in dir's non-test files that name ports.Tx outside a
// narrowing adapter (and, in the kernel, outside its mechanism files), and counts the adapters.
func wholeTxMentions(t *testing.T, dir string, kernel bool) (stray []string, narrows int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") || (kernel && kernelMechanism[filepath.Base(path)]) {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if isNarrow(decl) {
				narrows++
				continue
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				if isWholeTx(n) {
					p := fset.Position(n.Pos())
					stray = append(stray, filepath.Base(p.Filename)+":"+strconv.Itoa(p.Line))
				}
				return true
			})
		}
	}
	sort.Strings(stray)
	return stray, narrows
}

// isNarrow reports whether decl is the narrowing adapter: func narrow(tx ports.Tx) txView.
func isNarrow(decl ast.Decl) bool {
	fn, ok := decl.(*ast.FuncDecl)
	if !ok || fn.Recv != nil || fn.Name.Name != "narrow" {
		return false
	}
	params, results := fn.Type.Params.List, fn.Type.Results
	if len(params) != 1 || len(params[0].Names) != 1 || !isWholeTx(params[0].Type) || results == nil || len(results.List) != 1 {
		return false
	}
	id, ok := results.List[0].Type.(*ast.Ident)
	return ok && id.Name == "txView"
}

// isWholeTx reports whether n is the expression ports.Tx.
func isWholeTx(n ast.Node) bool {
	sel, ok := n.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Tx" {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == "ports"
}
