package http

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
)

// readinessTimeout bounds each readiness check: a part slower than this cannot serve requests
// in time either, so it counts as down.
const readinessTimeout = 2 * time.Second

// ReadinessCheck is one part /readyz requires: the database, each configured chain, the job
// workers. Problem is what the body says when Check fails; the error itself is only logged,
// since /readyz answers without credentials.
type ReadinessCheck struct {
	Name    string
	Check   func(ctx context.Context) error
	Problem string
}

// readinessResponse is /readyz's answer when every part is ready.
type readinessResponse struct {
	Status string            `json:"status" oas:"required,enum=ok"`
	Checks map[string]string `json:"checks" oas:"required" description:"each part checked (database, jobs, chain:TEST, chain:LIVE) and ok"`
}

// readyz runs every check at once, each within readinessTimeout, and answers 503
// SERVICE_UNAVAILABLE naming the parts that failed (details.checks) when any did.
func (s *Server) readyz(c *fiber.Ctx) error {
	checks := s.readinessChecks()
	results := make(map[string]string, len(checks))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, check := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(c.UserContext(), readinessTimeout)
			defer cancel()
			result := "ok"
			if err := check.Check(ctx); err != nil {
				result = check.Problem
				s.log.Warn("readiness check failed", "requestId", requestID(c), "check", check.Name, "error", err.Error())
			}
			mu.Lock()
			results[check.Name] = result
			mu.Unlock()
		}()
	}
	wg.Wait()
	failed := failedChecks(results)
	if len(failed) == 0 {
		return c.JSON(readinessResponse{Status: "ok", Checks: results})
	}
	return c.Status(fiber.StatusServiceUnavailable).JSON(Envelope{StatusCode: fiber.StatusServiceUnavailable,
		Code: "SERVICE_UNAVAILABLE", Message: "not ready: " + strings.Join(failed, ", "), RequestID: requestID(c),
		Details: map[string]any{"checks": results}})
}

// readinessChecks are the configured checks, the database's first (it is always required).
func (s *Server) readinessChecks() []ReadinessCheck {
	database := ReadinessCheck{Name: "database", Check: s.cfg.Store.Ping, Problem: "the database does not answer"}
	return append([]ReadinessCheck{database}, s.cfg.Readiness...)
}

func failedChecks(results map[string]string) []string {
	var failed []string
	for name, result := range results {
		if result != "ok" {
			failed = append(failed, name)
		}
	}
	sort.Strings(failed)
	return failed
}
