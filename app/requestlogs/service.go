// Package requestlogs is the tenant's request log: the recorder that the HTTP layer hands each
// finished request to, the reads of GET /v1/request-logs and the console's Requests page, and the
// periodic job that deletes entries older than requestlog.Retention.
package requestlogs

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/requestlog"
	"github.com/corridorhq/corridor/ports"
)

// Scope is what reading the log needs: the read-level scope of the tenant's operational view
// (GET /v1/status), which every role and the default key scopes hold. The log shows no secret
// and no body, only what each request was and how it ended.
const Scope = auth.ScopeStatusRead

// Service reads the log.
type Service struct {
	logs  ports.RequestLogs
	clock ports.Clock
}

// New returns the service; it fails on a missing store. A nil clock is the wall clock.
func New(logs ports.RequestLogs, clock ports.Clock) (*Service, error) {
	if logs == nil {
		return nil, errors.New("requestlogs: the log store is required")
	}
	return &Service{logs: logs, clock: kernel.ClockOrSystem(clock)}, nil
}

// Query is a list request as the API and the console read it.
type Query struct {
	Status    string // 404, or a class: 4xx
	Route     string // a route template, optionally after its method
	KeyID     string
	RequestID string
	From, To  time.Time
	Take      int    // 1..MaxPage; 0 is MaxPage
	Cursor    string // nextCursor of the previous page
}

// Page is one page of the log, newest first.
type Page struct {
	Entries    []requestlog.Entry
	NextCursor string // "" at the end
}

// List reads a page of the caller's entries in its environment.
func (s *Service) List(ctx context.Context, p auth.Principal, q Query) (Page, error) {
	if err := kernel.RequireTenantScope(p, Scope); err != nil {
		return Page{}, err
	}
	f, after, take, err := parseQuery(p, q)
	if err != nil {
		return Page{}, err
	}
	// One more than asked tells whether a next page exists without counting the log.
	entries, err := s.logs.ListRequestLogs(ctx, f, after, take+1)
	if err != nil {
		return Page{}, err
	}
	out := Page{Entries: entries}
	if len(entries) > take {
		out.Entries = entries[:take]
		last := out.Entries[take-1]
		out.NextCursor = encodeCursor(requestlog.Cursor{CreatedAt: last.CreatedAt, ID: last.ID})
	}
	return out, nil
}

// parseQuery turns a query into the store's filter, collecting every bad field into one answer.
func parseQuery(p auth.Principal, q Query) (requestlog.Filter, *requestlog.Cursor, int, error) {
	f := requestlog.Filter{TenantID: p.TenantID, Environment: p.Environment, KeyID: q.KeyID, RequestID: q.RequestID, From: q.From, To: q.To}
	errs := core.FieldErrors{}
	var err error
	if f.StatusFrom, f.StatusTo, err = requestlog.ParseStatus(q.Status); err != nil {
		errs.Add("status", kernel.FieldReason(err, "status"))
	}
	if f.Method, f.Route, err = requestlog.ParseRoute(q.Route); err != nil {
		errs.Add("route", kernel.FieldReason(err, "route"))
	}
	if !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To) {
		errs.Add("to", "must be after from")
	}
	take := q.Take
	if take == 0 {
		take = requestlog.MaxPage
	}
	if take < 1 || take > requestlog.MaxPage {
		errs.Add("take", "must be between 1 and 100")
	}
	var after *requestlog.Cursor
	if q.Cursor != "" {
		c, ok := decodeCursor(q.Cursor)
		if !ok {
			errs.Add("cursor", "must be the nextCursor of a previous page")
		}
		after = &c
	}
	return f, after, take, errs.Err()
}

// Get reads one of the caller's entries; another tenant's, or the other environment's, is 404.
func (s *Service) Get(ctx context.Context, p auth.Principal, id string) (requestlog.Entry, error) {
	if err := kernel.RequireTenantScope(p, Scope); err != nil {
		return requestlog.Entry{}, err
	}
	return s.logs.FindRequestLog(ctx, p.TenantID, p.Environment, id)
}

// cursorForm is a cursor's encoded form: opaque to callers, checked when read back.
type cursorForm struct {
	At time.Time `json:"t"`
	ID string    `json:"i"`
}

func encodeCursor(c requestlog.Cursor) string {
	raw, _ := json.Marshal(cursorForm{At: c.CreatedAt.UTC(), ID: c.ID})
	return base64.RawURLEncoding.EncodeToString(raw)
}

func decodeCursor(s string) (requestlog.Cursor, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(raw) > 256 {
		return requestlog.Cursor{}, false
	}
	var c cursorForm
	if json.Unmarshal(raw, &c) != nil || c.At.IsZero() || c.ID == "" {
		return requestlog.Cursor{}, false
	}
	return requestlog.Cursor{CreatedAt: c.At, ID: c.ID}, true
}
