package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// TestOperatorConsole_SignIn: the page needs the operator token; a wrong token, a tenant's
// session and a forged cookie get nothing; sign out ends it.
func TestOperatorConsole_SignIn(t *testing.T) {
	t.Parallel()
	v := env().ConsoleVisitor(t)
	if p := v.Get("/console/operator"); p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/console/operator/signin" {
		t.Fatalf("anonymous operator page: %d %q", p.Status, p.Header.Get("Location"))
	}
	v.Get("/console/operator/signin")
	if p := v.Post("/console/operator/signin", url.Values{"token": {"optok_wrong_0123456789abcdef0123456789abcdef"}}, true); p.Status != http.StatusUnauthorized || !strings.Contains(p.Body, "not the operator token") {
		t.Fatalf("wrong operator token: %d %s", p.Status, p.Body)
	}
	if p := v.Post("/console/operator/signin", url.Values{"token": {harness.OperatorToken}}, false); p.Status != http.StatusForbidden {
		t.Fatalf("operator sign-in without a CSRF token: %d", p.Status)
	}
	if p := v.Get("/console/operator"); p.Status != http.StatusSeeOther {
		t.Fatalf("operator page after refused sign-ins: %d", p.Status)
	}

	member := env().ConsoleVisitor(t)
	member.SignIn(env().NewTenant(t).SessionToken)
	if p := member.Get("/console/operator"); p.Status != http.StatusSeeOther {
		t.Fatalf("a tenant's console session reached the operator page: %d", p.Status)
	}
	forged := env().ConsoleVisitor(t)
	forged.SetCookies([]*http.Cookie{{Name: "corridor_operator", Value: "eyJ0IjoieCIsIm4iOiJ5In0.AAAA", Path: "/console"}})
	if p := forged.Get("/console/operator"); p.Status != http.StatusSeeOther {
		t.Fatalf("forged operator cookie: %d", p.Status)
	}

	v.OperatorSignIn()
	page := v.Get("/console/operator")
	if page.Status != http.StatusOK || !strings.Contains(page.Body, `id="operator-payments"`) || !strings.Contains(page.Body, `id="operator-jobs"`) ||
		!strings.Contains(page.Body, `id="operator-endpoints"`) {
		t.Fatalf("operator page: %d %s", page.Status, page.Body)
	}
	if p := v.Post("/console/operator/signout", nil, false); p.Status != http.StatusForbidden {
		t.Fatalf("operator sign out without a CSRF token: %d", p.Status)
	}
	if p := v.Post("/console/operator/signout", nil, true); p.Status != http.StatusSeeOther {
		t.Fatalf("operator sign out: %d", p.Status)
	}
	if p := v.Get("/console/operator"); p.Status != http.StatusSeeOther {
		t.Fatalf("operator page after sign out: %d", p.Status)
	}
}

// TestOperatorConsole_ListsAndRetriesDiscardedJobs: a job that ran out of attempts is listed
// with its kind, arguments and state. Retrying it needs the confirmation and the CSRF token
// (refusals change nothing); once retried it runs again (and, its delivery still missing,
// fails again with one more attempt used). Unknown jobs answer 404.
func TestOperatorConsole_ListsAndRetriesDiscardedJobs(t *testing.T) {
	t.Parallel()
	probe := "whd_operator_probe_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	err := env().Service.Store.InTx(context.Background(), func(ctx context.Context, _ ports.Tx) error {
		// No such delivery: the attempt fails, and with one attempt allowed the job is discarded.
		return env().Service.Jobs.Enqueue(ctx, webhooks.DeliverArgs{DeliveryID: probe}, ports.JobOptions{MaxAttempts: 1})
	})
	if err != nil {
		t.Fatal(err)
	}
	v := env().ConsoleVisitor(t)
	v.OperatorSignIn()
	row := v.OperatorRow("operator-jobs", probe)
	if !strings.Contains(row, "webhooks.deliver") || !strings.Contains(row, "discarded") || !strings.Contains(row, "1 of 1") {
		t.Fatalf("discarded job row: %s", row)
	}
	jobID := regexp.MustCompile(`/console/operator/jobs/(\d+)/retry`).FindStringSubmatch(row)
	if jobID == nil {
		t.Fatalf("no retry form in the row: %s", row)
	}
	retry := "/console/operator/jobs/" + jobID[1] + "/retry"
	if r := v.Post(retry, url.Values{}, true); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "Tick the confirmation") {
		t.Fatalf("retry without the confirmation: %d %s", r.Status, r.Body)
	}
	if r := v.Post(retry, url.Values{"confirm": {"yes"}}, false); r.Status != http.StatusForbidden {
		t.Fatalf("retry without a CSRF token: %d", r.Status)
	}
	if r := v.Post("/console/operator/jobs/999999999/retry", url.Values{"confirm": {"yes"}}, true); r.Status != http.StatusNotFound {
		t.Fatalf("retry of an unknown job: %d", r.Status)
	}
	if r := v.Post("/console/operator/jobs/abc/retry", url.Values{"confirm": {"yes"}}, true); r.Status != http.StatusNotFound {
		t.Fatalf("retry of a malformed job id: %d", r.Status)
	}
	if row := v.OperatorRow("operator-jobs", probe); !strings.Contains(row, "1 of 1") {
		t.Fatalf("refused retries changed the job: %s", row)
	}
	if r := v.Post(retry, url.Values{"confirm": {"yes"}}, true); r.Status != http.StatusSeeOther {
		t.Fatalf("retry: %d %s", r.Status, r.Body)
	}
	// The worker takes the job again; its second attempt fails as the first did.
	deadline := time.Now().Add(30 * time.Second)
	for row := v.OperatorRow("operator-jobs", probe); !strings.Contains(row, "2 of 2") || !strings.Contains(row, "discarded"); row = v.OperatorRow("operator-jobs", probe) {
		if time.Now().After(deadline) {
			t.Fatalf("the retried job did not run again: %s", row)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestOperatorConsole_ListsDisabledEndpoints: an endpoint the service disabled after failing
// for the whole retry window is listed with its tenant and reason; one a tenant switched off
// is not.
func TestOperatorConsole_ListsDisabledEndpoints(t *testing.T) {
	t.Parallel()
	srv := harness.NewServer(t, func(c *wiring.Config) {
		c.Webhooks = webhooks.Config{RetryBase: 50 * time.Millisecond, RetryMax: 100 * time.Millisecond, RetryWindow: 300 * time.Millisecond,
			Timeout: time.Second, DispatchInterval: 50 * time.Millisecond, AllowPrivateTest: true}
	})
	ten := srv.NewTenant(t)
	rcv := harness.NewWebhookReceiver(t, 1_000_000)
	failing := ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": rcv.URL() + "/hook"}).Expect(t, 201).JSON(t)["id"].(string)
	switchedOff := ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": rcv.URL() + "/off"}).Expect(t, 201).JSON(t)["id"].(string)
	ten.Root.Do(http.MethodPatch, "/v1/webhook-endpoints/"+switchedOff, map[string]any{"enabled": false}).Expect(t, 200)
	agent := ten.Root.Post("/v1/agents", map[string]any{"name": "operator probe"}).Expect(t, 201).JSON(t)["id"].(string)
	// Failures continue until one comes a whole retry window after the first: then the
	// service disables the endpoint. Each round makes one more event to fail on.
	deadline := time.Now().Add(30 * time.Second)
	for round := 0; ; round++ {
		if got := ten.Root.Get("/v1/webhook-endpoints/"+failing).Expect(t, 200).JSON(t); got["enabled"] == false {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the failing endpoint was never disabled")
		}
		action := map[bool]string{true: "/suspend", false: "/reactivate"}[round%2 == 0]
		ten.Root.Post("/v1/agents/"+agent+action, nil)
		time.Sleep(100 * time.Millisecond)
	}
	v := srv.ConsoleVisitor(t)
	v.OperatorSignIn()
	row := v.OperatorRow("operator-endpoints", failing)
	if !strings.Contains(row, ten.ID) || !strings.Contains(row, string(core.EnvTest)) || !strings.Contains(row, "failing for the whole retry window") {
		t.Fatalf("disabled endpoint row: %s", row)
	}
	if strings.Contains(v.Get("/console/operator").Body, switchedOff) {
		t.Fatal("an endpoint the tenant switched off is listed as disabled by the service")
	}

	// The receiver answers again: the operator enables the endpoint and redelivers, once
	// confirmed; the failed deliveries arrive again, and the trail records who did it.
	rcv.Heal()
	redeliver := "/console/operator/endpoints/" + failing + "/redeliver"
	if r := v.Post(redeliver, url.Values{}, true); r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("redeliver without the confirmation: %d", r.Status)
	}
	if got := ten.Root.Get("/v1/webhook-endpoints/"+failing).Expect(t, 200).JSON(t); got["enabled"] != false {
		t.Fatalf("a refused redeliver enabled the endpoint: %v", got)
	}
	before := len(rcv.Wait(t, 1))
	if r := v.Post(redeliver, url.Values{"confirm": {"yes"}}, true); r.Status != http.StatusSeeOther {
		t.Fatalf("redeliver: %d %s", r.Status, r.Body)
	}
	if got := ten.Root.Get("/v1/webhook-endpoints/"+failing).Expect(t, 200).JSON(t); got["enabled"] != true {
		t.Fatalf("after the operator's redeliver: %v", got)
	}
	rcv.Wait(t, before+1)
	deliveries := ten.Root.Get("/v1/webhook-endpoints/"+failing+"/deliveries").Expect(t, 200).JSON(t)["deliveries"].([]any)
	redelivered := 0
	for _, d := range deliveries {
		if d.(map[string]any)["redeliveryOf"] != nil {
			redelivered++
		}
	}
	if redelivered == 0 {
		t.Fatalf("no delivery was made again: %v", deliveries)
	}
	row = v.OperatorRow("operator-audit", ">"+failing+"<")
	if !strings.Contains(row, "redeliver") || !strings.Contains(row, "done") || !strings.Contains(row, ten.ID) {
		t.Fatalf("audit entry: %s", row)
	}
	// Enabled now, it is no longer the operator's to recover.
	if r := v.Post(redeliver, url.Values{"confirm": {"yes"}}, true); r.Status != http.StatusNotFound {
		t.Fatalf("redeliver of an enabled endpoint: %d", r.Status)
	}
}

// TestOperatorConsole_ListsStuckRelayerTransactions: a relayer nonce unmined for more than ten
// minutes is listed with its replacements' count and newest hash; a recent one is not. The
// rows belong to a chain no adapter of this service serves, so no fee-bump pass touches them.
func TestOperatorConsole_ListsStuckRelayerTransactions(t *testing.T) {
	t.Parallel()
	const chainID = 990001
	// An address and hashes of this run's own, so a second run (go test -count=2) inserts anew.
	salt := fmt.Sprintf("%016x", time.Now().UnixNano())
	address := "0x000000000000000000000000" + salt
	hash := func(b string) string { return "0x" + salt + strings.Repeat(b, 24) }
	insertRelayerTx(t, chainID, address, 7, hash("aa"), 30*time.Minute)
	insertRelayerTx(t, chainID, address, 7, hash("bb"), 20*time.Minute)
	insertRelayerTx(t, chainID, address, 8, hash("cc"), time.Minute)

	v := env().ConsoleVisitor(t)
	v.OperatorSignIn()
	row := v.OperatorRow("operator-relayer", address)
	if !strings.Contains(row, ">7<") || !strings.Contains(row, ">2<") || !strings.Contains(row, hash("bb")[2:]) {
		t.Fatalf("stuck relayer row: %s", row)
	}
	if strings.Contains(v.Get("/console/operator").Body, hash("cc")[2:]) {
		t.Fatal("a transaction sent a minute ago is listed as stuck")
	}
}

// insertRelayerTx records a relayer transaction sent age ago and not settled, as the chain
// adapter's transaction log would.
func insertRelayerTx(t *testing.T, chainID int64, address string, nonce int64, hash string, age time.Duration) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	_, err = conn.Exec(ctx, `INSERT INTO relayer_transactions (chain_id, address, nonce, tx_hash, to_address, value_wei, data, gas,
		gas_fee_cap, gas_tip_cap, sent_at) VALUES ($1, $2, $3, $4, NULL, 0, '\x', 21000, 1, 1, now() - make_interval(secs => $5))`,
		chainID, address, nonce, hash, age.Seconds())
	if err != nil {
		t.Fatal(err)
	}
}
