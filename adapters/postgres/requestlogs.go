package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/requestlog"
	"github.com/corridorhq/corridor/ports"
)

// RequestLogs is the request log's table (migration 000059).
type RequestLogs struct{ db bun.IDB }

var _ ports.RequestLogs = (*RequestLogs)(nil)

// NewRequestLogs returns the request log on db.
func NewRequestLogs(db bun.IDB) *RequestLogs { return &RequestLogs{db: db} }

type requestLogModel struct {
	bun.BaseModel `bun:"table:request_logs"`
	TenantID      string          `bun:"tenant_id,pk"`
	ID            string          `bun:"id,pk"`
	Environment   string          `bun:"environment"`
	Method        string          `bun:"method"`
	Route         string          `bun:"route"`
	Status        int             `bun:"status"`
	RequestID     string          `bun:"request_id"`
	KeyID         *string         `bun:"key_id"`
	UserID        *string         `bun:"user_id"`
	LatencyMicros int64           `bun:"latency_micros"`
	ErrorBody     json.RawMessage `bun:"error_body,type:jsonb,nullzero"`
	CreatedAt     time.Time       `bun:"created_at"`
}

func requestLogFromDomain(e requestlog.Entry) requestLogModel {
	return requestLogModel{TenantID: e.TenantID, ID: e.ID, Environment: string(e.Environment), Method: e.Method,
		Route: e.Route, Status: e.Status, RequestID: e.RequestID, KeyID: nullable(e.KeyID), UserID: nullable(e.UserID),
		LatencyMicros: e.LatencyMicros, ErrorBody: e.ErrorBody, CreatedAt: e.CreatedAt.UTC()}
}

func (m requestLogModel) domain() requestlog.Entry {
	var body []byte
	if len(m.ErrorBody) > 0 && string(m.ErrorBody) != "null" {
		body = m.ErrorBody
	}
	return requestlog.Entry{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), Method: m.Method,
		Route: m.Route, Status: m.Status, RequestID: m.RequestID, KeyID: deref(m.KeyID), UserID: deref(m.UserID),
		LatencyMicros: m.LatencyMicros, ErrorBody: body, CreatedAt: m.CreatedAt.UTC()}
}

// AppendRequestLogs inserts the batch in one statement.
func (r *RequestLogs) AppendRequestLogs(ctx context.Context, entries []requestlog.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	rows := make([]requestLogModel, len(entries))
	for i, e := range entries {
		rows[i] = requestLogFromDomain(e)
	}
	_, err := r.db.NewInsert().Model(&rows).On("CONFLICT DO NOTHING").Exec(ctx)
	return err
}

// ListRequestLogs reads a page newest first through request_logs_list_idx.
func (r *RequestLogs) ListRequestLogs(ctx context.Context, f requestlog.Filter, after *requestlog.Cursor, take int) ([]requestlog.Entry, error) {
	var rows []requestLogModel
	q := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", f.TenantID, string(f.Environment))
	if f.StatusFrom > 0 {
		q = q.Where("status BETWEEN ? AND ?", f.StatusFrom, f.StatusTo)
	}
	for col, v := range map[string]string{"method": f.Method, "route": f.Route, "key_id": f.KeyID, "request_id": f.RequestID} {
		if v != "" {
			q = q.Where("? = ?", bun.Ident(col), v)
		}
	}
	if !f.From.IsZero() {
		q = q.Where("created_at >= ?", f.From.UTC())
	}
	if !f.To.IsZero() {
		q = q.Where("created_at < ?", f.To.UTC())
	}
	if after != nil {
		q = q.Where("(created_at, id) < (?, ?)", after.CreatedAt.UTC(), after.ID)
	}
	if err := q.OrderExpr("created_at DESC, id DESC").Limit(int64(take)).Scan(ctx); err != nil {
		return nil, err
	}
	out := make([]requestlog.Entry, len(rows))
	for i, m := range rows {
		out[i] = m.domain()
	}
	return out, nil
}

// FindRequestLog reads one entry of the tenant's environment.
func (r *RequestLogs) FindRequestLog(ctx context.Context, tenantID string, env core.Environment, id string) (requestlog.Entry, error) {
	var m requestLogModel
	err := r.db.NewSelect().Model(&m).Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, string(env), id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return requestlog.Entry{}, core.NotFound(requestlog.CodeNotFound, "request log entry")
	}
	return m.domain(), err
}

// pruneSlice bounds one prune statement to an hour of entries, the oldest hour left.
const pruneSlice = time.Hour

// PruneRequestLogs deletes the oldest hour of entries recorded before before (a statement whose
// size an hour of traffic bounds, which Citus runs on every shard at once, where a DELETE with
// a LIMIT would not be pushed down), and says how many it deleted: 0 when none is left.
func (r *RequestLogs) PruneRequestLogs(ctx context.Context, before time.Time) (int, error) {
	var oldest sql.NullTime
	if err := r.db.NewRaw(`SELECT min(created_at) FROM request_logs WHERE created_at < ?`, before.UTC()).Scan(ctx, &oldest); err != nil || !oldest.Valid {
		return 0, err
	}
	until := oldest.Time.Add(pruneSlice)
	if until.After(before) {
		until = before
	}
	res, err := r.db.NewDelete().TableExpr("request_logs").Where("created_at < ?", until.UTC()).Exec(ctx)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}
