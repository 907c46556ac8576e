package requestlogs

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/requestlog"
)

// flakyLogs is a store that refuses writes while failing is set.
type flakyLogs struct {
	mu      sync.Mutex
	failing bool
	rows    []requestlog.Entry
}

func (f *flakyLogs) AppendRequestLogs(_ context.Context, entries []requestlog.Entry) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failing {
		return errors.New("database unavailable")
	}
	f.rows = append(f.rows, entries...)
	return nil
}

func (f *flakyLogs) ListRequestLogs(context.Context, requestlog.Filter, *requestlog.Cursor, int) ([]requestlog.Entry, error) {
	return nil, nil
}

func (f *flakyLogs) FindRequestLog(context.Context, string, core.Environment, string) (requestlog.Entry, error) {
	return requestlog.Entry{}, nil
}

func (f *flakyLogs) PruneRequestLogs(context.Context, time.Time) (int, error) { return 0, nil }

func (f *flakyLogs) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.rows)
}

// TestRecorder_KeepsWhatTheDatabaseRefused: Record returns at once while the database refuses
// batches; once it answers again, every entry is written, once; Close writes what waits.
func TestRecorder_KeepsWhatTheDatabaseRefused(t *testing.T) {
	store := &flakyLogs{failing: true}
	r, err := NewRecorder(store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1200; i++ {
		r.Record(requestlog.Entry{TenantID: "ten_1", Route: "/v1/wallets", Status: 200})
	}
	r.Record(requestlog.Entry{Route: "/v1/capabilities"}) // no tenant: not recorded
	store.mu.Lock()
	store.failing = false
	store.mu.Unlock()
	r.Close()
	if got := store.count(); got != 1200 || r.Written() != 1200 || r.Dropped() != 0 {
		t.Fatalf("written %d (counted %d), dropped %d; want 1200, 0", got, r.Written(), r.Dropped())
	}
	ids := map[string]bool{}
	for _, e := range store.rows {
		if ids[e.ID] || e.ID == "" {
			t.Fatalf("entry id %q is empty or repeated", e.ID)
		}
		ids[e.ID] = true
	}
}

// TestErrorBody: a success keeps nothing; an envelope is kept as it is; a long or non-object
// body is kept cut, as an object.
func TestErrorBody(t *testing.T) {
	if requestlog.ErrorBody(200, []byte(`{"a":1}`)) != nil {
		t.Fatal("a success kept its body")
	}
	if got := string(requestlog.ErrorBody(404, []byte(`{"code":"X"}`))); got != `{"code":"X"}` {
		t.Fatalf("envelope: %s", got)
	}
	long := make([]byte, requestlog.MaxErrorBodyBytes+10)
	for i := range long {
		long[i] = 'x'
	}
	for _, body := range [][]byte{long, []byte("plain text")} {
		got := requestlog.ErrorBody(500, body)
		if len(got) > requestlog.MaxErrorBodyBytes+64 || got[0] != '{' {
			t.Fatalf("cut body: %.80s", got)
		}
	}
}
