package crash

import (
	"strings"
	"testing"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/test/harness"
)

// TestCrash_BetweenTheTenantLegs: a payment into another tenant's service balance is two
// ledger legs, the sender's committed with DELIVERED, the recipient's posted after it. The
// service is killed right between them: the payment is DELIVERED, the sender's leg is recorded
// and the recipient's is not (the recipient's balance has not risen). Started again, the job
// the sender's unit enqueued posts the recipient's leg, once: the recipient holds exactly the
// deliver amount, the sender exactly what it kept, and `corridor check` passes with its
// cross-tenant-legs line ok.
func TestCrash_BetweenTheTenantLegs(t *testing.T) {
	t.Parallel()
	url, bin, first, env := crashSetup(t, kernel.CrashBetweenTenantLegs, false)
	sender, recipient := env.NewTenant(t), env.NewTenant(t)
	sender.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "50"}).Expect(t, 201)
	phone := verifiedRecipient(t, recipient.Root)
	recipient.Root.Post("/v1/payout-destinations", map[string]any{"type": "SERVICE_BALANCE"}).Expect(t, 201)
	payID := sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": phone, "amountUsd": "7"}).Expect(t, 201).JSON(t)["paymentId"].(string)
	quote := selectFirstRoute(t, recipient, payID)
	// The poll job delivers and kills the process; the confirmation's answer may never come.
	go recipient.Root.PostIgnoringAnswer("/v1/offramp/payments/"+payID+"/confirm", `{}`)

	first.waitKilled(t)
	conn := dbConn(t, url)
	legs := `SELECT count(*) FROM ledger_transfers WHERE reference LIKE 'offramp:' || $1 || ':' || $2 || ':%'`
	if status := text(t, conn, `SELECT status FROM offramp_payments WHERE id = $1`, payID); status != "DELIVERED" {
		t.Fatalf("at the crash the payment is %s, want DELIVERED (the sender's leg committed)", status)
	}
	if s, r := count(t, conn, legs, payID, "deliver"), count(t, conn, legs, payID, "receive"); s != 1 || r != 0 {
		t.Fatalf("at the crash: %d sender legs and %d recipient legs, want 1 and 0", s, r)
	}
	deliver := int64(count(t, conn, `SELECT deliver_base_units FROM route_quotes WHERE id = $1`, quote))

	second := startService(t, bin, url, "")
	env.BaseURL = second.base
	afterRestart(t, "the recipient's balance holds the delivery", func() map[string]any {
		a, _ := harness.ServiceBalance(t, recipient.Root)
		return map[string]any{"available": a}
	}, func(m map[string]any) bool { return m["available"].(int64) == deliver })
	if r := count(t, conn, legs, payID, "receive"); r != 1 {
		t.Fatalf("%d recipient legs after the restart, want 1", r)
	}
	harness.ExpectServiceBalance(t, recipient.Root, deliver, 0)
	harness.ExpectServiceBalance(t, sender.Root, 43*usd, 0)
	out, code := runCheck(t, bin, url)
	if code != 0 || !strings.Contains(out, "check OK") || !strings.Contains(out, "ok      cross-tenant-legs") ||
		!strings.Contains(out, "ok      single-home-transfers") {
		t.Fatalf("corridor check after the crash: exit %d\n%s", code, out)
	}
}
