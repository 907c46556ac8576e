package http

import (
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/core"
)

// ExportLimits bound the CSV exports (docs/ledger.md, CSV) that run at once: a CSV page holds
// up to finance.MaxExportTake rows, read and rendered in memory, so the exports in flight are
// what bounds the memory they take. Zero fields take DefaultExportLimits.
type ExportLimits struct {
	// PerTenant is how many exports one tenant may run at once (EXPORTS_PER_TENANT).
	PerTenant int
	// Total is how many exports the process runs at once, every tenant together
	// (EXPORTS_CONCURRENT).
	Total int
}

// DefaultExportLimits: two exports per tenant, eight in the process (docs/performance.md,
// "Concurrent CSV exports").
var DefaultExportLimits = ExportLimits{PerTenant: 2, Total: 8}

// exportRetryAfter is the Retry-After of an export refused for the limits: an export of a
// full page answers within a second or two.
const exportRetryAfter = 2 * time.Second

func (l ExportLimits) withDefaults() ExportLimits {
	if l.PerTenant <= 0 {
		l.PerTenant = DefaultExportLimits.PerTenant
	}
	if l.Total <= 0 {
		l.Total = DefaultExportLimits.Total
	}
	l.PerTenant = min(l.PerTenant, l.Total)
	return l
}

// exportSlots is the server's count of exports in flight; a server built without New (the
// OpenAPI document's) gets a count of its own.
func (s *Server) exportSlots() *exportSlots {
	if s.exports == nil {
		s.exports = newExportSlots(s.cfg.Exports)
	}
	return s.exports
}

// AcquireExport takes a slot for one of tenant's CSV exports out of the same bound as the
// API's (EXPORTS_PER_TENANT, EXPORTS_CONCURRENT), for the console's downloads, which read
// and render a page in memory as the API's do; past the bound it answers 429 RATE_LIMITED
// with Retry-After before anything is read. The caller releases a slot it got.
func (s *Server) AcquireExport(c *fiber.Ctx, tenant string) (release func(), err error) {
	return s.exportSlots().acquire(c, tenant)
}

// exportSlots counts the CSV exports in flight, per tenant and in all.
type exportSlots struct {
	limits   ExportLimits
	mu       sync.Mutex
	total    int
	byTenant map[string]int
}

func newExportSlots(l ExportLimits) *exportSlots {
	return &exportSlots{limits: l.withDefaults(), byTenant: map[string]int{}}
}

// acquire takes a slot for tenant, or answers 429 RATE_LIMITED with Retry-After when the
// tenant's exports, or the process's, are at their limit. The caller releases a slot it got.
func (s *exportSlots) acquire(c *fiber.Ctx, tenant string) (release func(), err error) {
	s.mu.Lock()
	mine, total := s.byTenant[tenant], s.total
	if mine >= s.limits.PerTenant || total >= s.limits.Total {
		s.mu.Unlock()
		secs := retryAfter(exportRetryAfter)
		c.Set(fiber.HeaderRetryAfter, secs)
		why := "this tenant already runs " + strconv.Itoa(mine) + " CSV exports at once, the most it may"
		if mine < s.limits.PerTenant {
			why = "the service already runs the most CSV exports it runs at once"
		}
		n, _ := strconv.Atoi(secs)
		return nil, (&core.Error{Code: core.CodeRateLimited, Message: why + "; retry after the Retry-After seconds"}).
			WithDetails(map[string]any{"retryAfterSeconds": n})
	}
	s.byTenant[tenant] = mine + 1
	s.total++
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.total--
			if s.byTenant[tenant]--; s.byTenant[tenant] <= 0 {
				delete(s.byTenant, tenant)
			}
		})
	}, nil
}
