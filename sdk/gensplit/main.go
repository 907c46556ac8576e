// Command gensplit splits the one file oapi-codegen writes for the Go client into files by
// section, so no committed source file is megabytes long: models.gen.go (types and enums),
// client.gen.go (the Client and its request builders), responses.gen.go (ClientWithResponses
// and the typed responses) and parse.gen.go (the Parse…Response functions). The package's
// API is unchanged: the declarations, their order within a section and their text are what
// oapi-codegen wrote; each file gets the imports its declarations use.
//
//	go run ./sdk/go/gensplit -in generated.go -out sdk/go/corridor
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A section is one output file: it starts at the first declaration start names, or at the
// first top-level function whose name has the prefix funcPrefix.
type section struct {
	file       string
	start      string
	funcPrefix string
}

var sections = []section{
	{file: "models.gen.go"},
	{file: "client.gen.go", start: "RequestEditorFn"},
	{file: "responses.gen.go", start: "ClientWithResponses"},
	{file: "parse.gen.go", funcPrefix: "Parse"},
}

func main() {
	in := flag.String("in", "", "the file oapi-codegen wrote")
	out := flag.String("out", "", "the package directory to write the sections into")
	flag.Parse()
	if *in == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gensplit:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	src, err := os.ReadFile(in) //nolint:gosec // the path is the operator's -in flag
	if err != nil {
		return err
	}
	files, err := split(src)
	if err != nil {
		return err
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(out, name), body, 0o644); err != nil { //nolint:gosec // generated source, read by everyone
			return err
		}
	}
	return nil
}

// split returns the sections of one generated file, by file name.
func split(src []byte) (map[string][]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "generated.go", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	imports, err := importsByName(f)
	if err != nil {
		return nil, err
	}
	header, err := generatedHeader(f)
	if err != nil {
		return nil, err
	}
	bodies, used, err := sectionBodies(fset, f, src, imports)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for i, s := range sections {
		if len(bodies[i]) == 0 {
			return nil, fmt.Errorf("section %s is empty: oapi-codegen's layout changed", s.file)
		}
		var b bytes.Buffer
		b.WriteString(header)
		b.WriteString("package " + f.Name.Name + "\n\n")
		writeImports(&b, imports, used[i])
		b.Write(bodies[i])
		formatted, err := format.Source(b.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.file, err)
		}
		files[s.file] = formatted
	}
	return files, nil
}

// importsByName maps the name each import is used by in code to its spec's text.
func importsByName(f *ast.File) (map[string]string, error) {
	imports := map[string]string{}
	for _, spec := range f.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		text := spec.Path.Value
		if spec.Name != nil {
			if spec.Name.Name == "_" || spec.Name.Name == "." {
				return nil, fmt.Errorf("import %s %s: blank and dot imports are not split", spec.Name.Name, path)
			}
			name, text = spec.Name.Name, spec.Name.Name+" "+spec.Path.Value
		}
		imports[name] = text
	}
	return imports, nil
}

// sectionBodies copies every declaration (with its doc comment) into its section, in order,
// and records the imports each section uses. It fails when a comment lies between declarations,
// where no copy would carry it.
func sectionBodies(fset *token.FileSet, f *ast.File, src []byte, imports map[string]string) ([][]byte, []map[string]bool, error) {
	offset := func(p token.Pos) int { return fset.Position(p).Offset }
	var copied [][2]token.Pos // the spans copied, to prove no comment is dropped
	bodies := make([][]byte, len(sections))
	used := make([]map[string]bool, len(sections))
	current := 0
	for _, decl := range f.Decls {
		if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			continue
		}
		for current+1 < len(sections) && starts(sections[current+1], decl) {
			current++
		}
		from := decl.Pos()
		if doc := docOf(decl); doc != nil {
			from = doc.Pos()
		}
		copied = append(copied, [2]token.Pos{from, decl.End()})
		bodies[current] = append(bodies[current], src[offset(from):offset(decl.End())]...)
		bodies[current] = append(bodies[current], '\n', '\n')
		if used[current] == nil {
			used[current] = map[string]bool{}
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && imports[id.Name] != "" {
					used[current][id.Name] = true
				}
			}
			return true
		})
	}
	for _, group := range f.Comments {
		inside := group.End() <= f.Package || slices.ContainsFunc(copied, func(span [2]token.Pos) bool {
			return span[0] <= group.Pos() && group.End() <= span[1]
		})
		if !inside {
			return nil, nil, fmt.Errorf("a comment at %s lies between declarations and would be dropped", fset.Position(group.Pos()))
		}
	}
	return bodies, used, nil
}

// writeImports writes the import block of the names used: the standard library first, then
// the rest, as gofmt's grouping expects.
func writeImports(b *bytes.Buffer, imports map[string]string, used map[string]bool) {
	if len(used) == 0 {
		return
	}
	b.WriteString("import (\n")
	var std, other []string
	for _, name := range slices.Sorted(maps.Keys(used)) {
		if spec := imports[name]; strings.Contains(strings.SplitN(spec, "/", 2)[0], ".") {
			other = append(other, spec)
		} else {
			std = append(std, spec)
		}
	}
	for _, spec := range std {
		b.WriteString("\t" + spec + "\n")
	}
	if len(std) > 0 && len(other) > 0 {
		b.WriteString("\n")
	}
	for _, spec := range other {
		b.WriteString("\t" + spec + "\n")
	}
	b.WriteString(")\n\n")
}

// generatedHeader is the "Code generated … DO NOT EDIT." line of the input, which every output
// file repeats so tools treat it as generated.
func generatedHeader(f *ast.File) (string, error) {
	for _, group := range f.Comments {
		for _, c := range group.List {
			if strings.HasPrefix(c.Text, "// Code generated ") && strings.HasSuffix(c.Text, " DO NOT EDIT.") {
				return c.Text + "\n\n", nil
			}
		}
	}
	return "", errors.New(`no "Code generated … DO NOT EDIT." line in the input`)
}

func starts(s section, decl ast.Decl) bool {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		return s.funcPrefix != "" && d.Recv == nil && strings.HasPrefix(d.Name.Name, s.funcPrefix)
	case *ast.GenDecl:
		if s.start == "" || d.Tok != token.TYPE {
			return false
		}
		for _, spec := range d.Specs {
			if spec.(*ast.TypeSpec).Name.Name == s.start {
				return true
			}
		}
	}
	return false
}

func docOf(decl ast.Decl) *ast.CommentGroup {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		return d.Doc
	case *ast.GenDecl:
		return d.Doc
	}
	return nil
}
