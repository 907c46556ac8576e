package sdk_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// serviceModules are modules of the service that a program using only the Go client must never
// pull into its build: the chain client, the HTTP server, the database layer, the job queue.
var serviceModules = []string{
	"github.com/ethereum/go-ethereum", "github.com/gofiber/fiber", "github.com/uptrace/bun",
	"github.com/riverqueue/river", "github.com/jackc/pgx", "github.com/testcontainers",
	"github.com/corridorhq/corridor ",
}

// scratchProgram is a partner's program: it imports the client, builds one and names a route,
// which is enough for the linker to need the client's whole dependency graph.
const scratchProgram = `package main

import (
	"context"
	"fmt"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
)

func main() {
	client, err := corridor.NewClientWithResponses("http://127.0.0.1:1")
	if err != nil {
		panic(err)
	}
	_, err = client.GetCapabilitiesWithResponse(context.Background())
	fmt.Println(err != nil)
}
`

// TestSDKModule_BuildsAlone: a program outside this repository gets the Go client through a
// replace of github.com/corridorhq/corridor/sdk/go/v2 (as `go get` would with a published tag),
// builds, and its module graph holds none of the service's dependencies.
func TestSDKModule_BuildsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with the go command; not in -short")
	}
	sdkDir, err := filepath.Abs(filepath.Join(root, "sdk", "go"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	goMod := "module example.com/partner\n\ngo 1.26.0\n\nrequire github.com/corridorhq/corridor/sdk/go/v2 v2.0.0\n\n" +
		"replace github.com/corridorhq/corridor/sdk/go/v2 => " + sdkDir + "\n"
	writeFile(t, filepath.Join(dir, "go.mod"), goMod)
	writeFile(t, filepath.Join(dir, "main.go"), scratchProgram)
	runIn(t, dir, "go", "mod", "tidy")
	runIn(t, dir, "go", "build", "-o", filepath.Join(dir, "partner"), ".")
	graph := output(t, dir, "go", "list", "-m", "all")
	for _, m := range serviceModules {
		if strings.Contains(graph+"\n", m) {
			t.Errorf("the partner's module graph holds %s:\n%s", strings.TrimSpace(m), graph)
		}
	}
	required := output(t, sdkDir, "go", "list", "-m", "-f", "{{if not .Main}}{{.Path}}{{end}}", "all")
	for _, m := range serviceModules {
		if strings.Contains(required+"\n", m) {
			t.Errorf("sdk/go's own module graph holds %s:\n%s", strings.TrimSpace(m), required)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// output runs a command in dir and returns its standard output, failing the test if it fails.
func output(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if e, ok := err.(*exec.ExitError); ok {
			stderr = string(e.Stderr)
		}
		t.Fatalf("%s %v: %v\n%s", name, args, err, stderr)
	}
	return string(out)
}
