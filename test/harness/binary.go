package harness

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/testdb"
)

// MainForBinary is the TestMain of a package whose tests run the real binary themselves (the
// crash tests of test/crash): a PostgreSQL server, on which each test makes its own database
// (testdb.NewDatabase), and no in-process service. Requests go through Env.Client as usual, on
// an Env whose BaseURL is the binary's.
func MainForBinary(m *testing.M) { testdb.Main(m, nil) }

// MainForBinaryThen is MainForBinary with a setup run once before the tests (building the
// binary they start) and a check run after them (removing it).
func MainForBinaryThen(m *testing.M, setup func(databaseURL string) error, after func() error) {
	testdb.MainThen(m, setup, after)
}

// WaitHealthy polls base/healthz until it answers 200, the process ends (exited closes) or limit
// passes.
func WaitHealthy(base string, exited <-chan struct{}, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-exited:
			return errors.New("the process ended before it was ready")
		default:
		}
		if resp, err := httpClient.Get(base + "/healthz"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return errors.New("never answered /healthz")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// PostIgnoringAnswer sends a POST with the client's headers and drops whatever comes back, or
// the failure to get anything: a crash test's request whose outcome kills the service may lose
// its answer. Nothing is checked against the contract, since there may be nothing to check.
func (c *Client) PostIgnoringAnswer(path, body string) {
	req, err := http.NewRequest(http.MethodPost, c.env.BaseURL+path, strings.NewReader(body))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	if resp, err := httpClient.Do(req); err == nil {
		_ = resp.Body.Close()
	}
}
