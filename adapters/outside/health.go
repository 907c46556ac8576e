package outside

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/corridorhq/corridor/core"
)

// Kinds of outside dependency the health report names.
const (
	KindPayoutProvider = "payout_provider"
	KindSMS            = "sms"
	KindCardIssuer     = "card_issuer"
)

// Health values of a dependency.
const (
	HealthOK          = "ok"
	HealthUnavailable = "unavailable"
)

// FailuresToUnavailable is how many calls in a row must fail before a dependency is reported
// unavailable: one timeout is a blip, three in a row is an outage worth an alert. One answer
// makes it ok again.
const FailuresToUnavailable = 3

// DependencyHealth is one dependency as its calls saw it.
type DependencyHealth struct {
	Name     string // "payout:wallet_a", "sms", "card_issuer"
	Kind     string
	Status   string
	Failures int       // calls in a row that failed
	Since    time.Time // when the current status began (zero: no call yet)
	Problem  string    // the last failure, when unavailable
}

// Health follows every guarded dependency from the outcome of its calls. It is never a
// readiness check: a dependency's outage turns only the routes and jobs that call it into
// PROVIDER_UNAVAILABLE answers or retries, and shows in /v1/status and corridor_dependency_up.
type Health struct {
	mu   sync.Mutex
	deps map[string]*DependencyHealth
}

// NewHealth starts a tracker knowing the given dependencies (name → kind), each ok until a
// call says otherwise, so the status and the metric list them from the start.
func NewHealth(known map[string]string) *Health {
	h := &Health{deps: map[string]*DependencyHealth{}}
	for name, kind := range known {
		h.deps[name] = &DependencyHealth{Name: name, Kind: kind, Status: HealthOK}
	}
	return h
}

// Know lists a dependency before its first call (ok until a call says otherwise).
func (h *Health) Know(name, kind string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.deps[name]; !ok {
		h.deps[name] = &DependencyHealth{Name: name, Kind: kind, Status: HealthOK}
	}
}

// Observe records one call's outcome. A call fails the dependency when it did not get an
// answer: a network error, a time-out, a 5xx the adapter reports as PROVIDER_UNAVAILABLE or
// SERVICE_UNAVAILABLE. A refusal the vendor gave (any other core error) is an answer.
func (h *Health) Observe(name, kind string, err error) {
	if h == nil {
		return
	}
	failed := unanswered(err)
	now := time.Now().UTC()
	h.mu.Lock()
	defer h.mu.Unlock()
	d, ok := h.deps[name]
	if !ok {
		d = &DependencyHealth{Name: name, Kind: kind, Status: HealthOK}
		h.deps[name] = d
	}
	if !failed {
		if d.Status != HealthOK || d.Since.IsZero() {
			d.Since = now
		}
		d.Status, d.Failures, d.Problem = HealthOK, 0, ""
		return
	}
	d.Failures++
	if d.Failures >= FailuresToUnavailable && d.Status != HealthUnavailable {
		d.Status, d.Since = HealthUnavailable, now
	}
	if d.Status == HealthUnavailable {
		d.Problem = problemOf(err)
	}
}

// Snapshot lists every dependency seen or known, by name.
func (h *Health) Snapshot() []DependencyHealth {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]DependencyHealth, 0, len(h.deps))
	for _, d := range h.deps {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// unanswered reports an error that means the dependency did not answer.
func unanswered(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false // a caller that left says nothing about the vendor
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		return ce.Code == core.CodeProviderUnavailable || ce.Code == core.CodeServiceUnavailable
	}
	return true
}

// problemOf is the failure in a fixed sentence: vendors' error texts may carry request details,
// and the status is shown to every tenant.
func problemOf(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "calls time out"
	}
	return "calls fail without an answer"
}

// unavailableErr turns an unanswered call's error into PROVIDER_UNAVAILABLE (503), so a route
// that calls the dependency answers an explicit, retryable 503 rather than a 500; the vendor's
// error text stays in the server's log through the wrapped error.
func unavailableErr(what string, err error) error {
	if !unanswered(err) {
		return err
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		return err
	}
	return fmt.Errorf("%w: %w", core.E(core.CodeProviderUnavailable, "%s is unavailable; retry later", what).Transient(core.RetryDependency), err)
}
