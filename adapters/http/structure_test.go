package http

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// maxMethodsPerType is the most methods a hand-written type of this package may have
// (issues #28 and #43): past it, a type is doing several capabilities' work.
const maxMethodsPerType = 40

// packageFiles parses the package's own (non-test) files.
func packageFiles(t *testing.T) []*ast.File {
	t.Helper()
	files, _ := parsedPackage(t)
	return files
}

// parsedPackage parses the package's own (non-test) files with the file set that names them.
func parsedPackage(t *testing.T) ([]*ast.File, *token.FileSet) {
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
	return files, fset
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

// TestStructure_NoTypeHasTooManyMethods: no type of the adapter has more than 40 methods.
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

// capabilityFile is the file a capability's handler type lives in: its name without the
// Handlers suffix, in snake case (safePaymentsHandlers: safe_payments.go).
func capabilityFile(handlerType string) string {
	var b strings.Builder
	for i, r := range strings.TrimSuffix(handlerType, "Handlers") {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String() + ".go"
}

// TestStructure_OneFilePerCapability: a capability's HTTP surface reads in one file. Each
// handler type, its route table entries and every handler method stand in the file named after
// it (cardsHandlers: cards.go), and no file is left of the old split by layer (dto_*, endpoints_*,
// handlers_*), so a reader never assembles one capability from three places.
func TestStructure_OneFilePerCapability(t *testing.T) {
	files, fset := parsedPackage(t)
	where := func(n ast.Node) string { return fset.Position(n.Pos()).Filename }
	declared := map[string]string{}
	for _, f := range files {
		name := where(f)
		for _, prefix := range []string{"dto_", "endpoints_", "handlers_"} {
			if strings.HasPrefix(name, prefix) {
				t.Errorf("%s splits a capability by layer; its declarations belong in the capability's file", name)
			}
		}
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, spec := range gd.Specs {
					if n := spec.(*ast.TypeSpec).Name.Name; strings.HasSuffix(n, "Handlers") {
						declared[n] = name
					}
				}
			}
		}
	}
	if len(declared) < 16 {
		t.Fatalf("found %d handler types (%v), want one per capability", len(declared), declared)
	}
	for typ, file := range declared {
		if want := capabilityFile(typ); file != want {
			t.Errorf("%s is declared in %s, want %s", typ, file, want)
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			if typ := receiverType(fd); declared[typ] != "" && where(fd) != capabilityFile(typ) {
				t.Errorf("%s.%s is in %s, want %s with its capability", typ, fd.Name.Name, where(fd), capabilityFile(typ))
			}
		}
	}
}

func TestCapabilityFile(t *testing.T) {
	for in, want := range map[string]string{"cardsHandlers": "cards.go", "safePaymentsHandlers": "safe_payments.go", "requestLogsHandlers": "request_logs.go"} {
		if got := capabilityFile(in); got != want {
			t.Errorf("capabilityFile(%q) = %q, want %q", in, got, want)
		}
	}
}
