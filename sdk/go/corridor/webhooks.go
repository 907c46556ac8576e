package corridor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// WebhookSignatureHeader is the header a webhook delivery carries its signature in.
const WebhookSignatureHeader = "Corridor-Signature"

// WebhookTolerance is how far a delivery's signed time may be from the receiver's clock before
// VerifyWebhook refuses it as a possible replay.
const WebhookTolerance = 5 * time.Minute

// Errors of VerifyWebhook.
var (
	// ErrWebhookSignature: the header is missing or malformed, or no secret signed the body.
	ErrWebhookSignature = errors.New("corridor: the webhook's Corridor-Signature does not match its body")
	// ErrWebhookTimestamp: the signature's time is more than WebhookTolerance from now.
	ErrWebhookTimestamp = errors.New("corridor: the webhook's signed time is too far from now (a replay?)")
)

// VerifyWebhook checks a webhook delivery: header is its Corridor-Signature
// ("t=<unix seconds>,v1=<hex HMAC-SHA256>"), body the raw request body exactly as received
// (before any JSON decoding), and secrets the endpoint's signing secrets (the whole whsec_…
// string; give the old and the new one while a rotation settles). It answers nil when one of the
// secrets signed "<t>.<body>" and t is within WebhookTolerance of now; compare bodies only after
// it, and deduplicate on the event's id, since a delivery may come more than once.
//
//	sig := r.Header.Get(corridor.WebhookSignatureHeader)
//	if err := corridor.VerifyWebhook(body, sig, time.Now(), secret); err != nil { … 400 … }
func VerifyWebhook(body []byte, header string, now time.Time, secrets ...string) error {
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		switch {
		case !ok:
		case k == "t":
			ts = v
		case k == "v1":
			if sig, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, sig)
			}
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrWebhookSignature
	}
	for _, secret := range secrets {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(ts + "."))
		mac.Write(body)
		want := mac.Sum(nil)
		for _, sig := range sigs {
			if hmac.Equal(sig, want) {
				if now.Sub(time.Unix(unix, 0)).Abs() > WebhookTolerance {
					return ErrWebhookTimestamp
				}
				return nil
			}
		}
	}
	return ErrWebhookSignature
}
