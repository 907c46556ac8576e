package sdk_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	httpadapter "github.com/corridorhq/corridor/adapters/http"
)

// root is the repository root, from this package's directory.
const root = ".."

// makeVariable reads NAME := value from the Makefile, where the pinned versions live once.
func makeVariable(t *testing.T, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + name + `\s*:=\s*(\S+)`).FindSubmatch(raw)
	if m == nil {
		t.Fatalf("the Makefile does not set %s", name)
	}
	return string(m[1])
}

// runIn runs a command in dir ("" for this package's directory), failing the test with its
// output if it fails.
func runIn(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// TestSDK_IsCurrent: the committed document (sdk/openapi.json) is the one the route table
// builds, and the committed Go client is what the pinned oapi-codegen generates from it, byte
// for byte; otherwise `make sdk` was not run after a change to the API.
func TestSDK_IsCurrent(t *testing.T) {
	raw, err := json.MarshalIndent(httpadapter.Document(httpadapter.APIVersion), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join(root, "sdk", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(raw, '\n'), committed) {
		t.Fatal("sdk/openapi.json is stale: run make sdk")
	}
	if testing.Short() {
		t.Skip("regenerating the client runs oapi-codegen; not in -short")
	}
	dir := t.TempDir()
	config, err := os.ReadFile(filepath.Join(root, "sdk", "go", "oapi-codegen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	generated := filepath.Join(dir, "corridor.gen.tmp")
	config = []byte(strings.Replace(string(config), "output: sdk/go/corridor.gen.tmp", "output: "+generated, 1))
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), config, 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) { runIn(t, "", name, args...) }
	run("go", "run", "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@"+makeVariable(t, "OAPI_CODEGEN_VERSION"),
		"-config", filepath.Join(dir, "config.yaml"), filepath.Join(root, "sdk", "openapi.json"))
	split := filepath.Join(dir, "split")
	if err := os.Mkdir(split, 0o700); err != nil {
		t.Fatal(err)
	}
	run("go", "run", filepath.Join(root, "sdk", "gensplit"), "-in", generated, "-out", split)

	fresh, _ := filepath.Glob(filepath.Join(split, "*.gen.go"))
	client := filepath.Join(root, "sdk", "go", "corridor")
	current, _ := filepath.Glob(filepath.Join(client, "*.gen.go"))
	if len(fresh) != len(current) {
		t.Fatalf("generated files %v, committed %v: run make sdk", fresh, current)
	}
	for _, path := range fresh {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(client, filepath.Base(path)))
		if err != nil || !bytes.Equal(want, got) {
			t.Fatalf("sdk/go/corridor/%s is stale: run make sdk", filepath.Base(path))
		}
		// No committed source file is megabytes long (the repository's size check).
		if len(got) > 2<<20 {
			t.Fatalf("sdk/go/corridor/%s is %d bytes: give gensplit another section", filepath.Base(path), len(got))
		}
	}
}

// TestSDK_TypeScriptIsCurrent: the committed TypeScript types (sdk/typescript/src/schema.d.ts)
// are what the pinned openapi-typescript generates from sdk/openapi.json, and the client and
// its example type-check against them.
func TestSDK_TypeScriptIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("installs the pinned openapi-typescript with npm; not in -short")
	}
	dir := filepath.Join(root, "sdk", "typescript")
	run := func(name string, args ...string) { runIn(t, dir, name, args...) }
	run("npm", "ci", "--no-audit", "--no-fund")
	fresh := filepath.Join(t.TempDir(), "schema.d.ts")
	run("npx", "--no-install", "openapi-typescript", "../openapi.json", "--output", fresh)
	want, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "src", "schema.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got) {
		t.Fatal("sdk/typescript/src/schema.d.ts is stale: run make sdk")
	}
	run("npm", "run", "typecheck")
}
