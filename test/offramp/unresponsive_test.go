package offramp

import (
	"fmt"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
)

// TestOfframp_PollsExhausted: a provider that never gives a final answer within the poll
// window (the mock's "05": pending for a hundred reports) leaves the payment visibly waiting,
// ACTION_REQUIRED with hold PROVIDER_UNRESPONSIVE, for sender and recipient alike, with the money
// still at the provider; polling stops; the provider's later webhook moves it on and it is
// delivered as any other payment.
func TestOfframp_PollsExhausted(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, walletA)
	id := p.create(t, "10.000005", nil).Expect(t, 201).JSON(t)["paymentId"].(string)
	selectAndConfirm(t, p, id)
	ref := providerReference(t, id)

	// The harness's poll window is 5 s at a poll every 150 ms: fewer polls than the script's
	// pending reports.
	m := waitStatus(t, p.sender.Root, id, "ACTION_REQUIRED")
	if h, _ := m["holdReasons"].([]any); len(h) != 1 || h[0] != "PROVIDER_UNRESPONSIVE" || m["failureReason"] != nil || m["deliveredAt"] != nil {
		t.Fatalf("given up on: %v", m)
	}
	if r := get(t, p.recipient.Root, id); r["status"] != "ACTION_REQUIRED" {
		t.Fatalf("recipient's view %v", r)
	}
	// The money stays at the provider: the sender is not refunded, nothing is delivered.
	harness.ExpectServiceBalance(t, p.sender.Root, 20*usd-10_000_005, 0)
	if l := harness.PaymentLedger(t, env().DatabaseURL, id); l["world:APP_WALLET_A"] != 0 {
		t.Fatalf("ledger of a payment given up on %v", l)
	}
	// Polling has stopped: the status holds.
	time.Sleep(600 * time.Millisecond)
	if g := get(t, p.sender.Root, id); g["status"] != "ACTION_REQUIRED" {
		t.Fatalf("still polled after giving up: %v", g)
	}

	// The provider's next report (still pending) takes it back to PROVIDER_PROCESSING, the hold
	// cleared.
	now := time.Now()
	env().ProviderWebhook(t, "wallet_a", []byte(fmt.Sprintf(`{"eventId":"evt_%s_resume","reference":%q}`, id, ref)), harness.WebhookSecret, now).Expect(t, 200)
	// (The restarted polls cannot run out again before this read: their window is 5 s.)
	g := get(t, p.sender.Root, id)
	if g["status"] != "PROVIDER_PROCESSING" && g["status"] != "DELIVERED" {
		t.Fatalf("after the provider's webhook %v", g)
	}
	if h, _ := g["holdReasons"].([]any); len(h) != 0 {
		t.Fatalf("hold kept after resuming %v", g)
	}
	// Further reports (webhooks, and the polls the resumption restarted) finish it.
	for i := 0; get(t, p.sender.Root, id)["status"] != "DELIVERED"; i++ {
		if i > 300 {
			t.Fatalf("never delivered: %v", get(t, p.sender.Root, id))
		}
		env().ProviderWebhook(t, "wallet_a", []byte(fmt.Sprintf(`{"eventId":"evt_%s_%d","reference":%q}`, id, i, ref)), harness.WebhookSecret, now).Expect(t, 200)
		sleep()
	}
	final := get(t, p.sender.Root, id)
	if h, _ := final["holdReasons"].([]any); len(h) != 0 || final["deliveredAt"] == nil {
		t.Fatalf("delivered %v", final)
	}
	if l := harness.PaymentLedger(t, env().DatabaseURL, id); l["world:APP_WALLET_A"] != 9_900_000 {
		t.Fatalf("ledger after delivery %v", l)
	}
	trialBalanceZero(t, p.sender, p.recipient)
}
