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

// ReadinessCheck is one part /readyz looks at. A part this replica needs to serve any request
// (the database, its job workers) makes it unready when it fails; a Dependency (a chain node)
// does not: only the routes that need it answer 503 (CHAIN_UNAVAILABLE), so an outage of
// something shared by every replica never takes them all out of the load balancer. Problem is
// what the body says when Check fails; the error itself is only logged, since /readyz answers
// without credentials.
type ReadinessCheck struct {
	Name       string
	Check      func(ctx context.Context) error
	Problem    string
	Dependency bool
}

// readinessResponse is /readyz's answer when every part the replica needs is ready.
type readinessResponse struct {
	Status   string            `json:"status" oas:"required,enum=ok|degraded" description:"ok, or degraded when a dependency (a chain node) fails: the replica still serves every route that does not need it"`
	Checks   map[string]string `json:"checks" oas:"required" description:"each part checked (database, jobs, chain:TEST, chain:LIVE) and ok, or its problem"`
	Degraded []string          `json:"degraded,omitempty" description:"the dependencies that fail; the routes that need them answer 503"`
}

// readyz runs every check at once, each within readinessTimeout, and answers 503
// SERVICE_UNAVAILABLE naming the parts that failed (details.checks) when a part the replica
// needs did; a failed dependency only makes the answer degraded.
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
	failed, degraded := failedChecks(checks, results)
	if len(failed) == 0 && len(degraded) == 0 {
		return c.JSON(readinessResponse{Status: "ok", Checks: results})
	}
	if len(failed) == 0 {
		return c.JSON(readinessResponse{Status: "degraded", Checks: results, Degraded: degraded})
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

// failedChecks splits the failed checks into the parts the replica needs and the dependencies.
func failedChecks(checks []ReadinessCheck, results map[string]string) (failed, degraded []string) {
	for _, check := range checks {
		switch {
		case results[check.Name] == "ok":
		case check.Dependency:
			degraded = append(degraded, check.Name)
		default:
			failed = append(failed, check.Name)
		}
	}
	sort.Strings(failed)
	sort.Strings(degraded)
	return failed, degraded
}
