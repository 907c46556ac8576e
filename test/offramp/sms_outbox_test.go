package offramp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/app/recipients"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

// The sandbox SMS outbox (docs/security.md, "SMS bodies and the outbox"): bodies carry codes
// and claim links, so the database holds them only encrypted; a retention purge deletes old
// messages.

func outboxConn(t *testing.T) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

func TestSMSOutbox_BodyNeverStoredInClear(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	ten.Root.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201)
	code := lastCode(t, ten.Root) // the TEST caller still reads it through the API
	conn := outboxConn(t)
	ctx := context.Background()
	// Every column of the tenant's outbox rows, as text: none holds the code.
	rows, err := conn.Query(ctx, `SELECT m::text, body_ciphertext FROM sms_messages m WHERE tenant_id = $1`, ten.ID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var all string
		var sealed []byte
		if err := rows.Scan(&all, &sealed); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(all, code) || bytes.Contains(sealed, []byte(code)) || len(sealed) == 0 {
			t.Fatalf("an outbox row holds the code %s in clear: %s", code, all)
		}
		n++
	}
	if err := rows.Err(); err != nil || n != 1 {
		t.Fatalf("%d outbox rows, %v", n, err)
	}
}

func TestSMSOutbox_RetentionPurge(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	ten.Root.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201)
	old := ten.Root.Get("/v1/sandbox/sms-messages").Expect(t, 200).JSON(t)["messages"].([]any)[0].(map[string]any)["id"].(string)
	conn := outboxConn(t)
	ctx := context.Background()
	// Older than the retention (7 days by default).
	if _, err := conn.Exec(ctx, `UPDATE sms_messages SET created_at = now() - interval '8 days' WHERE id = $1`, old); err != nil {
		t.Fatal(err)
	}
	ten.Root.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201)
	if _, err := env().Service.Recipients.PurgeSMSOutbox(ctx); err != nil {
		t.Fatal(err)
	}
	msgs := ten.Root.Get("/v1/sandbox/sms-messages").Expect(t, 200).JSON(t)["messages"].([]any)
	if len(msgs) != 1 || msgs[0].(map[string]any)["id"] == old {
		t.Fatalf("after the purge the outbox holds %v; want only the new message", msgs)
	}
	var left int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM sms_messages WHERE id = $1`, old).Scan(&left); err != nil || left != 0 {
		t.Fatalf("old message rows left: %d %v", left, err)
	}
}

// TestSMSOutbox_PurgeIsAPeriodicJob: the service schedules the purge as a River periodic job
// (run at start, then every 10 minutes) and works it.
func TestSMSOutbox_PurgeIsAPeriodicJob(t *testing.T) {
	t.Parallel()
	conn := outboxConn(t)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		err := conn.QueryRow(context.Background(),
			`SELECT count(*) FROM river_job WHERE kind = 'sms.outbox_purge' AND state = 'completed'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no completed sms.outbox_purge job: the purge is not scheduled or not worked")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestSMSOutbox_SentAfterCommitOncePerKey: creating an alias answers with its text queued as an
// outbox job committed with it (not yet sent by the request), in the texts' own queue; the job
// sends it; running the job again with the same idempotency key sends nothing more.
func TestSMSOutbox_SentAfterCommitOncePerKey(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	ctx := context.Background()
	conn := outboxConn(t)
	alias := ten.Root.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201).JSON(t)
	var raw []byte
	var queue string
	if err := conn.QueryRow(ctx, `SELECT args, queue FROM river_job WHERE kind = 'sms.send' AND args->>'tenantId' = $1`, ten.ID).Scan(&raw, &queue); err != nil {
		t.Fatalf("no sms.send job committed with the alias: %v", err)
	}
	if queue != ports.QueueTexts {
		t.Fatalf("the text waits in queue %q, want its own %q (not behind the default queue's backlog)", queue, ports.QueueTexts)
	}
	var args recipients.SMSSendArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		t.Fatal(err)
	}
	if args.IdempotencyKey != "phone_alias:"+alias["id"].(string)+":code:"+codeHashOf(t, conn, alias["id"].(string)) || bytes.Contains(raw, []byte("verification code")) {
		t.Fatalf("job args %s: want the alias's key and a sealed body", raw)
	}
	if m := ten.Root.Get("/v1/sandbox/sms-messages").Expect(t, 200).JSON(t); m["total"] != float64(1) {
		t.Fatalf("outbox after the job: %v", m)
	}
	for i := 0; i < 2; i++ {
		if err := env().Service.Recipients.SendQueuedSMS(ctx, args); err != nil {
			t.Fatal(err)
		}
	}
	if m := ten.Root.Get("/v1/sandbox/sms-messages").Expect(t, 200).JSON(t); m["total"] != float64(1) {
		t.Fatalf("a retried job texted again: %v", m)
	}
}

func codeHashOf(t *testing.T, conn *pgx.Conn, aliasID string) string {
	t.Helper()
	var h string
	if err := conn.QueryRow(context.Background(), `SELECT code_hash FROM phone_aliases WHERE id = $1`, aliasID).Scan(&h); err != nil {
		t.Fatal(err)
	}
	return h
}
