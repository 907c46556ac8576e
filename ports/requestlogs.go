package ports

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/requestlog"
)

// RequestLogs keeps the tenants' request logs. Writes come in batches from the recorder, off
// the request path and outside any unit of work: an entry is a record of a request, never part
// of what the request changed.
type RequestLogs interface {
	// AppendRequestLogs writes a batch of entries in one statement.
	AppendRequestLogs(ctx context.Context, entries []requestlog.Entry) error
	// ListRequestLogs lists entries newest first, after the cursor when one is given (the
	// entries older than it), at most take of them.
	ListRequestLogs(ctx context.Context, f requestlog.Filter, after *requestlog.Cursor, take int) ([]requestlog.Entry, error)
	// FindRequestLog finds one of a tenant's entries in an environment; another tenant's or
	// environment's answers requestlog.CodeNotFound.
	FindRequestLog(ctx context.Context, tenantID string, env core.Environment, id string) (requestlog.Entry, error)
	// PruneRequestLogs deletes a bounded slice of the entries recorded before before, the
	// oldest first, and says how many: 0 when none is left.
	PruneRequestLogs(ctx context.Context, before time.Time) (int, error)
}
