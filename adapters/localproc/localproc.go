// Package localproc holds the small helpers the adapters that start local processes (the dev
// chain, the local PostgreSQL clusters) and the benchmarks share: a free loopback port and the
// tail of a process's log for an error message.
package localproc

import (
	"net"
	"os"
	"strings"
)

// FreePort asks the kernel for an unused loopback port. Another process may take it before the
// caller binds it; callers that can bind directly should.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Tail returns the last n lines of a file, for error messages; a file that cannot be read
// gives the reason in parentheses.
func Tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
