package crash

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/adapters/identity"
	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/test/testdb"
)

const usd = int64(1_000_000)

// TestCrash_PayoutSubmittedBeforeItsRecord: the service is killed right after the payout
// provider accepted a submission and before PROVIDER_SUBMITTED was recorded. Started again, the
// stuck submission job is retried with the same idempotency key: the provider answers the payout
// it already holds (one payout, not two), the payment is delivered, the sender is debited once,
// the client's retried create replays the same payment, and `corridor check` passes.
func TestCrash_PayoutSubmittedBeforeItsRecord(t *testing.T) {
	t.Parallel()
	url, bin, first, env := crashSetup(t, kernel.CrashPayoutSubmitted, false)
	sender, recipient, phone := offrampParties(t, env)
	create := sender.Root.With("Idempotency-Key", "crash-pay-"+sender.ID)
	body := map[string]any{"phone": phone, "amountUsd": "7"}
	payID := create.Post("/v1/offramp/payments", body).Expect(t, 201).JSON(t)["paymentId"].(string)
	selectFirstRoute(t, recipient, payID)
	// The submission job may kill the process before the confirmation's answer is read.
	go recipient.Root.PostIgnoringAnswer("/v1/offramp/payments/"+payID+"/confirm", `{}`)

	first.waitKilled(t)
	conn := dbConn(t, url)
	if n := count(t, conn, `SELECT count(*) FROM payout_mock_transfers`); n != 1 {
		t.Fatalf("the provider holds %d payouts at the crash, want the 1 it accepted", n)
	}
	if status := text(t, conn, `SELECT status FROM offramp_payments WHERE id = $1`, payID); status != "FUNDS_LOCKED" {
		t.Fatalf("at the crash the payment is %s, want FUNDS_LOCKED (the submission not recorded)", status)
	}

	second := startService(t, bin, url, "")
	env.BaseURL = second.base
	again := create.Post("/v1/offramp/payments", body).Expect(t, 201)
	if again.Header.Get("Idempotent-Replayed") != "true" || again.JSON(t)["paymentId"] != payID {
		t.Fatalf("the client's retry after the crash: %s %s", again.Header.Get("Idempotent-Replayed"), again.Body)
	}
	waitDelivered(t, sender.Root, payID)
	if n := count(t, conn, `SELECT count(*) FROM payout_mock_transfers`); n != 1 {
		t.Fatalf("the provider holds %d payouts after the restart, want 1: the retry paid again", n)
	}
	harness.ExpectServiceBalance(t, sender.Root, 43*usd, 0)
	if out, code := runCheck(t, bin, url); code != 0 || !strings.Contains(out, "check OK") {
		t.Fatalf("corridor check after the crash: exit %d\n%s", code, out)
	}
}

// waitDelivered polls the payment until DELIVERED. The bound is longer than the harness's: the
// killed process's job is retried once the new process notices the dead worker (its heartbeat
// 10 s stale, or River's stuck-job rescue at this package's 3 s, whichever runs first).
func waitDelivered(t *testing.T, c *harness.Client, id string) {
	t.Helper()
	afterRestart(t, "payment "+id+" DELIVERED after the restart", func() map[string]any {
		return c.Get("/v1/offramp/payments/"+id).Expect(t, 200).JSON(t)
	}, func(p map[string]any) bool { return p["status"] == "DELIVERED" })
}

// crashEnv is the harness's view of a service started by this package at base over the
// database at url: sessions signed with the harness's secret.
// crashSetup starts one crash test: a database of its own, the crash binary and a first service
// that dies at crashPoint (with the shipped stuck-job rescue when shipped), with a client
// environment on it.
func crashSetup(t *testing.T, crashPoint string, shipped bool) (url, bin string, first *service, env *harness.Env) {
	t.Helper()
	url = testdb.NewDatabase(context.Background(), t)
	bin = buildCrashBinary(t)
	if shipped {
		first = startShipped(t, bin, url, crashPoint)
	} else {
		first = startService(t, bin, url, crashPoint)
	}
	return url, bin, first, crashEnv(t, first.base, url)
}

func crashEnv(t *testing.T, base, url string) *harness.Env {
	t.Helper()
	idp, err := identity.NewSandbox(harness.SessionSecret)
	if err != nil {
		t.Fatal(err)
	}
	return &harness.Env{BaseURL: base, DatabaseURL: url, Issuer: idp}
}

// offrampParties are the two tenants of an off-ramp payment: a sender with 50 USD on its
// service balance, and a recipient with an ACTIVE credential, a verified phone (returned) and a
// payout destination.
func offrampParties(t *testing.T, env *harness.Env) (sender, recipient *harness.Tenant, phone string) {
	t.Helper()
	sender, recipient = env.NewTenant(t), env.NewTenant(t)
	sender.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "50"}).Expect(t, 201)
	phone = verifiedRecipient(t, recipient.Root)
	recipient.Root.Post("/v1/payout-destinations", map[string]any{"type": "APP_WALLET_A", "email": "recipient@example.com"}).Expect(t, 201)
	return sender, recipient, phone
}

// selectFirstRoute has the recipient select the payment's first route and returns its quote id.
func selectFirstRoute(t *testing.T, recipient *harness.Tenant, payID string) any {
	t.Helper()
	routes := recipient.Root.Get("/v1/offramp/payments/"+payID+"/routes").Expect(t, 200).JSON(t)["routes"].([]any)
	quote := routes[0].(map[string]any)["routeId"]
	recipient.Root.Post("/v1/offramp/payments/"+payID+"/select-route", map[string]any{"routeQuoteId": quote}).Expect(t, 200)
	return quote
}

// verifiedRecipient gives the tenant an ACTIVE credential and a verified phone alias.
func verifiedRecipient(t *testing.T, c *harness.Client) string {
	t.Helper()
	c.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	phone := fmt.Sprintf("+1415555%04d", len(t.Name())%10_000)
	alias := c.Post("/v1/phone-aliases", map[string]any{"phone": phone}).Expect(t, 201).JSON(t)
	code := harness.SMSCode(t, harness.SMSBody(t, c, "phone_alias_verification", nil))
	c.Post("/v1/phone-aliases/"+alias["id"].(string)+"/verify", map[string]any{"code": code}).Expect(t, 200)
	return phone
}

func runCheck(t *testing.T, bin, url string, extra ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, "check")
	cmd.Env = append(serviceEnv(url, "127.0.0.1:0", ""), extra...)
	out, err := cmd.CombinedOutput()
	if exit, ok := err.(*exec.ExitError); ok {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// dbConn connects to the crash test's database for its checks, closed when the test ends.
func dbConn(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

func count(t *testing.T, conn *pgx.Conn, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func text(t *testing.T, conn *pgx.Conn, sql string, args ...any) string {
	t.Helper()
	var s string
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}
