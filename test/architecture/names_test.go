package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The naming rule of app and core (docs/architecture.md, "Package names"): a core package is
// named for its aggregate in the singular (core/offramp, core/card), the app package that runs
// its use cases in the plural (app/offramps, app/cards) or for its activity (app/tenancy,
// app/faucet). No app package shares a name with a core package, so a file that needs both
// imports them without an alias, and a name always means the same package wherever it is read.

// packageNames are the directories holding Go files under root/layer, by package name (the
// last element of the directory's path).
func packageNames(t *testing.T, root, layer string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(filepath.Join(root, layer), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		dir := filepath.Dir(path)
		if filepath.Base(dir) == "testdata" {
			return nil
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil || rel == layer {
			return err // the layer's own root package (core) is not an aggregate
		}
		out[filepath.Base(dir)] = filepath.ToSlash(rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPackageNames_AppAndCoreDistinct(t *testing.T) {
	root := repoRoot(t)
	app, core := packageNames(t, root, "app"), packageNames(t, root, "core")
	if len(app) < 10 || len(core) < 10 {
		t.Fatalf("found %d app and %d core packages: is the test looking at the right tree?", len(app), len(core))
	}
	for name, appDir := range app {
		if coreDir, ok := core[name]; ok {
			t.Errorf("%s and %s share the name %q: name the app package for the capability (the plural, or its activity) so no import needs an alias", appDir, coreDir, name)
		}
	}
}

// aliasedProjectImports lists the imports of app and core packages in src that carry a name of
// their own ("offrampapp", "coretreasury"); a blank import is allowed.
func aliasedProjectImports(fset *token.FileSet, f *ast.File) []string {
	var out []string
	for _, spec := range f.Imports {
		imp, _ := strconv.Unquote(spec.Path.Value)
		rel, ok := strings.CutPrefix(imp, module+"/")
		if !ok || !(strings.HasPrefix(rel, "app/") || strings.HasPrefix(rel, "core/")) {
			continue
		}
		if spec.Name != nil && spec.Name.Name != "_" {
			out = append(out, fset.Position(spec.Pos()).String()+": "+spec.Name.Name+" "+spec.Path.Value)
		}
	}
	return out
}

func TestImports_NoAliasForAppOrCore(t *testing.T) {
	checked := walkGoFiles(t, repoRoot(t), true, parser.ImportsOnly, func(fset *token.FileSet, f *ast.File) {
		for _, bad := range aliasedProjectImports(fset, f) {
			t.Errorf("%s: app and core packages are imported by their own names (docs/architecture.md, \"Package names\")", bad)
		}
	})
	if checked < 200 {
		t.Fatalf("checked only %d files: is the test looking at the right tree?", checked)
	}
}

// walkGoFiles parses every Go file of the module under root (tests too when tests is set;
// hidden directories, node_modules, testdata and the sdk's own module left out) and hands each
// to fn. It returns how many it parsed.
func walkGoFiles(t *testing.T, root string, tests bool, mode parser.Mode, fn func(*token.FileSet, *ast.File)) int {
	t.Helper()
	parsed := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata" || name == "sdk") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || (!tests && strings.HasSuffix(path, "_test.go")) {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, mode)
		if err != nil {
			return err
		}
		parsed++
		fn(fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return parsed
}

func TestAliasedProjectImports(t *testing.T) {
	src := `package p
import (
	"github.com/corridorhq/corridor/app/offramps"
	offrampapp "github.com/corridorhq/corridor/app/offramps"
	coretreasury "github.com/corridorhq/corridor/core/treasury"
	_ "github.com/corridorhq/corridor/core/card"
	pg "github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core/offramp"
)
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	got := aliasedProjectImports(fset, f)
	if len(got) != 2 || !strings.Contains(got[0], "offrampapp") || !strings.Contains(got[1], "coretreasury") {
		t.Fatalf("aliased imports %q, want offrampapp and coretreasury only", got)
	}
}
