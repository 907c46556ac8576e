package crash

import (
	"context"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/test/harness"
)

// shippedDefaults drops the package's quick stuck-job rescue from a run's environment, so the
// service runs with what ships (River's hour): only the worker heartbeat can bring the job back.
func shippedDefaults(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "JOBS_RESCUE_STUCK_AFTER=") {
			out = append(out, kv)
		}
	}
	return out
}

// TestCrash_SubmissionCutOffDeliversOnItsConfirmedQuote: the service is killed by SIGKILL inside
// the submission job of a confirmed payment (after the provider accepted it, before its record),
// under the shipped defaults (no stuck-job setting). Started again on another address (a new
// replica, so only the dead worker's stale heartbeat reveals the orphaned job), the payment is
// DELIVERED on the quote the recipient confirmed once the new replica's heartbeat round has
// rescued the dead worker's job (not River's hour): no requote, no second
// AWAITING_RECIPIENT_CONFIRMATION, one payout at the provider.
func TestCrash_SubmissionCutOffDeliversOnItsConfirmedQuote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url, bin, first, env := crashSetup(t, kernel.CrashPayoutSubmitted, true)
	sender, recipient, phone := offrampParties(t, env)
	payID := sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": phone, "amountUsd": "7"}).Expect(t, 201).JSON(t)["paymentId"].(string)
	confirmedQuote := selectFirstRoute(t, recipient, payID)
	go recipient.Root.PostIgnoringAnswer("/v1/offramp/payments/"+payID+"/confirm", `{}`)
	first.waitKilled(t)

	conn := dbConn(t, url)
	second := startShipped(t, bin, url, "")
	env.BaseURL = second.base
	// The payment must not wait for River's own stuck-job rescue (an hour): the event that shows
	// the shipped defaults bring it back is the new replica's liveness round finding the dead
	// worker's heartbeat stale and putting its submission job back to work, which records why
	// in the job's errors. Awaited as events, not against a clock of the test's own.
	harness.Eventually(t, "the dead worker's submission job rescued by the heartbeat", func() bool {
		return count(t, conn, `SELECT count(*) FROM river_job WHERE kind = 'offramp.submit' AND args->>'paymentId' = $1
			AND EXISTS (SELECT 1 FROM unnest(errors) e WHERE e->>'error' LIKE 'the worker running this job died (%); rescued')`, payID) == 1
	})
	harness.WaitOfframpPayment(t, sender.Root, payID, "DELIVERED")
	var selected string
	if err := conn.QueryRow(ctx, `SELECT selected_quote_id FROM offramp_payments WHERE id = $1`, payID).Scan(&selected); err != nil {
		t.Fatal(err)
	}
	if selected != confirmedQuote {
		t.Fatalf("delivered on quote %s, want the confirmed %v: the payment was requoted", selected, confirmedQuote)
	}
	if n := count(t, conn, `SELECT count(*) FROM events WHERE resource_id = $1 AND type LIKE '%awaiting_recipient_confirmation'`, payID); n != 1 {
		t.Fatalf("%d AWAITING_RECIPIENT_CONFIRMATION events, want 1: the recipient was asked to consent again", n)
	}
	if n := count(t, conn, `SELECT count(*) FROM payout_mock_transfers`); n != 1 {
		t.Fatalf("the provider holds %d payouts, want 1", n)
	}
}

// startShipped starts the service with the shipped stuck-job rescue.
func startShipped(t *testing.T, bin, url, crashPoint string) *service {
	t.Helper()
	return startServiceWith(t, bin, func(addr string) []string { return shippedDefaults(serviceEnv(url, addr, crashPoint)) })
}
