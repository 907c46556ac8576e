package localproc_test

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/adapters/localproc"
)

// TestTail: the last lines of a file, all of a short one, and the reason for a missing one.
func TestTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, []byte("a\nb\nc\nd\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := localproc.Tail(path, 2); got != "c\nd" {
		t.Fatalf("Tail 2 = %q", got)
	}
	if got := localproc.Tail(path, 10); got != "a\nb\nc\nd" {
		t.Fatalf("Tail 10 = %q", got)
	}
	if got := localproc.Tail(filepath.Join(t.TempDir(), "none"), 2); !strings.HasPrefix(got, "(") {
		t.Fatalf("a missing file: %q", got)
	}
}

// TestFreePort: the port answered can be bound on loopback.
func TestFreePort(t *testing.T) {
	port, err := localproc.FreePort()
	if err != nil || port <= 0 {
		t.Fatalf("FreePort = %d, %v", port, err)
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("the free port %d cannot be bound: %v", port, err)
	}
	_ = l.Close()
}
