package webhooks

import (
	"testing"
	"time"
)

// poll calls get until done holds, for up to 30 s.
func poll(t *testing.T, get func() map[string]any, done func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m := get()
		if done(m) {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting; last: %v", m)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
