package http

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core"
)

// declaredCodes walks core and its packages and returns every constant of type core.Code (or
// Code inside package core) with the file that declares it. A code is declared once, so the
// map's value is where it lives.
func declaredCodes(t *testing.T) map[core.Code]string {
	t.Helper()
	codes := map[core.Code]string{}
	root := filepath.Join("..", "..", "core")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if !isCodeType(vs.Type, f.Name.Name) {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Errorf("%s: a Code constant must be a string literal", path)
						continue
					}
					s, _ := strconv.Unquote(lit.Value)
					codes[core.Code(s)] = path
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return codes
}

func isCodeType(expr ast.Expr, pkg string) bool {
	switch x := expr.(type) {
	case *ast.Ident:
		return pkg == "core" && x.Name == "Code"
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		return ok && id.Name == "core" && x.Sel.Name == "Code"
	}
	return false
}

// TestStatusTable_EveryCoreCodeHasAnExplicitStatus keeps the one mapping table complete: a new
// code in core without a status here fails, instead of falling through to a default.
func TestStatusTable_EveryCoreCodeHasAnExplicitStatus(t *testing.T) {
	codes := declaredCodes(t)
	if len(codes) < 40 {
		t.Fatalf("found only %d codes in core: is the walk looking at the right tree?", len(codes))
	}
	for code, file := range codes {
		if _, ok := statusByCode[code]; !ok {
			t.Errorf("%s (declared in %s) has no entry in statusByCode", code, file)
		}
	}
	for code := range statusByCode {
		if _, ok := codes[code]; !ok {
			t.Errorf("statusByCode maps %s, which no core package declares as a Code constant", code)
		}
	}
}

func TestStatusFor_UnknownCodeIsInternal(t *testing.T) {
	if got := StatusFor("NOT_A_DECLARED_CODE"); got != 500 {
		t.Fatalf("StatusFor(unknown) = %d, want 500", got)
	}
}

// A request whose deadline passed answers SERVICE_UNAVAILABLE (503), never a 500.
func TestToDomain_DeadlineIsServiceUnavailable(t *testing.T) {
	for _, err := range []error{context.DeadlineExceeded, fmt.Errorf("query: %w", context.Canceled)} {
		if de := toDomain(err); de == nil || de.Code != core.CodeServiceUnavailable || StatusFor(de.Code) != 503 {
			t.Errorf("%v: got %v", err, de)
		}
	}
}
