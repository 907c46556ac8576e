package harness

import (
	"io"
	"net/http"
	"testing"
)

// Metrics scrapes the service's metrics listener (not the API port) and returns the text.
func (e *Env) Metrics(t testing.TB) string {
	t.Helper()
	resp, err := http.Get(e.MetricsURL) //nolint:gosec,noctx // the test's own loopback listener
	if err != nil {
		t.Fatalf("scrape metrics: %v", err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape metrics: status %d, %v: %s", resp.StatusCode, err, body)
	}
	return string(body)
}
