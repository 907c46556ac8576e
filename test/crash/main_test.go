// Package crash holds the crash tests of issue #30: the real binary, built with the
// `crashpoints` tag, is killed with SIGKILL at a named point between an outside effect and its
// record, started again, and the effect must be neither lost nor repeated. The binary is built
// once for the package; the tests run in parallel, each on its own database (and chain node),
// since most of their time is spent waiting for River to rescue the killed process's job.
package crash

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// crashBinary is the package's `corridor` built with -tags crashpoints.
var crashBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "corridor-crash-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	harness.MainForBinaryThen(m, func(string) error {
		crashBinary = filepath.Join(dir, "corridor")
		if out, err := exec.Command("go", "build", "-tags", "crashpoints", "-o", crashBinary, "github.com/corridorhq/corridor/cmd/corridor").CombinedOutput(); err != nil {
			return fmt.Errorf("go build -tags crashpoints: %w\n%s", err, out)
		}
		return nil
	}, func() error { return os.RemoveAll(dir) })
}
