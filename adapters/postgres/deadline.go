package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// DefaultUnitDeadline bounds a unit of work whose context carries no deadline. Every caller is
// meant to give one (a request its REQUEST_TIMEOUT, a job its River time-out, a background
// loop its own per round); this is the backstop. Without any, a unit waiting on a silent
// database would hold its connection, its row locks and, with the commit pipeline, every unit
// of the batch it shares, for as long as the database stays silent. It is above the request
// deadline (25 s), so it never cuts a request short, and far below any job's.
const DefaultUnitDeadline = 60 * time.Second

// undeadlined remembers the call sites that started a unit of work without a deadline: the
// test harness fails a package that has any (UnitsWithoutDeadline), and a running service logs
// each site once.
var undeadlined = struct {
	mu    sync.Mutex
	sites map[string]int
}{sites: map[string]int{}}

// withUnitDeadline returns ctx when it has a deadline; otherwise it records the caller and
// bounds the unit by DefaultUnitDeadline.
func withUnitDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	site := unitCaller()
	undeadlined.mu.Lock()
	undeadlined.sites[site]++
	first := undeadlined.sites[site] == 1
	undeadlined.mu.Unlock()
	if first {
		slog.Warn("a unit of work started without a deadline; bounded by the store's default",
			"caller", site, "deadline", DefaultUnitDeadline.String())
	}
	return context.WithTimeout(ctx, DefaultUnitDeadline)
}

// unitCaller names the first frame outside the store and its decorators (the outside-read
// retry, the spend guard, the harness's retry injector): the use case or loop that started
// the unit.
func unitCaller() string {
	pcs := make([]uintptr, 128)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	site := ""
	for {
		f, more := frames.Next()
		if site == "" && !storeFrame(f.Function) {
			site = fmt.Sprintf("%s (%s:%d)", f.Function, shortFile(f.File), f.Line)
		}
		if strings.HasSuffix(f.File, "_test.go") {
			// A test called the use case with a context of its own; the service's callers
			// (a request, a job) are what the check is about.
			return testOrigin + site
		}
		if !more {
			break
		}
	}
	if site == "" {
		return "unknown caller"
	}
	return site
}

// testOrigin marks a site reached from a test's own call, left out of ErrUnitsWithoutDeadline.
const testOrigin = "from a test: "

// storeFrame reports a frame of the store or of a wrapper every unit passes through.
func storeFrame(fn string) bool {
	for _, p := range []string{"corridor/adapters/postgres.", "corridor/app/kernel.guardedStore", "corridor/test/harness.RetryOnce"} {
		if strings.Contains(fn, p) {
			return true
		}
	}
	return false
}

// shortFile keeps a file's package directory and name.
func shortFile(path string) string {
	return filepath.Join(filepath.Base(filepath.Dir(path)), filepath.Base(path))
}

// UnitsWithoutDeadline lists the call sites that started a unit of work without a deadline in
// this process, each with its count, sorted.
func UnitsWithoutDeadline() []string {
	undeadlined.mu.Lock()
	defer undeadlined.mu.Unlock()
	out := make([]string, 0, len(undeadlined.sites))
	for site, n := range undeadlined.sites {
		out = append(out, fmt.Sprintf("%s ×%d", site, n))
	}
	sort.Strings(out)
	return out
}

// ErrUnitsWithoutDeadline is UnitsWithoutDeadline as an error, nil when there were none: the
// test harness runs it after every black-box package. Units a test started itself (a _test.go
// frame on the stack, or a helper of the test/ tree) are not the service's and are left out.
func ErrUnitsWithoutDeadline() error {
	var service []string
	for _, site := range UnitsWithoutDeadline() {
		if !strings.HasPrefix(site, testOrigin) && !strings.Contains(site, "corridor/test/") {
			service = append(service, site)
		}
	}
	if len(service) > 0 {
		return fmt.Errorf("units of work started without a deadline (give each caller one): %s", strings.Join(service, "; "))
	}
	return nil
}
