package requestlogs

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/corridorhq/corridor/app/requestlogs"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

var seq atomic.Int64

// requestID is a fresh X-Request-Id for one test request.
func requestID(t *testing.T) string {
	return fmt.Sprintf("req-%s-%d-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano(), seq.Add(1))
}

// entryOf polls the log until the request with id is there (the recorder writes in batches,
// off the request path) and returns it.
func entryOf(t *testing.T, c *harness.Client, id string) map[string]any {
	t.Helper()
	return harness.Poll(t, "the request "+id+" in the log", func() map[string]any {
		list := c.Get("/v1/request-logs?requestId="+url.QueryEscape(id)).Expect(t, 200).JSON(t)["requestLogs"].([]any)
		if len(list) == 0 {
			return nil
		}
		return list[0].(map[string]any)
	}, func(m map[string]any) bool { return m != nil })
}

func list(t *testing.T, c *harness.Client, query string) ([]map[string]any, any) {
	t.Helper()
	body := c.Get("/v1/request-logs?"+query).Expect(t, 200).JSON(t)
	var out []map[string]any
	for _, e := range body["requestLogs"].([]any) {
		out = append(out, e.(map[string]any))
	}
	return out, body["nextCursor"]
}

// newKey mints a TEST key of scopes for ten: its id and a client using it.
func newKey(t *testing.T, ten *harness.Tenant, scopes ...string) (string, *harness.Client) {
	t.Helper()
	k := ten.Session.Post("/v1/api-keys", map[string]any{"name": "log " + t.Name(), "environment": "test", "scopes": scopes}).Expect(t, 201).JSON(t)
	return k["id"].(string), env().Client(t).WithKey(k["key"].(string))
}

// TestRequestLogs_RecordsEachRequest: a success, a 404 and a refused body are each recorded
// with the method, the route template, the status, the request id, the key's id, the latency
// and, for the failures, the error envelope; no body, header or secret is kept.
func TestRequestLogs_RecordsEachRequest(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	keyID, key := newKey(t, ten, "wallets:read", "wallets:write", "status:read")
	okID, missingID, badID := requestID(t), requestID(t), requestID(t)
	key.With("X-Request-Id", okID).Get("/v1/wallets").Expect(t, 200)
	key.With("X-Request-Id", missingID).Get("/v1/wallets/wal_0000000000000000000000000").ExpectError(t, 404, "WALLET_NOT_FOUND")
	key.With("X-Request-Id", badID).Post("/v1/wallets", map[string]any{"name": "secret-marker-body", "owners": "no"}).ExpectError(t, 400, "VALIDATION_FAILED")

	ok := entryOf(t, key, okID)
	if ok["method"] != "GET" || ok["route"] != "/v1/wallets" || ok["status"] != float64(200) || ok["keyId"] != keyID ||
		ok["userId"] != nil || ok["errorBody"] != nil || ok["environment"] != "TEST" || ok["latencyMs"].(float64) < 0 {
		t.Fatalf("the success: %v", ok)
	}
	missing := entryOf(t, key, missingID)
	body, _ := missing["errorBody"].(map[string]any)
	if missing["route"] != "/v1/wallets/{id}" || missing["status"] != float64(404) || body["code"] != "WALLET_NOT_FOUND" || body["requestId"] != missingID {
		t.Fatalf("the 404: %v", missing)
	}
	bad := entryOf(t, key, badID)
	if bad["method"] != "POST" || bad["status"] != float64(400) || bad["errorBody"].(map[string]any)["code"] != "VALIDATION_FAILED" {
		t.Fatalf("the 400: %v", bad)
	}
	one := key.Get("/v1/request-logs/"+bad["id"].(string)).Expect(t, 200)
	if one.JSON(t)["requestId"] != badID {
		t.Fatalf("GET by id: %s", one.Body)
	}
	all := key.Get("/v1/request-logs").Expect(t, 200).Body
	if strings.Contains(string(all), "secret-marker-body") || strings.Contains(string(all), ten.RootKey) || strings.Contains(strings.ToLower(string(all)), "x-service-api-key") {
		t.Fatalf("the log keeps a body, a header or a secret: %s", all)
	}
	ten.Session.With("X-Request-Id", okID+"-session").Get("/v1/wallets").Expect(t, 200)
	if s := entryOf(t, key, okID+"-session"); s["userId"] != ten.UserID || s["keyId"] != nil {
		t.Fatalf("a session's request: %v", s)
	}
}

// TestRequestLogs_Filters: status (one or a class), route (with or without its method), key,
// request id and time range select; pages follow nextCursor to the end; bad filters are 400.
func TestRequestLogs_Filters(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	keyID, key := newKey(t, ten, "wallets:read", "status:read")
	start := time.Now().UTC().Add(-time.Second)
	last := ""
	for i := 0; i < 3; i++ {
		key.Get("/v1/wallets").Expect(t, 200)
		last = requestID(t)
		key.With("X-Request-Id", last).Get("/v1/wallets/wal_missing"+fmt.Sprint(i)).ExpectError(t, 404, "WALLET_NOT_FOUND")
	}
	ten.Root.Get("/v1/wallets").Expect(t, 200)
	entryOf(t, key, last)
	// Nine entries: the 2xx are the two keys' creations (the tenant's root key and this one) and
	// four wallet lists, the 4xx the three misses. The log is written in batches off the request
	// path, so the counts below are read once every entry is in.
	harness.Eventually(t, "nine entries", func() bool { l, _ := list(t, key, "take=100"); return len(l) >= 9 })

	checks := map[string]func(map[string]any) bool{
		"status=404": func(e map[string]any) bool { return e["status"] == float64(404) },
		"status=4xx": func(e map[string]any) bool { return e["status"].(float64) >= 400 && e["status"].(float64) < 500 },
		"status=2xx": func(e map[string]any) bool { return e["status"].(float64) >= 200 && e["status"].(float64) < 300 },
		"route=" + url.QueryEscape("/v1/wallets/{id}"): func(e map[string]any) bool { return e["route"] == "/v1/wallets/{id}" },
		"route=" + url.QueryEscape("GET /v1/wallets"):  func(e map[string]any) bool { return e["route"] == "/v1/wallets" && e["method"] == "GET" },
		"keyId=" + keyID:                     func(e map[string]any) bool { return e["keyId"] == keyID },
		"requestId=" + url.QueryEscape(last): func(e map[string]any) bool { return e["requestId"] == last },
	}
	want := map[string]int{"status=404": 3, "status=4xx": 3, "status=2xx": 6, "keyId=" + keyID: 6, "requestId=" + url.QueryEscape(last): 1}
	for q, holds := range checks {
		got, _ := list(t, key, q)
		if n, ok := want[q]; ok && len(got) != n {
			t.Errorf("%s: %d entries, want %d", q, len(got), n)
		}
		if len(got) == 0 {
			t.Errorf("%s selected nothing", q)
		}
		for _, e := range got {
			if !holds(e) {
				t.Errorf("%s selected %v", q, e)
			}
		}
	}
	if got, _ := list(t, key, "from="+url.QueryEscape(start.Add(time.Hour).Format(time.RFC3339))); len(got) != 0 {
		t.Errorf("from an hour ahead: %d entries", len(got))
	}
	if got, _ := list(t, key, "to="+url.QueryEscape(start.Format(time.RFC3339Nano))); len(got) != 0 {
		t.Errorf("to before the first request: %d entries", len(got))
	}

	seen := map[string]bool{}
	cursor := ""
	for pages := 0; ; pages++ {
		page, next := list(t, key, "status=4xx&take=2&cursor="+url.QueryEscape(cursor))
		for _, e := range page {
			if seen[e["id"].(string)] {
				t.Fatalf("page %d repeats %v", pages, e["id"])
			}
			seen[e["id"].(string)] = true
		}
		if next == nil {
			break
		}
		cursor = next.(string)
	}
	if len(seen) != 3 {
		t.Fatalf("paging saw %d entries, want 3", len(seen))
	}
	for _, q := range []string{"status=600", "status=4x", "route=wallets", "take=0", "take=101", "cursor=nope", "from=yesterday"} {
		key.Get("/v1/request-logs?"+q).ExpectError(t, 400, "VALIDATION_FAILED")
	}
}

// TestRequestLogs_Isolation: another tenant's entries are neither listed nor readable (404),
// the other environment's are not listed, a key without status:read is refused, and reading the
// log is not recorded in it.
func TestRequestLogs_Isolation(t *testing.T) {
	t.Parallel()
	ten, other := env().NewTenant(t), env().NewTenant(t)
	id := requestID(t)
	other.Root.With("X-Request-Id", id).Get("/v1/wallets").Expect(t, 200)
	theirs := entryOf(t, other.Root, id)
	ten.Root.Get("/v1/request-logs/"+theirs["id"].(string)).ExpectError(t, 404, "REQUEST_LOG_NOT_FOUND")
	if got, _ := list(t, ten.Root, "requestId="+url.QueryEscape(id)); len(got) != 0 {
		t.Fatalf("another tenant's request is listed: %v", got)
	}
	live := ten.Session.With("X-Corridor-Environment", "live")
	mine := requestID(t)
	ten.Root.With("X-Request-Id", mine).Get("/v1/wallets").Expect(t, 200)
	entryOf(t, ten.Root, mine)
	if got, _ := list(t, live, "requestId="+url.QueryEscape(mine)); len(got) != 0 {
		t.Fatalf("a TEST request is listed in LIVE: %v", got)
	}
	_, narrow := newKey(t, ten, "wallets:read")
	narrow.Get("/v1/request-logs").ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	for i := 0; i < 3; i++ {
		ten.Root.Get("/v1/request-logs?take=5").Expect(t, 200)
	}
	ten.Root.Get("/v1/request-logs/"+theirs["id"].(string)).ExpectError(t, 404, "REQUEST_LOG_NOT_FOUND")
	marker := requestID(t)
	ten.Root.With("X-Request-Id", marker).Get("/v1/wallets").Expect(t, 200)
	entryOf(t, ten.Root, marker) // everything recorded before it is written by now
	for _, route := range []string{"/v1/request-logs", "/v1/request-logs/{id}"} {
		if got, _ := list(t, ten.Root, "route="+url.QueryEscape(route)); len(got) != 0 {
			t.Fatalf("the log's own reads are recorded: %v", got)
		}
	}
}

// TestRequestLogs_PruneKeepsSevenDays runs the prune job through River: an entry older than
// seven days is deleted, a recent one kept.
func TestRequestLogs_PruneKeepsSevenDays(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	db, err := sql.Open("pgx", e.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Exec(`INSERT INTO request_logs (tenant_id, id, environment, method, route, status, request_id, latency_micros, created_at)
		VALUES ($1, 'rql_old', 'TEST', 'GET', '/v1/wallets', 200, 'req-old', 10, now() - interval '7 days 1 hour'),
		       ($1, 'rql_recent', 'TEST', 'GET', '/v1/wallets', 200, 'req-recent', 10, now() - interval '6 days 23 hours')`, ten.ID)
	if err != nil {
		t.Fatal(err)
	}
	ten.Root.Get("/v1/request-logs/rql_old").Expect(t, 200)
	err = e.Service.Store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		return e.Service.Jobs.Enqueue(ctx, requestlogs.PruneArgs{}, ports.JobOptions{})
	})
	if err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the prune job deletes the old entry", func() bool {
		l, _ := list(t, ten.Root, "take=100")
		for _, x := range l {
			if x["id"] == "rql_old" {
				return false
			}
		}
		return true
	})
	ten.Root.Get("/v1/request-logs/rql_recent").Expect(t, 200)
}
