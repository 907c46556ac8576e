package architecture

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// makeNeeds lists, for every target of the Makefile, the commands its dry run must print
// before its last command: what the target needs from a fresh clone (contract
// artifacts, bin/geth, bin/corridor) is built by the target itself, never assumed.
var makeNeeds = map[string][]string{
	"help":             nil,
	"build":            nil,
	"geth":             nil,
	"contracts":        nil,
	"fmt":              nil,
	"browser":          nil,                 // Debian's chromium, installed with apt-get when missing
	"alerts-check":     nil,                 // promtool from Debian's prometheus, installed with apt-get when missing
	"softhsm":          nil,                 // Debian's softhsm2, installed with apt-get when missing
	"lint":             {"golangci-lint@v"}, // the pinned golangci-lint, installed into bin/ when missing
	"clean-data":       nil,
	"bench-ledger":     nil, // a throwaway PostgreSQL (installed when missing) and pgbench from it
	"test":             {"contracts/build.sh"},
	"test-short":       {"contracts/build.sh"},
	"test-unit":        nil, // the app, core, ledger and ports tests need nothing built, and no database
	"test-no-pipeline": {"contracts/build.sh"},
	"fuzz":             nil, // go test -fuzz over packages that need no artifacts
	"tidy-check":       nil, // go mod tidy -diff on both modules
	"sdk-check":        nil, // sdk/check/run.sh prints the document and fetches the pinned generators and npm packages itself
	// The clients are generated from the document the binary prints, with the pinned generators.
	"sdk":      {"cmd/corridor openapi", "oapi-codegen@v"},
	"examples": {"contracts/build.sh"},
	// `corridor run` starts the local dev chain: geth, and the contracts it deploys there.
	"run":           {"go build -o bin/corridor", "contracts/build.sh", "cmd/geth@"},
	"bench":         {"go build -o bin/corridor", "contracts/build.sh", "cmd/geth@"},
	"bench-money":   {"go build -o bin/corridor", "contracts/build.sh", "cmd/geth@"},
	"chaos":         {"contracts/build.sh"},
	"race":          {"contracts/build.sh"},
	"bench-cluster": {"contracts/build.sh"},
	// The service built in its process, on a throwaway PostgreSQL and a throwaway Citus cluster.
	"bench-citus": {"contracts/build.sh"},
	"haproxy":     nil, // Debian's haproxy, installed with apt-get when missing
	// Three `corridor run` replicas on one dev chain, behind HAProxy.
	"run-cluster": {"go build -o bin/corridor", "contracts/build.sh", "cmd/geth@"},
	// The Citus extension, built from CITUS_SOURCE's tarball (Debian's build dependencies
	// installed with apt-get) only when missing.
	"citus":       nil,
	"test-citus":  {"contracts/build.sh"},
	"chaos-citus": {"contracts/build.sh"},
	// `corridor run` on a local Citus cluster: the same needs as run.
	"run-citus": {"go build -o bin/corridor", "contracts/build.sh", "cmd/geth@"},
}

// makeTarget matches a rule line of the Makefile ("name: prerequisites").
var makeTarget = regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):([^=]|$)`)

func TestMakefile_EveryTargetBuildsWhatItNeeds(t *testing.T) {
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	root := filepath.Join("..", "..")
	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range makeTarget.FindAllStringSubmatch(string(raw), -1) {
		target := m[1]
		if seen[target] {
			continue
		}
		seen[target] = true
		needs, known := makeNeeds[target]
		if !known {
			t.Errorf("Makefile target %q is not in makeNeeds: say what it needs from a fresh clone", target)
			continue
		}
		if len(needs) == 0 {
			continue
		}
		// -B plans every prerequisite as if nothing were built yet: a fresh clone.
		cmd := exec.Command(makeBin, "-n", "-B", "--no-print-directory", target)
		cmd.Dir = root
		// Under `make test` the outer make's flags would reach this one through the environment.
		cmd.Env = append(os.Environ(), "MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=")
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("make -n %s: %v\n%s", target, err, out)
			continue
		}
		checkOrder(t, target, string(out), needs)
	}
	for target := range makeNeeds {
		if !seen[target] {
			t.Errorf("makeNeeds lists %q, which the Makefile does not have", target)
		}
	}
}

// checkOrder fails unless every need appears in the dry run before its last line.
func checkOrder(t *testing.T, target, dryRun string, needs []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(dryRun), "\n")
	last := lines[len(lines)-1]
	for _, need := range needs {
		found := false
		for _, line := range lines[:len(lines)-1] {
			if strings.Contains(line, need) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("make %s runs %q without first running %q (its dry run:\n%s)", target, last, need, dryRun)
		}
	}
}
