package api

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

func operatorClient(t *testing.T) *harness.Client {
	return env().Client(t).With("X-Operator-Token", harness.OperatorToken)
}

type adminTenants struct {
	Tenants []struct {
		ID        string `json:"id"`
		Slug      string `json:"slug"`
		MatchedBy string `json:"matchedBy"`
		Members   int    `json:"members"`
	} `json:"tenants"`
}

func findTenants(t *testing.T, q string) adminTenants {
	t.Helper()
	var out adminTenants
	operatorClient(t).Get("/v1/admin/tenants?q="+url.QueryEscape(q)).Expect(t, 200).Decode(t, &out)
	return out
}

// execSQL runs one statement on the service's database, for the state a test cannot reach in
// its time through the API (an endpoint failing for days, a job out of attempts).
func execSQL(t *testing.T, query string, args ...any) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if tag, err := conn.Exec(ctx, query, args...); err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("%s: %v (%d rows)", query, err, tag.RowsAffected())
	}
}

// operatorLookups counts the audit trail's entries of one lookup action whose detail is detail.
func operatorLookups(t *testing.T, action, detail string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	var n int
	err = conn.QueryRow(ctx, `SELECT count(*) FROM operator_actions WHERE action = $1 AND detail = $2 AND via = 'api'
		AND operator LIKE 'operator-token:%'`, action, detail).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAdmin_FindTenants: the operator looks a tenant up by id, slug or a member's email (in any
// case), sees only matching tenants, and every lookup is in the audit trail; tenant
// credentials and a wrong token are refused, and a missing query is a validation error.
func TestAdmin_FindTenants(t *testing.T) {
	t.Parallel()
	ten, other := env().NewTenant(t), env().NewTenant(t)
	current := ten.Root.Get("/v1/tenants/current").Expect(t, 200).JSON(t)
	slug := current["slug"].(string)
	email := "finance-" + strings.ToLower(ten.ID) + "@example.com"
	ten.Session.Post("/v1/tenants/members", map[string]any{"email": email}).Expect(t, 201)

	for q, matchedBy := range map[string]string{ten.ID: "id", slug: "slug", strings.ToUpper(email): "email"} {
		got := findTenants(t, q)
		if len(got.Tenants) != 1 || got.Tenants[0].ID != ten.ID || got.Tenants[0].MatchedBy != matchedBy || got.Tenants[0].Slug != slug || got.Tenants[0].Members < 1 {
			t.Fatalf("q=%s: %+v, want %s matched by %s", q, got, ten.ID, matchedBy)
		}
		if n := operatorLookups(t, "list-tenants", "q="+q); n != 1 {
			t.Fatalf("q=%s: %d audit entries", q, n)
		}
	}
	if got := findTenants(t, "nobody-"+other.ID+"@example.com"); len(got.Tenants) != 0 {
		t.Fatalf("an unknown email matched %+v", got)
	}

	path := "/v1/admin/tenants?q=" + url.QueryEscape(ten.ID)
	ten.Root.Get(path).ExpectError(t, 401, "UNAUTHENTICATED")
	other.Root.With("X-Operator-Token", harness.OperatorToken).Get(path).ExpectError(t, 401, "UNAUTHENTICATED")
	env().Client(t).With("X-Operator-Token", harness.OperatorToken+"x").Get(path).ExpectError(t, 401, "UNAUTHENTICATED")
	operatorClient(t).Get("/v1/admin/tenants").ExpectError(t, 400, "VALIDATION_FAILED")
	operatorClient(t).Get("/v1/admin/tenants?q="+strings.Repeat("x", 321)).ExpectError(t, 400, "VALIDATION_FAILED")
}

// TestAdmin_Lists: stuck work, failed jobs and disabled endpoints answer their lists to the
// operator only, and each lookup is audited.
func TestAdmin_Lists(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	for path, key := range map[string]string{
		"/v1/admin/stuck-work": "payments", "/v1/admin/failed-jobs": "jobs", "/v1/admin/disabled-webhook-endpoints": "endpoints",
	} {
		body := operatorClient(t).Get(path).Expect(t, 200).JSON(t)
		if _, ok := body[key].([]any); !ok {
			t.Fatalf("%s: %v lacks the list %q", path, body, key)
		}
		ten.Root.Get(path).ExpectError(t, 401, "UNAUTHENTICATED")
	}
	for _, action := range []string{"list-stuck-work", "list-failed-jobs", "list-disabled-endpoints"} {
		if n := operatorLookups(t, action, ""); n < 1 {
			t.Fatalf("%s not audited", action)
		}
	}
}

// TestAdmin_ListsShowTheWork: an endpoint the service disabled is listed with its tenant, URL
// and reason, a job out of attempts with its kind, arguments and last error, and a relayer
// nonce unmined for 20 minutes with its sends and newest hash.
func TestAdmin_ListsShowTheWork(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	endpoint := ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": "https://1.1.1.1/admin-list"}).Expect(t, 201).JSON(t)["id"].(string)
	execSQL(t, `UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing for 3 days', failing_since = now() - interval '3 days'
		WHERE id = $1`, endpoint)
	var endpoints struct {
		Endpoints []struct{ ID, TenantID, Environment, URL, Reason string } `json:"endpoints"`
	}
	operatorClient(t).Get("/v1/admin/disabled-webhook-endpoints").Expect(t, 200).Decode(t, &endpoints)
	found := false
	for _, e := range endpoints.Endpoints {
		found = found || e.ID == endpoint && e.TenantID == ten.ID && e.Environment == "TEST" && e.URL == "https://1.1.1.1/admin-list" && e.Reason == "failing for 3 days"
	}
	if !found {
		t.Fatalf("the disabled endpoint %s is not listed: %+v", endpoint, endpoints)
	}

	delivery := "whd_admin_list_" + strings.ToLower(ten.ID)
	err := env().Service.Store.InTx(context.Background(), func(ctx context.Context, _ ports.Tx) error {
		return env().Service.Jobs.Enqueue(ctx, webhooks.DeliverArgs{DeliveryID: delivery}, ports.JobOptions{ScheduledAt: time.Now().Add(time.Hour)})
	})
	if err != nil {
		t.Fatal(err)
	}
	execSQL(t, `UPDATE river_job SET state = 'discarded', attempt = 25, finalized_at = now(),
		errors = ARRAY[jsonb_build_object('at', now(), 'attempt', 25, 'error', 'endpoint answered 503')]
		WHERE kind = 'webhooks.deliver' AND args->>'deliveryId' = $1`, delivery)
	var jobs struct {
		Jobs []struct {
			Kind, State, Args, LastError string
			Attempt                      int
		} `json:"jobs"`
	}
	operatorClient(t).Get("/v1/admin/failed-jobs").Expect(t, 200).Decode(t, &jobs)
	found = false
	for _, j := range jobs.Jobs {
		found = found || j.Kind == "webhooks.deliver" && j.State == "discarded" && strings.Contains(j.Args, delivery) &&
			j.LastError == "endpoint answered 503" && j.Attempt == 25
	}
	if !found {
		t.Fatalf("the discarded job is not listed: %+v", jobs)
	}

	// A relayer nonce sent 20 minutes ago and bumped 15 minutes ago, never mined.
	relayer := fmt.Sprintf("0x%040x", time.Now().UnixNano())
	for i, sent := range []string{"20 minutes", "15 minutes"} {
		execSQL(t, `INSERT INTO relayer_transactions (chain_id, address, nonce, tx_hash, value_wei, data, gas, gas_fee_cap, gas_tip_cap, sent_at)
			VALUES (999999, $1, 7, $2, 0, '\x', 21000, 1, 1, now() - $3::interval)`, relayer, fmt.Sprintf("0x%064x", i+1), sent)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		if conn, err := pgx.Connect(ctx, env().DatabaseURL); err == nil {
			_, _ = conn.Exec(ctx, `DELETE FROM relayer_transactions WHERE chain_id = 999999 AND address = $1`, relayer)
			_ = conn.Close(ctx)
		}
	})
	var stuck struct {
		RelayerTransactions []struct {
			ChainID               int64
			Address, LatestTxHash string
			Nonce                 int64
			Sends                 int
		} `json:"relayerTransactions"`
	}
	operatorClient(t).Get("/v1/admin/stuck-work").Expect(t, 200).Decode(t, &stuck)
	found = false
	for _, r := range stuck.RelayerTransactions {
		found = found || r.ChainID == 999999 && r.Address == relayer && r.Nonce == 7 && r.Sends == 2 && r.LatestTxHash == fmt.Sprintf("0x%064x", 2)
	}
	if !found {
		t.Fatalf("the stuck relayer nonce is not listed: %+v", stuck)
	}
}

// TestMetrics_WebhookBacklogAge: a delivery due an hour ago and still pending shows as the
// environment's webhook backlog age (what CorridorWebhookBacklogAging reads), in seconds.
func TestMetrics_WebhookBacklogAge(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	// A triggered event is about a real object: the tenant's agent.
	ten.Root.Post("/v1/agents", map[string]any{"name": "backlog bot"}).Expect(t, 201)
	ev := ten.Root.Post("/v1/sandbox/events", map[string]any{"type": "agent.created"}).Expect(t, 201).JSON(t)
	eventID, eventType := ev["id"].(string), ev["type"].(string)
	// The endpoint comes after the event, so the service itself delivers nothing to it.
	endpoint := ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": "https://1.1.1.1/backlog"}).Expect(t, 201).JSON(t)["id"].(string)
	// The delivery below is the one the fan-out would write for this event and endpoint. The
	// event was recorded fanned out (no endpoint then), so the fan-out never claims it and never
	// writes that delivery beside this insert (which once deadlocked with its claim; see
	// docs/decisions/webhooks.md, "The fan-out claims events FOR NO KEY UPDATE").
	execSQL(t, `SELECT 1 FROM events WHERE tenant_id = $1 AND id = $2 AND dispatched_at IS NOT NULL`, ten.ID, eventID)
	delivery := "whd_backlog_" + strings.ToLower(ten.ID)
	execSQL(t, `INSERT INTO webhook_deliveries (id, tenant_id, environment, endpoint_id, event_id, event_type, status, attempts,
		next_attempt_at, created_at, updated_at) VALUES ($1, $2, 'TEST', $3, $4, $5, 'PENDING', 0, now() - interval '1 hour', now(), now())`,
		delivery, ten.ID, endpoint, eventID, eventType)
	t.Cleanup(func() { execSQL(t, `DELETE FROM webhook_deliveries WHERE id = $1`, delivery) })
	// The state gauges are read at most once per 5 s (metrics.DefaultMinInterval) and another
	// test may have scraped just before: await the next read rather than the cached one.
	harness.Eventually(t, "the webhook backlog age reaches an hour", func() bool {
		for _, line := range strings.Split(env().Metrics(t), "\n") {
			if v, ok := strings.CutPrefix(line, `corridor_webhook_backlog_age_seconds{environment="TEST"} `); ok {
				var age float64
				if _, err := fmt.Sscan(v, &age); err != nil {
					t.Fatal(err)
				}
				return age >= 3600
			}
		}
		return false
	})
}
