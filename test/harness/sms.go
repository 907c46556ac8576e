package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// smsOutboxPath is the sandbox outbox a TEST client reads its texts from.
const smsOutboxPath = "/v1/sandbox/sms-messages"

// settleSMS waits until every SMS outbox job (sms.send) enqueued before the call has run, of
// tenant when it is known (else of every tenant). Texts
// are sent by a job after the unit of work that decided them commits (docs/decisions/reliability.md), so a
// client reading the sandbox outbox right after a request first lets the queue catch up, as a
// phone would receive the text a moment after the answer. A job that keeps failing fails the
// test after waitLimit, naming it.
func (e *Env) settleSMS(t testing.TB, tenant string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, e.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var bound time.Time
	if err := conn.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&bound); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(waitLimit)
	for {
		var pending int
		var lastError string
		err := conn.QueryRow(ctx, `SELECT count(*), coalesce(max(errors[array_length(errors, 1)]->>'error'), '')
			FROM river_job WHERE kind = 'sms.send' AND created_at <= $1
			AND state IN ('available', 'pending', 'running', 'retryable', 'scheduled')
			AND ($2 = '' OR args->>'tenantId' = $2)`, bound, tenant).Scan(&pending, &lastError)
		if err != nil {
			t.Fatal(err)
		}
		if pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d SMS outbox jobs never ran (last error %q)", pending, lastError)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// isSMSOutboxRead reports a GET of the sandbox outbox.
func isSMSOutboxRead(method, path string) bool {
	return method == "GET" && strings.HasPrefix(path, smsOutboxPath)
}
