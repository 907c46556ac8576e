// Package requestlog is the tenant's request log: what each API request its credentials made
// was (method, route template, status, request id, key, latency, the error envelope of a
// failed one), never what it carried (no body, no header, no secret).
package requestlog

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
)

// Bounds of the log.
const (
	// Retention is how long an entry is kept: a developer opens the log to debug an
	// integration that misbehaves now, and a week covers a weekend.
	Retention = 7 * 24 * time.Hour
	// MaxErrorBodyBytes bounds the error envelope kept per entry; the envelope is cut there.
	MaxErrorBodyBytes = 4096
	// MaxPage is the largest page of a list.
	MaxPage = 100
)

// Prefix is the id prefix of an entry.
const Prefix = "rql"

// CodeNotFound answers an unknown entry, or another tenant's.
const CodeNotFound core.Code = "REQUEST_LOG_NOT_FOUND"

// Entry is one recorded request.
type Entry struct {
	ID            string
	TenantID      string
	Environment   core.Environment
	Method        string
	Route         string // the route template (/v1/wallets/{id}), never the path with its ids
	Status        int
	RequestID     string
	KeyID         string // the API key's id (key_…), "" for a session
	UserID        string // the session's identity-provider user, "" for a key
	LatencyMicros int64
	ErrorBody     []byte // the error envelope (JSON) of a status of 400 or more, else nil
	CreatedAt     time.Time
}

// Filter selects a tenant's entries of one environment. Zero fields select everything.
type Filter struct {
	TenantID    string
	Environment core.Environment
	// StatusFrom and StatusTo bound the status, inclusive: one status (404..404) or a class
	// (400..499).
	StatusFrom, StatusTo int
	Method               string
	Route                string
	KeyID                string
	RequestID            string
	From, To             time.Time // [From, To)
}

// Cursor is where a page ends: the next page starts after it (older entries).
type Cursor struct {
	CreatedAt time.Time
	ID        string
}

// ParseStatus reads a status filter: one status ("404") or a class ("4xx").
func ParseStatus(s string) (from, to int, err error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return 0, 0, nil
	}
	if len(s) == 3 && strings.HasSuffix(s, "xx") && s[0] >= '1' && s[0] <= '5' {
		class := int(s[0]-'0') * 100
		return class, class + 99, nil
	}
	n, convErr := strconv.Atoi(s)
	if convErr != nil || n < 100 || n > 599 {
		return 0, 0, core.Invalid("status", "must be a status such as 404 or a class such as 4xx")
	}
	return n, n, nil
}

// ParseRoute reads a route filter: a route template ("/v1/wallets/{id}"), optionally after its
// method ("POST /v1/wallets").
func ParseRoute(s string) (method, route string, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", "", nil
	}
	if m, r, ok := strings.Cut(s, " "); ok {
		method, s = strings.ToUpper(m), strings.TrimSpace(r)
	}
	if !strings.HasPrefix(s, "/") || len(s) > 200 {
		return "", "", core.Invalid("route", "must be a route template such as /v1/wallets/{id}, optionally after its method (POST /v1/wallets)")
	}
	return method, s, nil
}

// ErrorBody is what an entry keeps of a response body: the envelope (a JSON object) of a status
// of 400 or more, and nothing for a success. An envelope longer than MaxErrorBodyBytes, or one
// that is not a JSON object, is kept as {"truncated": true, "text": its first bytes}, so the
// entry's errorBody is always an object.
func ErrorBody(status int, body []byte) []byte {
	if status < 400 || len(body) == 0 {
		return nil
	}
	var object map[string]any
	if len(body) <= MaxErrorBodyBytes && json.Unmarshal(body, &object) == nil && object != nil {
		return append([]byte(nil), body...)
	}
	cut := body[:min(len(body), MaxErrorBodyBytes)]
	out, _ := json.Marshal(map[string]any{"truncated": true, "text": strings.ToValidUTF8(string(cut), "")})
	return out
}
