package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// maxFunctionLines bounds a hand-written function, from its signature to its closing brace
// (TigerStyle's limit): past it a reader cannot hold the function at once, and it usually does
// several things that want names of their own.
const maxFunctionLines = 70

// longReason is the doc comment line that lets a function pass maxFunctionLines, followed by
// why splitting it would hurt more than its length ("// long: one table read top to bottom").
const longReason = "long:"

// longFunction is a function past maxFunctionLines.
type longFunction struct {
	where string
	lines int
}

// longFunctions lists the functions of one file past maxFunctionLines whose doc comment gives
// no reason.
func longFunctions(fset *token.FileSet, f *ast.File) []longFunction {
	var out []longFunction
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
		if lines <= maxFunctionLines || hasLongReason(fd.Doc) {
			continue
		}
		name := fd.Name.Name
		if recv := receiverType(fd); recv != "" {
			name = recv + "." + name
		}
		out = append(out, longFunction{where: fset.Position(fd.Pos()).String() + " " + name, lines: lines})
	}
	return out
}

// hasLongReason reports whether a doc comment carries a "// long: why" line with a reason.
func hasLongReason(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for _, c := range doc.List {
		if reason, ok := strings.CutPrefix(strings.TrimSpace(strings.TrimPrefix(c.Text, "//")), longReason); ok && strings.TrimSpace(reason) != "" {
			return true
		}
	}
	return false
}

// TestFunctions_AtMostSeventyLines: every hand-written function outside tests fits in
// maxFunctionLines, or says in its doc comment why it is longer. Tests are left out: a
// journey test reads as one story, and its steps are already named by its assertions.
func TestFunctions_AtMostSeventyLines(t *testing.T) {
	checked := walkGoFiles(t, repoRoot(t), false, parser.ParseComments|parser.SkipObjectResolution, func(fset *token.FileSet, f *ast.File) {
		if ast.IsGenerated(f) {
			return
		}
		for _, long := range longFunctions(fset, f) {
			t.Errorf("%s is %d lines: split it (at most %d), or say why not in a %q line of its doc comment", long.where, long.lines, maxFunctionLines, "// "+longReason)
		}
	})
	if checked < 200 {
		t.Fatalf("checked only %d files: is the test looking at the right tree?", checked)
	}
}

func TestLongFunctions(t *testing.T) {
	body := strings.Repeat("\tx++\n", maxFunctionLines)
	src := "package p\n\nfunc Short() {\n\tx++\n}\n\nfunc Long() {\n" + body + "}\n\n" +
		"// Reasoned is long on purpose.\n// long: one table read top to bottom.\nfunc Reasoned() {\n" + body + "}\n\n" +
		"// long:\nfunc EmptyReason() {\n" + body + "}\n\nfunc (s *Server) Method() {\n" + body + "}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, long := range longFunctions(fset, f) {
		got = append(got, long.where[strings.LastIndex(long.where, " ")+1:])
	}
	if strings.Join(got, ",") != "Long,EmptyReason,Server.Method" {
		t.Fatalf("long functions %q, want Long, EmptyReason and Server.Method", got)
	}
}
