package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// Every periodic job runs once when its River client starts leading, then at its interval. A
// job scheduled only at its interval never runs on a service restarted more often than that (a
// deploy every few minutes against a ten-minute sweep), and nothing says so. Every job here is
// unique per period or harmless to run again, so running it at start costs one run.

// periodicWithoutStart lists the river.NewPeriodicJob calls whose options do not set
// RunOnStart: true.
func periodicWithoutStart(fset *token.FileSet, f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || !isSelector(call.Fun, "river", "NewPeriodicJob") {
			return true
		}
		if len(call.Args) != 3 || !setsRunOnStart(call.Args[2]) {
			out = append(out, fset.Position(call.Pos()).String())
		}
		return true
	})
	return out
}

func isSelector(expr ast.Expr, pkg, name string) bool {
	sel, ok := expr.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}

// setsRunOnStart reports options written as &river.PeriodicJobOpts{…, RunOnStart: true, …}.
func setsRunOnStart(expr ast.Expr) bool {
	u, ok := expr.(*ast.UnaryExpr)
	if !ok || u.Op != token.AND {
		return false
	}
	lit, ok := u.X.(*ast.CompositeLit)
	if !ok {
		return false
	}
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, kok := kv.Key.(*ast.Ident)
		val, vok := kv.Value.(*ast.Ident)
		if kok && vok && key.Name == "RunOnStart" && val.Name == "true" {
			return true
		}
	}
	return false
}

// TestPeriodicJobs_RunOnStart: every periodic job in the product runs on start.
func TestPeriodicJobs_RunOnStart(t *testing.T) {
	found := 0
	walkGoFiles(t, repoRoot(t), false, parser.SkipObjectResolution, func(fset *token.FileSet, f *ast.File) {
		for _, where := range periodicWithoutStart(fset, f) {
			t.Errorf("%s: a periodic job without RunOnStart: true never runs on a service restarted more often than its interval", where)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && isSelector(call.Fun, "river", "NewPeriodicJob") {
				found++
			}
			return true
		})
	})
	if found < 15 {
		t.Fatalf("found only %d periodic jobs: is the test looking at the right tree?", found)
	}
}

func TestPeriodicJobs_CheckCatchesMissingStart(t *testing.T) {
	src := `package p
func jobs() {
	river.NewPeriodicJob(river.PeriodicInterval(x), f, nil)
	river.NewPeriodicJob(river.PeriodicInterval(x), f, &river.PeriodicJobOpts{})
	river.NewPeriodicJob(river.PeriodicInterval(x), f, &river.PeriodicJobOpts{RunOnStart: true})
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := periodicWithoutStart(fset, f); len(got) != 2 {
		t.Fatalf("flagged %v, want the first two calls", got)
	}
}
