package http

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/requestlogs"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/requestlog"
)

// RequestRecorder takes each finished API request of a tenant's credential (requestlogs.Recorder):
// it never blocks and never fails the request.
type RequestRecorder interface {
	Record(e requestlog.Entry)
}

// requestLogsPath is the log's own routes: reading the log is not recorded in it, so a console
// page polling the log does not fill the log with its own reads.
const requestLogsPath = "/v1/request-logs"

// requestLogsHandlers reads the tenant's request log.
type requestLogsHandlers struct{ svc *requestlogs.Service }

func (h *requestLogsHandlers) endpoints() []Endpoint {
	scopes := []auth.Scope{requestlogs.Scope}
	return []Endpoint{
		{Method: "GET", Path: requestLogsPath, Summary: "List the API requests of the caller's environment, newest first (kept 7 days)", Tag: "request-logs",
			Auth: authRequired, Scopes: scopes,
			Params: []Param{
				{Name: "status", In: "query", Description: "one status (404) or a class (4xx, 5xx)"},
				{Name: "route", In: "query", Description: "a route template (/v1/wallets/{id}), optionally after its method (POST /v1/wallets)"},
				{Name: "keyId", In: "query", Description: "the API key (key_…) that made the request"},
				{Name: "requestId", In: "query", Description: "the request's X-Request-Id"},
				{Name: "from", In: "query", Description: "RFC 3339; only requests made at or after it"},
				{Name: "to", In: "query", Description: "RFC 3339; only requests made before it"},
				{Name: "take", In: "query", Integer: true, Description: "at most 100 (default 100)"},
				{Name: "cursor", In: "query", Description: "nextCursor of the previous page"},
			},
			Responses: map[int]any{200: requestLogListResponse{}}, Handler: h.list},
		{Method: "GET", Path: requestLogsPath + "/{id}", Summary: "One API request of the caller's environment", Tag: "request-logs",
			Auth: authRequired, Scopes: scopes, Params: []Param{{Name: "id", In: "path"}},
			Responses: map[int]any{200: requestLogResponse{}, 404: Envelope{}}, Handler: h.get},
	}
}

type requestLogResponse struct {
	ID          string         `json:"id" oas:"required"`
	Environment string         `json:"environment" oas:"required,enum=TEST|LIVE"`
	Method      string         `json:"method" oas:"required" description:"the HTTP method"`
	Route       string         `json:"route" oas:"required" description:"the route template, never the path with its ids"`
	Status      int            `json:"status" oas:"required"`
	RequestID   string         `json:"requestId" oas:"required" description:"the X-Request-Id the answer carried"`
	KeyID       *string        `json:"keyId" oas:"required,nullable" description:"the API key's id (never its secret); null for a session"`
	UserID      *string        `json:"userId" oas:"required,nullable" description:"the session's user; null for an API key"`
	LatencyMs   float64        `json:"latencyMs" oas:"required" description:"from the request's arrival to its answer, in milliseconds"`
	ErrorBody   map[string]any `json:"errorBody" oas:"required,nullable" description:"the error envelope answered (status 400 or more), null for a success; an envelope over 4096 bytes is kept as {truncated: true, text: its first 4096 bytes}"`
	CreatedAt   time.Time      `json:"createdAt" oas:"required"`
}

type requestLogListResponse struct {
	RequestLogs []requestLogResponse `json:"requestLogs" oas:"required" description:"newest first"`
	NextCursor  *string              `json:"nextCursor" oas:"required,nullable" description:"pass as cursor for the next (older) page; null at the end"`
}

func toRequestLog(e requestlog.Entry) requestLogResponse {
	out := requestLogResponse{ID: e.ID, Environment: string(e.Environment), Method: e.Method, Route: e.Route, Status: e.Status,
		RequestID: e.RequestID, KeyID: strPtr(e.KeyID), UserID: strPtr(e.UserID),
		LatencyMs: float64(e.LatencyMicros) / 1000, CreatedAt: e.CreatedAt}
	if len(e.ErrorBody) > 0 {
		_ = json.Unmarshal(e.ErrorBody, &out.ErrorBody) // written by requestlog.ErrorBody: always an object
	}
	return out
}

func (h *requestLogsHandlers) list(c *fiber.Ctx) error {
	q := requestlogs.Query{Status: c.Query("status"), Route: c.Query("route"), KeyID: c.Query("keyId"),
		RequestID: c.Query("requestId"), Cursor: c.Query("cursor")}
	from, to, err := window(c)
	if err != nil {
		return err
	}
	if from != nil {
		q.From = *from
	}
	if to != nil {
		q.To = *to
	}
	if q.Take, err = queryInt(c, "take", 0, 0); err != nil {
		return err
	}
	if q.Take == 0 && c.Query("take") != "" {
		q.Take = -1 // take=0 is refused by the service, not read as the default
	}
	page, err := h.svc.List(c.UserContext(), principal(c), q)
	if err != nil {
		return err
	}
	out := requestLogListResponse{RequestLogs: make([]requestLogResponse, len(page.Entries)), NextCursor: strPtr(page.NextCursor)}
	for i, e := range page.Entries {
		out.RequestLogs[i] = toRequestLog(e)
	}
	return c.JSON(out)
}

func (h *requestLogsHandlers) get(c *fiber.Ctx) error {
	e, err := h.svc.Get(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toRequestLog(e))
}

// recordRequest hands a finished API request of a tenant's credential to the recorder: the
// route template, never the path; the key's id, never its secret; the answer's envelope only
// when it is an error. Requests with no tenant (refused credentials, public routes), the
// console's pages and the log's own reads are not recorded.
func (s *Server) recordRequest(c *fiber.Ctx, route string, status int, start time.Time, latency time.Duration) {
	if s.recorder == nil || strings.HasPrefix(route, requestLogsPath) {
		return
	}
	if _, api := c.Locals(localEndpoint).(string); !api {
		return
	}
	p, ok := principalOf(c)
	if !ok || p.TenantID == "" {
		return
	}
	e := requestlog.Entry{TenantID: p.TenantID, Environment: p.Environment, Method: strings.Clone(c.Method()), Route: route,
		Status: status, RequestID: requestID(c), KeyID: p.KeyID, LatencyMicros: latency.Microseconds(),
		ErrorBody: requestlog.ErrorBody(status, c.Response().Body()), CreatedAt: start.UTC().Truncate(time.Microsecond)}
	if p.KeyID == "" {
		e.UserID = p.UserID
	}
	s.recorder.Record(e)
}
