package offramps

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
)

// Webhook headers: the unix-seconds timestamp and the hex HMAC-SHA256 signature.
const (
	WebhookTimestampHeader = "X-Corridor-Webhook-Timestamp"
	WebhookSignatureHeader = "X-Corridor-Webhook-Signature"
)

// webhookTolerance bounds how far a webhook's timestamp may be from now.
const webhookTolerance = 5 * time.Minute

// ProviderWebhook is one signed provider notification: the raw body and its headers.
type ProviderWebhook struct {
	Provider  string
	Timestamp string // unix seconds
	Signature string // hex HMAC-SHA256 over "<timestamp>.<raw body>" under the provider's secret
	Body      []byte
}

// webhookBody is what a provider's webhook names: its event id and the payout reference.
type webhookBody struct {
	EventID   string `json:"eventId"`
	Reference string `json:"reference"`
}

// WebhookResult says what a webhook did.
type WebhookResult struct {
	Duplicate bool
	PaymentID string
}

// HandleProviderWebhook checks the signature and the timestamp (else UNAUTHENTICATED), drops
// a replayed event id, and treats the webhook as a trigger: the payment's provider is polled
// for the truth (the mock moves one step) and that is applied. Order does not matter.
func (s *Service) HandleProviderWebhook(ctx context.Context, w ProviderWebhook) (WebhookResult, error) {
	unauth := core.E(core.CodeUnauthenticated, "the webhook signature or timestamp is not valid")
	rail, ok := s.payouts.provider(w.Provider)
	if !ok || len(rail.WebhookSecret) == 0 {
		return WebhookResult{}, unauth
	}
	ts, err := strconv.ParseInt(strings.TrimSpace(w.Timestamp), 10, 64)
	if err != nil {
		return WebhookResult{}, unauth
	}
	now := s.clock.Now()
	if d := now.Sub(time.Unix(ts, 0)); d > webhookTolerance || d < -webhookTolerance {
		return WebhookResult{}, unauth
	}
	sig, err := hex.DecodeString(strings.TrimSpace(w.Signature))
	if err != nil || !hmac.Equal(sig, SignWebhook(rail.WebhookSecret, w.Timestamp, w.Body)) {
		return WebhookResult{}, unauth
	}
	var body webhookBody
	if err := json.Unmarshal(w.Body, &body); err != nil || body.EventID == "" || body.Reference == "" {
		return WebhookResult{}, core.Invalid("body", "must be JSON with eventId and reference")
	}
	var res WebhookResult
	fresh := false
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		res = WebhookResult{} // a retried run starts afresh
		var err error
		fresh, err = tx.Offramp().RecordProviderEvent(ctx, w.Provider, body.EventID, now)
		if err != nil || !fresh {
			return err
		}
		pay, err := tx.Offramp().LockPaymentByProviderReference(ctx, w.Provider, body.Reference)
		if core.HasCode(err, offramp.CodePaymentNotFound) {
			return nil
		}
		res.PaymentID = pay.ID
		return err
	})
	if err != nil {
		return res, err
	}
	res.Duplicate = !fresh
	if !fresh || res.PaymentID == "" {
		return res, nil
	}
	_, err = newPayoutJobs(s).PollPayment(ctx, res.PaymentID)
	return res, err
}

// SignWebhook is the provider webhook signature: HMAC-SHA256 over "<timestamp>.<raw body>".
func SignWebhook(secret []byte, timestamp string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(timestamp))
	m.Write([]byte("."))
	m.Write(body)
	return m.Sum(nil)
}
