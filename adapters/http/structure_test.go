package http

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
	"testing"
)

// maxMethodsPerType is the most methods a hand-written type of this package may have
// (issue #28): past it, a type is doing several capabilities' work.
const maxMethodsPerType = 60

// packageFiles parses the package's own (non-test) files.
func packageFiles(t *testing.T) []*ast.File {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// receiverType is the base type name of a method's receiver.
func receiverType(fd *ast.FuncDecl) string {
	expr := fd.Recv.List[0].Type
	if star, ok := expr.(*ast.StarExpr); ok {
		expr = star.X
	}
	if id, ok := expr.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// TestStructure_NoTypeHasTooManyMethods: no type of the adapter has more than 60 methods.
func TestStructure_NoTypeHasTooManyMethods(t *testing.T) {
	methods := map[string]int{}
	for _, f := range packageFiles(t) {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
				methods[receiverType(fd)]++
			}
		}
	}
	if methods["Server"] == 0 || methods["walletsHandlers"] == 0 {
		t.Fatalf("the method count found no Server or walletsHandlers methods: %v", methods)
	}
	for typ, n := range methods {
		if n > maxMethodsPerType {
			t.Errorf("%s has %d methods, more than %d: give a capability its own handler type", typ, n, maxMethodsPerType)
		}
	}
}

// TestStructure_HandlerTypesHoldOneService: each capability's handler type holds exactly one
// app service (a field of type *<capability>.Service); any other capability it needs is a
// small interface it declares. Server holds no capability's service.
func TestStructure_HandlerTypesHoldOneService(t *testing.T) {
	services := map[string][]string{}
	for _, f := range packageFiles(t) {
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := spec.Type.(*ast.StructType)
			if !ok || (spec.Name.Name != "Server" && !strings.HasSuffix(spec.Name.Name, "Handlers")) {
				return true
			}
			services[spec.Name.Name] = []string{}
			for _, field := range st.Fields.List {
				if isAppService(field.Type) {
					services[spec.Name.Name] = append(services[spec.Name.Name], fieldNames(field))
				}
			}
			return true
		})
	}
	var handlerTypes []string
	for typ := range services {
		if typ != "Server" {
			handlerTypes = append(handlerTypes, typ)
		}
	}
	sort.Strings(handlerTypes)
	if len(handlerTypes) < 16 {
		t.Fatalf("found %d handler types (%v), want one per capability", len(handlerTypes), handlerTypes)
	}
	for _, typ := range handlerTypes {
		if got := services[typ]; len(got) != 1 {
			t.Errorf("%s holds %d services (%v), want exactly its own", typ, len(got), got)
		}
	}
	if got := services["Server"]; len(got) != 0 {
		t.Errorf("Server holds services %v; they belong to the handler types", got)
	}
}

// isAppService reports whether a field's type is a pointer to an app package's Service.
func isAppService(expr ast.Expr) bool {
	star, ok := expr.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Service"
}

func fieldNames(f *ast.Field) string {
	var names []string
	for _, n := range f.Names {
		names = append(names, n.Name)
	}
	return strings.Join(names, ",")
}
