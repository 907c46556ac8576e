package console

import (
	"bytes"
	"encoding/json"
	"html/template"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/requestlogs"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/requestlog"
)

// requestPages are the tenant's request log: the page a developer opens first when an
// integration misbehaves. It reads through the same use case as GET /v1/request-logs, so the
// scope (status:read) and the tenant's bounds are the API's.
type requestPages struct{ *Console }

func (k requestPages) requestRoutes(r fiber.Router) {
	r.Get("/requests", k.requests)
	r.Get("/requests/:id", k.request)
}

// requestFilters are the list's filters as the form sends them back.
type requestFilters struct {
	Status, Route, KeyID, RequestID, From, To string
}

// requestRow is one entry with its error body laid out for reading.
type requestRow struct {
	requestlog.Entry
	ErrorCode, ErrorMessage, ErrorJSON string
}

type requestsData struct {
	Rows       []requestRow
	Filters    requestFilters
	NextCursor string
	NextURL    template.URL
}

func (k requestPages) requests(c *fiber.Ctx) error {
	f := requestFilters{Status: c.Query("status"), Route: c.Query("route"), KeyID: strings.TrimSpace(c.Query("keyId")),
		RequestID: strings.TrimSpace(c.Query("requestId")), From: c.Query("from"), To: c.Query("to")}
	q := requestlogs.Query{Status: f.Status, Route: f.Route, KeyID: f.KeyID, RequestID: f.RequestID, Take: 50, Cursor: c.Query("cursor")}
	var err error
	if q.From, err = consoleInstant("from", f.From); err != nil {
		return k.fail(c, err)
	}
	if q.To, err = consoleInstant("to", f.To); err != nil {
		return k.fail(c, err)
	}
	page, err := k.svc.RequestLogs.List(c.UserContext(), principal(c), q)
	if err != nil {
		return k.fail(c, err)
	}
	data := requestsData{Filters: f, NextCursor: page.NextCursor}
	for _, e := range page.Entries {
		data.Rows = append(data.Rows, rowOf(e))
	}
	if page.NextCursor != "" {
		data.NextURL = nextQuery(c, page.NextCursor)
	}
	return k.render(c, fiber.StatusOK, "requests", "Requests", "", data)
}

func (k requestPages) request(c *fiber.Ctx) error {
	e, err := k.svc.RequestLogs.Get(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return k.fail(c, err)
	}
	return k.render(c, fiber.StatusOK, "request", e.Method+" "+e.Route, "", rowOf(e))
}

// rowOf reads an entry's envelope: its code and message for the list, indented for the page.
func rowOf(e requestlog.Entry) requestRow {
	row := requestRow{Entry: e}
	if len(e.ErrorBody) == 0 {
		return row
	}
	var env struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(e.ErrorBody, &env)
	row.ErrorCode, row.ErrorMessage = env.Code, env.Message
	var b bytes.Buffer
	if json.Indent(&b, e.ErrorBody, "", "  ") == nil {
		row.ErrorJSON = b.String()
	}
	return row
}

// nextQuery is this page's address with the filters kept and the cursor of the next page.
func nextQuery(c *fiber.Ctx, cursor string) template.URL {
	values := url.Values{}
	c.Context().QueryArgs().VisitAll(func(key, value []byte) {
		if string(key) != "cursor" {
			values.Add(string(key), string(value))
		}
	})
	values.Set("cursor", cursor)
	return template.URL(Prefix + "/requests?" + values.Encode()) //nolint:gosec // built here from url.Values, every value encoded
}

// consoleInstant reads a time filter as the form's datetime-local field sends it (UTC) or as
// RFC 3339.
func consoleInstant(field, s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Truncate(time.Microsecond), nil
		}
	}
	return time.Time{}, core.Invalid(field, "must be a time such as 2026-01-31T09:30 (UTC)")
}
