package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Capabilities talk through typed ports they declare, or through domain events in the same
// unit of work; never through an untyped value one side builds and the other casts back. A
// port method taking or returning `any` (or `interface{}`, or a named type that is one) hides
// what crosses the boundary from the compiler, so a wrong value fails at run time.

// untypedPorts lists, per app package, the interface methods whose parameters or results are
// untyped: "pkg.Interface.Method".
func untypedPorts(t *testing.T, files map[string]*ast.File) []string {
	t.Helper()
	byPackage := map[string][]*ast.File{}
	for path, f := range files {
		byPackage[filepath.Dir(path)] = append(byPackage[filepath.Dir(path)], f)
	}
	var out []string
	for dir, fs := range byPackage {
		untyped := map[string]bool{}
		for _, f := range fs {
			eachTypeSpec(f, func(ts *ast.TypeSpec) {
				if isUntyped(ts.Type, nil) {
					untyped[ts.Name.Name] = true
				}
			})
		}
		for _, f := range fs {
			eachTypeSpec(f, func(ts *ast.TypeSpec) {
				iface, ok := ts.Type.(*ast.InterfaceType)
				if !ok || iface.Methods == nil {
					return
				}
				for _, m := range iface.Methods.List {
					fn, ok := m.Type.(*ast.FuncType)
					if !ok || len(m.Names) == 0 || !funcUntyped(fn, untyped) {
						continue
					}
					out = append(out, filepath.ToSlash(dir)+"."+ts.Name.Name+"."+m.Names[0].Name)
				}
			})
		}
	}
	sort.Strings(out)
	return out
}

func eachTypeSpec(f *ast.File, fn func(*ast.TypeSpec)) {
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			if ts, ok := spec.(*ast.TypeSpec); ok {
				fn(ts)
			}
		}
	}
}

// funcUntyped reports a parameter or result that is untyped.
func funcUntyped(fn *ast.FuncType, untyped map[string]bool) bool {
	for _, list := range []*ast.FieldList{fn.Params, fn.Results} {
		if list == nil {
			continue
		}
		for _, field := range list.List {
			if isUntyped(field.Type, untyped) {
				return true
			}
		}
	}
	return false
}

// isUntyped reports `any`, `interface{}`, a pointer to one, or a name in untyped.
func isUntyped(expr ast.Expr, untyped map[string]bool) bool {
	switch x := expr.(type) {
	case *ast.Ident:
		return x.Name == "any" || untyped[x.Name]
	case *ast.InterfaceType:
		return x.Methods == nil || len(x.Methods.List) == 0
	case *ast.StarExpr:
		return isUntyped(x.X, untyped)
	}
	return false
}

// appFiles parses the hand-written, non-test Go files under app/.
func appFiles(t *testing.T, root string) map[string]*ast.File {
	t.Helper()
	files := map[string]*ast.File{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(root, ".."), path)
		files[rel] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestPorts_Typed(t *testing.T) {
	files := appFiles(t, filepath.Join("..", "..", "app"))
	if len(files) < 50 {
		t.Fatalf("parsed only %d files: is the test looking at the right tree?", len(files))
	}
	for _, port := range untypedPorts(t, files) {
		t.Errorf("%s takes or returns an untyped value: declare the type that crosses the boundary", port)
	}
}

// TestPorts_TypedCatchesAny proves the check finds each untyped shape.
func TestPorts_TypedCatchesAny(t *testing.T) {
	src := `package ramps
type PaymentRead any
type Opaque interface{}
type Payments interface {
	Read(in string) (PaymentRead, error)
	Propose(read any) error
	Sign(read *Opaque) error
	Typed(in string) (int, error)
}`
	f, err := parser.ParseFile(token.NewFileSet(), "ramps.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(untypedPorts(t, map[string]*ast.File{"app/ramps/ramps.go": f}), " ")
	if want := "app/ramps.Payments.Propose app/ramps.Payments.Read app/ramps.Payments.Sign"; got != want {
		t.Fatalf("found %q, want %q", got, want)
	}
}
