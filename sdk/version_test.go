package sdk_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	httpadapter "github.com/corridorhq/corridor/adapters/http"
)

// TestVersions_Agree: the API version is written once (httpadapter.APIVersion) and every place a
// partner reads a version says the same: the committed document's info.version, the TypeScript
// package's version, CHANGELOG.md's newest release and `corridor version` (its api line, and a
// development build's version with build metadata; test/api checks that the served document's
// info.version is that build version).
func TestVersions_Agree(t *testing.T) {
	want := httpadapter.APIVersion
	var doc struct {
		Info struct{ Version string } `json:"info"`
	}
	readJSON(t, filepath.Join(root, "sdk", "openapi.json"), &doc)
	if doc.Info.Version != want {
		t.Errorf("sdk/openapi.json info.version %q, want %q", doc.Info.Version, want)
	}
	var pkg struct{ Version string }
	readJSON(t, filepath.Join(root, "sdk", "typescript", "package.json"), &pkg)
	if pkg.Version != want {
		t.Errorf("sdk/typescript/package.json version %q, want %q", pkg.Version, want)
	}
	changelog, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^## \[?v?([0-9]+\.[0-9]+\.[0-9]+)\]?`).FindSubmatch(changelog)
	if m == nil || string(m[1]) != want {
		t.Errorf("CHANGELOG.md's newest release %q, want %q", m, want)
	}
	if testing.Short() {
		t.Skip("runs the corridor binary; not in -short")
	}
	version := output(t, root, "go", "run", "./cmd/corridor", "version")
	lines := strings.Split(version, "\n")
	if len(lines) < 2 || lines[1] != "api "+want {
		t.Errorf("corridor version prints %q, want the line %q", version, "api "+want)
	}
	build := strings.TrimPrefix(lines[0], "corridor ")
	if core, _, _ := strings.Cut(build, "+"); core != want && !strings.HasPrefix(build, "v") {
		t.Errorf("a development build reports %q, want %s with build metadata", build, want)
	}
}

func readJSON(t *testing.T, path string, into any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
