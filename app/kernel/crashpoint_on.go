//go:build crashpoints

package kernel

import (
	"os"
	"strings"
)

// crashAt is the crash point this process dies at, read once at start.
var crashAt = strings.TrimSpace(os.Getenv("CORRIDOR_CRASH_POINT"))

// CrashPoint kills the process with SIGKILL when name is CORRIDOR_CRASH_POINT, as a power cut
// or the kernel's OOM killer would: no deferred function, no rollback, no graceful shutdown.
func CrashPoint(name string) {
	if crashAt == "" || name != crashAt {
		return
	}
	self, err := os.FindProcess(os.Getpid())
	if err == nil {
		_ = self.Kill() // SIGKILL on Unix
	}
	select {} // never go on past the point, even while the signal is delivered
}
