package offramp

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/app/offramps"
	"github.com/corridorhq/corridor/test/harness"
)

// providerReference is what the provider knows about a payment (a test plays the provider).
func providerReference(t *testing.T, id string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var ref *string
	harness.Eventually(t, "submitted payment "+id+" to its provider", func() bool {
		if err := conn.QueryRow(ctx, "SELECT provider_reference FROM offramp_payments WHERE id = $1", id).Scan(&ref); err != nil {
			t.Fatal(err)
		}
		return ref != nil
	})
	return *ref
}

func TestOfframp_ProviderWebhooks(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, walletA)
	id := p.create(t, "10", nil).Expect(t, 201).JSON(t)["paymentId"].(string)
	selectAndConfirm(t, p, id)
	ref := providerReference(t, id)
	now := time.Now()
	body := []byte(fmt.Sprintf(`{"eventId":"evt_%s_1","reference":%q}`, id, ref))

	// Bad signatures, stale timestamps, unknown providers: 401, nothing happens.
	env().ProviderWebhook(t, "wallet_a", body, "wrong-secret", now).ExpectError(t, 401, "UNAUTHENTICATED")
	env().ProviderWebhook(t, "wallet_a", body, harness.WebhookSecret, now.Add(-time.Hour)).ExpectError(t, 401, "UNAUTHENTICATED")
	env().ProviderWebhook(t, "internal", body, harness.WebhookSecret, now).ExpectError(t, 401, "UNAUTHENTICATED")
	env().ProviderWebhook(t, "nope", body, harness.WebhookSecret, now).ExpectError(t, 401, "UNAUTHENTICATED")
	tampered := bytes.Replace(body, []byte("_1"), []byte("_2"), 1)
	stamp := strconv.FormatInt(now.Unix(), 10)
	sig := hex.EncodeToString(offramps.SignWebhook([]byte(harness.WebhookSecret), stamp, body))
	r := env().Client(t).With(offramps.WebhookTimestampHeader, stamp).With(offramps.WebhookSignatureHeader, sig).
		Do("POST", "/v1/providers/wallet_a/webhooks", tampered)
	r.ExpectError(t, 401, "UNAUTHENTICATED")

	// A signed webhook moves the provider a step; its replay is harmless.
	if m := env().ProviderWebhook(t, "wallet_a", body, harness.WebhookSecret, now).Expect(t, 200).JSON(t); m["received"] != true || m["duplicate"] != false {
		t.Fatalf("webhook %v", m)
	}
	if m := env().ProviderWebhook(t, "wallet_a", body, harness.WebhookSecret, now).Expect(t, 200).JSON(t); m["duplicate"] != true {
		t.Fatalf("replay %v", m)
	}
	for i := 2; get(t, p.sender.Root, id)["status"] != "DELIVERED"; i++ {
		if i > 200 {
			t.Fatal("never delivered")
		}
		env().ProviderWebhook(t, "wallet_a", []byte(fmt.Sprintf(`{"eventId":"evt_%s_%d","reference":%q}`, id, i, ref)), harness.WebhookSecret, now).Expect(t, 200)
		sleep()
	}
	ledger := harness.PaymentLedger(t, env().DatabaseURL, id)
	// Late and duplicate webhooks after DELIVERED change nothing.
	for i := 0; i < 3; i++ {
		env().ProviderWebhook(t, "wallet_a", []byte(fmt.Sprintf(`{"eventId":"evt_%s_late_%d","reference":%q}`, id, i, ref)), harness.WebhookSecret, now).Expect(t, 200)
	}
	env().ProviderWebhook(t, "wallet_a", body, harness.WebhookSecret, now).Expect(t, 200)
	if g := get(t, p.sender.Root, id); g["status"] != "DELIVERED" {
		t.Fatalf("after late webhooks %v", g)
	}
	if after := harness.PaymentLedger(t, env().DatabaseURL, id); fmt.Sprint(after) != fmt.Sprint(ledger) {
		t.Fatalf("ledger moved after DELIVERED: %v then %v", ledger, after)
	}
	// A webhook for a reference the service does not know is acknowledged and ignored.
	env().ProviderWebhook(t, "wallet_a", []byte(`{"eventId":"evt_unknown_ref","reference":"mock_nope"}`), harness.WebhookSecret, now).Expect(t, 200)
	env().ProviderWebhook(t, "wallet_a", []byte(`{"reference":"x"}`), harness.WebhookSecret, now).ExpectError(t, 400, "VALIDATION_FAILED")
	trialBalanceZero(t, p.sender, p.recipient)
}

func TestOfframp_SandboxProviderStep(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, walletA)
	id := p.create(t, "10.000003", nil).Expect(t, 201).JSON(t)["paymentId"].(string)
	step := "/v1/sandbox/offramp/payments/" + id + "/provider-step"
	p.sender.Root.Post(step, nil).ExpectError(t, 409, "INVALID_STATE")
	env().NewTenant(t).Root.Post(step, nil).ExpectError(t, 404, "OFFRAMP_PAYMENT_NOT_FOUND")
	selectAndConfirm(t, p, id)
	providerReference(t, id)
	for i := 0; ; i++ {
		m := p.sender.Root.Post(step, nil).Expect(t, 200).JSON(t)
		if m["status"] == "REFUNDED" {
			break
		}
		if i > 200 {
			t.Fatalf("never refunded: %v", m)
		}
		sleep()
	}
	harness.ExpectServiceBalance(t, p.sender.Root, 20*usd, 0)
	if l := harness.PaymentLedger(t, env().DatabaseURL, id); len(l) != 0 {
		t.Fatalf("refunded payment ledger %v", l)
	}
}

// TestOfframp_NoPhoneInLogs runs a payment on a server whose logs are captured and checks the
// full number never appears.
func TestOfframp_NoPhoneInLogs(t *testing.T) {
	var buf safeBuffer
	srv := harness.NewServerWithLog(t, &buf)
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	c := srv.Client(t).WithKey(p.sender.RootKey)
	m := c.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "1"}).Expect(t, 201).JSON(t)
	c.Get("/v1/offramp/payments/"+m["paymentId"].(string)).Expect(t, 200)
	c.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "1", "fundingMode": "SAFE_PROPOSAL"}).Expect(t, 400)
	national := strings.TrimPrefix(p.phone, "+1")
	if buf.Len() == 0 || strings.Contains(buf.String(), national) {
		t.Fatalf("logs (%d bytes) contain the number or nothing was logged", buf.Len())
	}
}

type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *safeBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}
