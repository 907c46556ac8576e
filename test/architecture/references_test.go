package architecture

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// outsideDocuments are citations of documents this repository does not hold: the design and
// specification notes the project started from, and their numbered decisions ("docs/decisions/ledger.md", "").
// A rule the code relies on is written in docs/ (docs/architecture.md, docs/decisions/).
var outsideDocuments = regexp.MustCompile(`\b(SPEC|DESIGN)\.md\b|(^|[\s(,;])D[0-9]{1,2}\b|§ ?[0-9]`)

// docPath is a path to a Markdown document written in the tree (under docs/, README.md), or a
// relative Markdown link target.
var docPath = regexp.MustCompile(`(?:\]\(|\b)((?:\.\./|\./)?(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-]+\.md)\b`)

// TestReferences_Resolve: no tracked source or document cites a document the repository does
// not hold, and every Markdown document a file names exists (beside the file for a relative
// link in docs/, else from the repository root). Decisions waiting to be folded in
// (docs/decisions/incoming-*.md) are neither scanned nor required.
func TestReferences_Resolve(t *testing.T) {
	root := filepath.Join("..", "..")
	out, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a checkout)", err)
	}
	scanned := 0
	for _, file := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !scannable(file) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			continue // deleted in the working tree
		}
		scanned++
		for n, line := range strings.Split(string(raw), "\n") {
			if m := outsideDocuments.FindString(line); m != "" {
				t.Errorf("%s:%d cites %q, a document the repository does not hold: %s", file, n+1, strings.TrimSpace(m), strings.TrimSpace(line))
			}
			for _, ref := range docPath.FindAllStringSubmatch(line, -1) {
				if !resolves(root, file, ref[1]) {
					t.Errorf("%s:%d names %s, which does not exist", file, n+1, ref[1])
				}
			}
		}
	}
	if scanned < 500 {
		t.Fatalf("only %d files scanned", scanned)
	}
}

// scannable keeps the project's own text: sources, docs, SQL, configuration; not vendored or
// generated output, binaries, or decisions waiting to be folded in.
func scannable(file string) bool {
	for _, skip := range []string{"node_modules/", "contracts/build/", "bin/", ".data/", "testdata/"} {
		if strings.Contains(file, skip) {
			return false
		}
	}
	if strings.HasPrefix(filepath.Base(file), "incoming-") || strings.HasSuffix(file, "package-lock.json") {
		return false
	}
	switch filepath.Ext(file) {
	case ".go", ".md", ".sql", ".yml", ".yaml", ".sh", ".ts", ".html", ".json", ".txt":
		return true
	}
	return filepath.Base(file) == "Makefile"
}

// resolves reports whether ref, named in file, is a document of the repository.
func resolves(root, file, ref string) bool {
	if strings.HasPrefix(filepath.Base(ref), "incoming-") || strings.Contains(ref, "node_modules") ||
		strings.HasSuffix(file, "_test.go") && strings.Contains(file, "test/architecture/") {
		return true
	}
	candidates := []string{filepath.Join(root, ref), filepath.Join(root, filepath.Dir(file), ref)}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return true
		}
	}
	return false
}
