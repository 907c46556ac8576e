package crash

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/test/harness"
)

// TestCrash_SMSSentBeforeItsJobCompleted: the service is killed right after the SMS gateway
// took an alias's verification code and before the outbox job completed. Started again, the
// stuck job is retried with the same idempotency key: the gateway keeps one text, and its code
// verifies the alias.
func TestCrash_SMSSentBeforeItsJobCompleted(t *testing.T) {
	t.Parallel()
	url, bin, first, env := crashSetup(t, kernel.CrashSMSSent, false)
	ten := env.NewTenant(t)
	// The job may kill the process before the answer is read: send it without expecting one,
	// and find the alias in the database.
	go ten.Root.PostIgnoringAnswer("/v1/phone-aliases", `{"phone":"+14155550177"}`)
	first.waitKilled(t)
	conn := dbConn(t, url)
	aliasID := text(t, conn, `SELECT id FROM phone_aliases WHERE tenant_id = $1`, ten.ID)
	if n := count(t, conn, `SELECT count(*) FROM sms_messages`); n != 1 {
		t.Fatalf("the gateway holds %d texts at the crash, want the 1 it took", n)
	}

	second := startService(t, bin, url, "")
	env.BaseURL = second.base
	deadline := time.Now().Add(3 * time.Minute)
	for count(t, conn, `SELECT count(*) FROM river_job WHERE kind = 'sms.send' AND state = 'completed'`) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the text's outbox job never completed after the restart")
		}
		time.Sleep(200 * time.Millisecond)
	}
	msgs := ten.Root.Get("/v1/sandbox/sms-messages").Expect(t, 200).JSON(t)
	if msgs["total"] != float64(1) {
		t.Fatalf("after the restart the outbox holds %v, want the one text", msgs)
	}
	code := harness.SMSCode(t, msgs["messages"].([]any)[0].(map[string]any)["body"].(string))
	ten.Root.Post("/v1/phone-aliases/"+aliasID+"/verify", map[string]any{"code": code}).Expect(t, 200)
}
