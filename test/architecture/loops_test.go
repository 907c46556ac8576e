package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Capabilities are built in the order they depend on each other, and the way back is a domain
// event raised in the raiser's unit of work (kernel.Subscribers), never a wiring type that holds
// the registry of services and reaches the other one at call time: such a type closes a cycle
// the compiler cannot see, bound late, and fails only when called. And a port one capability
// declares for another passes no ports.Tx: the whole transaction would let the callee reach every
// repository on the caller's behalf.

// registryType is the wiring type that holds every service while they are built; rootType is
// what wiring.Build returns, which embeds it once everything is built (the root, not a port).
const (
	registryType = "registry"
	rootType     = "Service"
)

// lateBindings lists the struct types other than the root holding the registry (or a pointer
// to it): "file.Type.field".
func lateBindings(files map[string]*ast.File) []string {
	var out []string
	for path, f := range files {
		eachTypeSpec(f, func(ts *ast.TypeSpec) {
			st, ok := ts.Type.(*ast.StructType)
			if !ok || ts.Name.Name == registryType || ts.Name.Name == rootType {
				return
			}
			for _, field := range st.Fields.List {
				if !namesType(field.Type, registryType) {
					continue
				}
				name := registryType
				if len(field.Names) > 0 {
					name = field.Names[0].Name
				}
				out = append(out, filepath.ToSlash(path)+"."+ts.Name.Name+"."+name)
			}
		})
	}
	sort.Strings(out)
	return out
}

// namesType reports a field type that is name, *name, or a slice, array or map of them.
func namesType(expr ast.Expr, name string) bool {
	switch x := expr.(type) {
	case *ast.Ident:
		return x.Name == name
	case *ast.StarExpr:
		return namesType(x.X, name)
	case *ast.ArrayType:
		return namesType(x.Elt, name)
	case *ast.MapType:
		return namesType(x.Key, name) || namesType(x.Value, name)
	}
	return false
}

// txPorts lists the interface methods declared in capability packages (not the kernel) that
// take ports.Tx: "pkg.Interface.Method".
func txPorts(files map[string]*ast.File) []string {
	var out []string
	for path, f := range files {
		dir := filepath.ToSlash(filepath.Dir(path))
		if dir == "app/"+kernelPackage || strings.HasPrefix(dir, "app/"+kernelPackage+"/") {
			continue
		}
		eachTypeSpec(f, func(ts *ast.TypeSpec) {
			iface, ok := ts.Type.(*ast.InterfaceType)
			if !ok || iface.Methods == nil {
				return
			}
			for _, m := range iface.Methods.List {
				fn, ok := m.Type.(*ast.FuncType)
				if ok && len(m.Names) > 0 && takesTx(fn) {
					out = append(out, dir+"."+ts.Name.Name+"."+m.Names[0].Name)
				}
			}
		})
	}
	sort.Strings(out)
	return out
}

func takesTx(fn *ast.FuncType) bool {
	if fn.Params == nil {
		return false
	}
	for _, field := range fn.Params.List {
		if sel, ok := field.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Tx" {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "ports" {
				return true
			}
		}
	}
	return false
}

func TestWiring_NoLateBoundLoops(t *testing.T) {
	files := appFiles(t, filepath.Join("..", "..", "wiring"))
	if len(files) < 5 {
		t.Fatalf("parsed only %d wiring files: is the test looking at the right tree?", len(files))
	}
	for _, b := range lateBindings(files) {
		t.Errorf("%s holds the registry: the capability it reaches is bound late, closing a cycle; raise a domain event instead (kernel.Subscribers)", b)
	}
}

func TestPorts_PassNoTransaction(t *testing.T) {
	files := appFiles(t, filepath.Join("..", "..", "app"))
	if len(files) < 50 {
		t.Fatalf("parsed only %d files: is the test looking at the right tree?", len(files))
	}
	for _, port := range txPorts(files) {
		t.Errorf("%s takes ports.Tx: a port between capabilities passes what the callee needs (a view the callee declares), or the callee reacts to a domain event", port)
	}
}

// TestLoops_CheckCatchesEach proves both checks find what they look for.
func TestLoops_CheckCatchesEach(t *testing.T) {
	wiring := `package wiring
type registry struct{ Claims any }
type heldPayments struct{ s *registry }
type byValue struct{ registry }
type fine struct{ n int }
type Service struct{ *registry }`
	f, err := parser.ParseFile(token.NewFileSet(), "offramp.go", wiring, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(lateBindings(map[string]*ast.File{"wiring/offramp.go": f}), " ")
	if want := "wiring/offramp.go.byValue.registry wiring/offramp.go.heldPayments.s"; got != want {
		t.Fatalf("late bindings %q, want %q", got, want)
	}
	app := `package claims
type Payments interface {
	Post(ctx context.Context, tx ports.Tx, amount int64) error
	Ready() error
	Narrow(ctx context.Context, repo ports.ClaimRepo) error
}`
	kernel := `package kernel
type SpendDecider interface{ Decide(ctx context.Context, tx ports.Tx) error }`
	fa, err := parser.ParseFile(token.NewFileSet(), "claims.go", app, 0)
	if err != nil {
		t.Fatal(err)
	}
	fk, err := parser.ParseFile(token.NewFileSet(), "guard.go", kernel, 0)
	if err != nil {
		t.Fatal(err)
	}
	got = strings.Join(txPorts(map[string]*ast.File{"app/claims/claims.go": fa, "app/kernel/guard.go": fk}), " ")
	if want := "app/claims.Payments.Post"; got != want {
		t.Fatalf("tx ports %q, want %q", got, want)
	}
}
