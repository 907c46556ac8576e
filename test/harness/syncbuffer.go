package harness

import (
	"bytes"
	"sync"
)

// SyncBuffer collects what a server or a child process writes (its log lines, its output)
// while the test reads it: writes and reads take turns, so the race detector stays quiet.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
