package api

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

func TestService_Capabilities(t *testing.T) {
	t.Parallel()
	e := env()
	m := e.Client(t).Get("/v1/capabilities").Expect(t, 200).JSON(t)
	if m["apiVersion"] != "1" || m["environment"] != "TEST" {
		t.Fatalf("capabilities: %v", m)
	}
	chains := map[float64]map[string]any{}
	for _, c := range m["chains"].([]any) {
		chain := c.(map[string]any)
		chains[chain["chainId"].(float64)] = chain
	}
	if chains[84532]["environment"] != "TEST" || chains[8453]["environment"] != "LIVE" {
		t.Fatalf("chains: %v", m["chains"])
	}
	if chains[8453]["usdcAddress"] != "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" || chains[84532]["usdcAddress"] == nil {
		t.Fatalf("USDC addresses: %v", m["chains"])
	}
	features := m["features"].(map[string]any)
	for name, want := range wiring.Features {
		if slices.Contains(wiring.ChainFeatures, name) {
			want = false // built, but this server has no chain: what needs one reports false (docs/decisions/tenancy.md)
		}
		if name == "offrampPayments" {
			want = false // needs pending claims, which need the chain's claim escrow
		}
		if features[name] != want {
			t.Fatalf("feature %s = %v, want %v", name, features[name], want)
		}
	}
	for _, unbuilt := range []string{"cards", "pendingClaims", "checkout"} {
		if features[unbuilt] != false {
			t.Fatalf("unbuilt feature %s reported %v", unbuilt, features[unbuilt])
		}
	}
	e.Client(t).WithKey("csk_test_bad_key").Get("/v1/capabilities").ExpectError(t, 401, "UNAUTHENTICATED")
}

func TestService_HealthAndReadiness(t *testing.T) {
	t.Parallel()
	e := env()
	if e.Client(t).Get("/healthz").Expect(t, 200).JSON(t)["status"] != "ok" {
		t.Fatal("healthz not ok")
	}
	got := e.Client(t).Get("/readyz").Expect(t, 200).JSON(t)
	checks, _ := got["checks"].(map[string]any)
	if got["status"] != "ok" || checks["database"] != "ok" || checks["jobs"] != "ok" {
		t.Fatalf("readyz: %v", got)
	}
}

func TestService_ReadinessFailsWithoutDatabase(t *testing.T) {
	t.Parallel()
	broken := harness.NewServer(t, nil)
	broken.Service.Close() // the pool is closed: the database is unreachable for this server
	got := broken.Client(t).Get("/readyz").ExpectError(t, 503, "SERVICE_UNAVAILABLE")
	checks := got["details"].(map[string]any)["checks"].(map[string]any)
	if checks["database"] != "the database does not answer" || !strings.Contains(got["message"].(string), "database") {
		t.Fatalf("readyz without a database: %v", got)
	}
	broken.Client(t).Get("/healthz").Expect(t, 200)
}

// TestService_ReadinessFailsWithoutJobWorkers: a replica whose job workers stopped is not
// ready, and the body says which part failed while the database still answers.
func TestService_ReadinessFailsWithoutJobWorkers(t *testing.T) {
	t.Parallel()
	stopped := harness.NewServer(t, nil)
	stopped.Client(t).Get("/readyz").Expect(t, 200)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := stopped.Service.StopWorkers(ctx); err != nil {
		t.Fatalf("stop workers: %v", err)
	}
	got := stopped.Client(t).Get("/readyz").ExpectError(t, 503, "SERVICE_UNAVAILABLE")
	checks := got["details"].(map[string]any)["checks"].(map[string]any)
	if checks["jobs"] != "the job workers cannot take jobs" || checks["database"] != "ok" || got["message"] != "not ready: jobs" {
		t.Fatalf("readyz without job workers: %v", got)
	}
}

// TestService_Metrics: the metrics listener serves every metric an alert or the dashboard
// reads, and the public API port does not serve /metrics at all.
func TestService_Metrics(t *testing.T) {
	t.Parallel()
	e := env()
	e.Client(t).Get("/v1/capabilities").Expect(t, 200)
	e.Client(t).Get("/v1/nothing").Expect(t, 404)
	e.Client(t).Get("/metrics").Expect(t, 404)
	enqueueScheduledJob(t, e)
	// The state gauges are read at most once per 5 s (metrics.DefaultMinInterval), and another
	// test may have scraped just before the job was enqueued: await the read that sees it.
	var body string
	harness.Eventually(t, "the scheduled job shows in the queue's gauges", func() bool {
		body = e.Metrics(t)
		return strings.Contains(body, `corridor_jobs{kind="webhooks.deliver",state="scheduled"}`)
	})
	for _, want := range []string{
		`corridor_http_requests_total{method="GET",route="/v1/capabilities",status="200"}`,
		`corridor_http_requests_total{method="GET",route="unmatched",status="404"}`,
		`corridor_http_request_duration_seconds_bucket{method="GET",route="/v1/capabilities"`,
		`corridor_jobs{kind="webhooks.deliver",state="scheduled"}`,
		`corridor_jobs_oldest_available_age_seconds{kind="webhooks.deliver"}`,
		`corridor_jobs_pool_in_use_connections `, `corridor_jobs_pool_waits_total `,
		`corridor_webhook_attempts_total{outcome="unreachable"} `,
		`corridor_webhook_endpoints_disabled{environment="LIVE"} `,
		`corridor_webhook_backlog_age_seconds{environment="LIVE"} `, `corridor_webhook_backlog_age_seconds{environment="TEST"} `,
		`corridor_twofactor_locked{environment="LIVE"} `,
		`corridor_offramp_payments{environment="TEST",status="ACTION_REQUIRED"} `,
		`corridor_ledger_transfers_total{environment="TEST"} `,
		`go_sql_in_use_connections{db_name="corridor"} `, `go_sql_wait_count_total{db_name="corridor"} `,
		`corridor_pipeline_batch_units_bucket{`, `corridor_pipeline_batch_wait_seconds_bucket{`,
		`corridor_pipeline_lane_seconds_total `, `corridor_pipeline_lane_wait_seconds_total{for="units"} `,
		`corridor_pipeline_lane_wait_seconds_total{for="commit"} `,
		`corridor_metrics_source_up{source="jobs"} 1`, `corridor_metrics_source_up{source="relayer"} 1`,
		`corridor_metrics_source_up{source="offramp"} 1`, `corridor_metrics_source_up{source="ledger"} 1`,
		`go_goroutines `,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// enqueueScheduledJob puts a delivery job an hour ahead into the queue, so the queue's gauges
// have a kind to report; it never runs while the package's tests do.
func enqueueScheduledJob(t *testing.T, e *harness.Env) {
	t.Helper()
	err := e.Service.Store.InTx(context.Background(), func(ctx context.Context, _ ports.Tx) error {
		return e.Service.Jobs.Enqueue(ctx, webhooks.DeliverArgs{DeliveryID: "whd_metrics_probe"},
			ports.JobOptions{ScheduledAt: time.Now().Add(time.Hour)})
	})
	if err != nil {
		t.Fatalf("enqueue: %v", err)
	}
}

// TestService_OpenAPIParity: every registered route is documented and every documented route
// is registered, with schemas for bodies and the error envelope on errors.
func TestService_OpenAPIParity(t *testing.T) {
	t.Parallel()
	e := env()
	doc := e.Client(t).Get("/v1/openapi.json").Expect(t, 200).JSON(t)
	if doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi version %v", doc["openapi"])
	}
	documented := map[string]bool{}
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			key := strings.ToUpper(method) + " " + path
			documented[key] = true
			responses := op.(map[string]any)["responses"].(map[string]any)
			def, ok := responses["default"].(map[string]any)
			// The secondary surface's routes answer its error shape, or either shape by the
			// body's on a path both surfaces share (docs/decisions/checkout.md).
			want := map[any]string{"secondary": "#/components/responses/SecondaryError", "by-body": "#/components/responses/EitherShapeError"}[op.(map[string]any)["x-corridor-error-shape"]]
			if want == "" {
				want = "#/components/responses/Error"
			}
			if !ok || def["$ref"] != want {
				t.Fatalf("%s: no error envelope on default response", key)
			}
		}
	}
	registered := map[string]bool{}
	for _, r := range e.Service.Server.Fiber().GetRoutes(true) {
		if r.Method == "HEAD" {
			continue // Fiber adds HEAD for every GET
		}
		if r.Path == "/console" || strings.HasPrefix(r.Path, "/console/") {
			continue // the tenant console's HTML pages (docs/console.md), outside the API's document
		}
		registered[r.Method+" "+fiberToOpenAPI(r.Path)] = true
	}
	var missing, extra []string
	for k := range registered {
		if !documented[k] {
			missing = append(missing, k)
		}
	}
	for k := range documented {
		if !registered[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("routes missing from the document: %v; documented but not registered: %v", missing, extra)
	}
	if len(registered) < 14 {
		t.Fatalf("only %d routes registered", len(registered))
	}
}

// TestService_RateLimit: a credential's burst is spent, the next request is 429 with
// Retry-After, another credential is unaffected, and a 429 is not stored under an
// Idempotency-Key. The refill is slow (one token per 10 s) so that a loaded machine cannot
// refill the bucket between the requests that spend it; the refill itself is awaited, not slept.
func TestService_RateLimit(t *testing.T) {
	t.Parallel()
	limited := harness.NewServer(t, func(c *wiring.Config) { c.RateLimit.PerSecond, c.RateLimit.Burst = 0.1, 3 })
	ten := limited.NewTenant(t) // the session made two requests
	reader := ten.Root          // a separate bucket: this key
	for i := 0; i < 3; i++ {
		reader.Get("/v1/tenants/current").Expect(t, 200)
	}
	r := reader.Get("/v1/tenants/current")
	r.ExpectError(t, 429, "RATE_LIMITED")
	if ra := r.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After %q", ra)
	}
	// A 429 on a POST is not stored: the same Idempotency-Key runs once the bucket refills.
	idem := reader.With("Idempotency-Key", "after-429")
	idem.Post("/v1/api-keys", map[string]any{"name": "rl"}).ExpectError(t, 429, "RATE_LIMITED")
	other := limited.NewTenant(t) // another credential is not affected
	other.Root.Get("/v1/tenants/current").Expect(t, 200)
	var status int
	harness.Eventually(t, "the bucket refills", func() bool {
		status = idem.Post("/v1/api-keys", map[string]any{"name": "rl"}).Status
		return status != 429
	})
	if status != 201 {
		t.Fatalf("the retried POST answered %d, want 201 (a 429 must not be replayed)", status)
	}
}

// TestService_RateLimitFailedCredentialsPerIP: guesses without valid credentials are throttled
// per client IP.
func TestService_RateLimitFailedCredentialsPerIP(t *testing.T) {
	t.Parallel()
	// One token per 1000 s: no refill between the guesses however slow the machine is.
	limited := harness.NewServer(t, func(c *wiring.Config) { c.RateLimit.PerSecond, c.RateLimit.Burst = 0.001, 3 })
	guesser := limited.Client(t)
	for i := 0; i < 3; i++ {
		guesser.WithKey("csk_test_guess"+string(rune('a'+i))+"_secret").Get("/v1/tenants/current").ExpectError(t, 401, "UNAUTHENTICATED")
	}
	r := guesser.WithKey("csk_test_guessz_secret").Get("/v1/tenants/current")
	r.ExpectError(t, 429, "RATE_LIMITED")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
}
