package chain

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestSimulated_LeavesNoKeystoreBehind: a simulated chain that is never closed (a package's
// shared one, a panicking test's) leaves no temporary keystore directory behind: its node uses
// the one directory every simulated node shares.
func TestSimulated_LeavesNoKeystoreBehind(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // os.TempDir, where the node would make its own
	a, err := NewSimulated(context.Background(), SimulatedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != filepath.Base(simulatedKeystore()) {
			t.Errorf("the simulated chain left %s in the temporary directory", e.Name())
		}
	}
}
