// Package webhook is a partner's webhook endpoint and the deliveries of events to it
// (docs/decisions/webhooks.md): each delivery is signed with the endpoint's secret, retried with backoff
// for a bounded window, and keeps the record of every attempt.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/event"
)

// Codes of the webhook resources.
const (
	CodeEndpointNotFound core.Code = "WEBHOOK_ENDPOINT_NOT_FOUND"
	CodeDeliveryNotFound core.Code = "WEBHOOK_DELIVERY_NOT_FOUND"
)

// Not-found errors: another tenant's object answers these.
var (
	ErrEndpointNotFound = core.NotFound(CodeEndpointNotFound, "webhook endpoint")
	ErrDeliveryNotFound = core.NotFound(CodeDeliveryNotFound, "webhook delivery")
)

// Bounds.
const (
	MaxURLLength     = 2048
	MaxEventTypes    = 128 // room for every documented type (core/event) listed one by one, and more to come
	MaxEndpoints     = 16  // per tenant and environment
	SecretPrefix     = "whsec_"
	SignatureHeader  = "Corridor-Signature"
	DescriptionLimit = 256
)

// Endpoint is a URL that receives the tenant's events of the listed types (all types when
// EventTypes is empty). The signing secret is stored sealed (SealedSecret, by the service
// cipher); the capability opens it to sign.
type Endpoint struct {
	ID           string
	TenantID     string
	Environment  core.Environment
	URL          string
	EventTypes   []string
	Enabled      bool
	SealedSecret []byte
	// FailingSince is when the endpoint's current run of failed attempts began (nil: its last
	// attempt succeeded, or none was made). A run that lasts the retry window disables it.
	FailingSince   *time.Time
	DisabledReason string
	// EnabledAt is when the endpoint was registered or last re-enabled: it receives the events
	// created from then on (Receives).
	EnabledAt time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Receives reports whether the fan-out delivers the event of type typ created at createdAt to
// the endpoint: it subscribes to the type, and the event was created at or after the endpoint
// was registered or last re-enabled. An event recorded before then is not delivered to it, however
// long its fan-out waited. Whether the endpoint is enabled is the caller's to check.
func (e Endpoint) Receives(typ string, createdAt time.Time) bool {
	return e.Wants(typ) && !createdAt.Before(e.EnabledAt)
}

// NewSecret returns a fresh signing secret.
func NewSecret() string { return SecretPrefix + core.RandomToken(24) }

// Wants reports whether the endpoint subscribes to events of type typ.
func (e Endpoint) Wants(typ string) bool {
	if len(e.EventTypes) == 0 {
		return true
	}
	for _, t := range e.EventTypes {
		if t == typ || t == "*" {
			return true
		}
	}
	return false
}

// CheckURL refuses anything but an absolute http(s) URL with a host and no credentials. Where
// it may point (loopback, private ranges) is checked at delivery time, on the resolved
// addresses.
func CheckURL(raw string) error {
	if len(raw) == 0 || len(raw) > MaxURLLength {
		return core.Invalid("url", fmt.Sprintf("an http(s) URL of at most %d characters", MaxURLLength))
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Hostname() == "" {
		return core.Invalid("url", "an absolute http or https URL")
	}
	if u.User != nil {
		return core.Invalid("url", "credentials in the URL are not accepted")
	}
	if u.Fragment != "" {
		return core.Invalid("url", "a fragment is not accepted")
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return core.Invalid("url", "the port must be from 1 to 65535")
		}
	}
	return nil
}

// CheckEventTypes validates a subscription list.
func CheckEventTypes(types []string) error {
	if len(types) > MaxEventTypes {
		return core.Invalid("events", fmt.Sprintf("at most %d event types", MaxEventTypes))
	}
	for _, t := range types {
		if t != "*" && !event.ValidType(t) {
			return core.Invalid("events", fmt.Sprintf("%q is not an event type (lower-case, dotted, e.g. safe_payment.completed)", t))
		}
	}
	return nil
}

// Validate checks an endpoint before it is stored and after it is read back.
func (e Endpoint) Validate() error {
	switch {
	case !core.HasPrefix(e.ID, core.PrefixWebhookEndpoint):
		return fmt.Errorf("webhook endpoint: id %q", e.ID)
	case e.TenantID == "" || !e.Environment.Valid():
		return fmt.Errorf("webhook endpoint %s: tenant and environment are required", e.ID)
	case len(e.SealedSecret) == 0:
		return fmt.Errorf("webhook endpoint %s: no secret", e.ID)
	}
	if err := CheckURL(e.URL); err != nil {
		return fmt.Errorf("webhook endpoint %s: %w", e.ID, err)
	}
	return CheckEventTypes(e.EventTypes)
}

// DeliveryStatus is where a delivery stands.
type DeliveryStatus string

const (
	// DeliveryPending: not yet acknowledged; an attempt is scheduled.
	DeliveryPending DeliveryStatus = "PENDING"
	// DeliverySucceeded: the receiver answered 2xx.
	DeliverySucceeded DeliveryStatus = "SUCCEEDED"
	// DeliveryFailed: the retry window ended (or the endpoint was disabled or deleted) without
	// a 2xx.
	DeliveryFailed DeliveryStatus = "FAILED"
)

// Delivery is one event sent to one endpoint, across all its attempts.
type Delivery struct {
	ID          string
	TenantID    string
	Environment core.Environment
	EndpointID  string
	EventID     string
	EventType   string
	Status      DeliveryStatus
	Attempts    int
	// RedeliveryOf is the delivery a partner asked to redeliver ("" for a first delivery).
	RedeliveryOf  string
	NextAttemptAt *time.Time
	// AttemptStartedAt is set while an attempt is in flight: written before the request is
	// sent, cleared with the attempt's record. Found set when the next attempt starts, it
	// means the previous one was cut off (the process died, or its record could not be
	// written) and its outcome is unknown: the receiver may or may not have the event.
	AttemptStartedAt *time.Time
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// Attempt outcomes: a 2xx, anything else that came back or failed, or no record of how the
// attempt ended (it was cut off).
const (
	OutcomeSucceeded = "SUCCEEDED"
	OutcomeFailed    = "FAILED"
	OutcomeUnknown   = "UNKNOWN"
)

// CutOffError is the error recorded for an attempt whose outcome is unknown.
const CutOffError = "cut off before its outcome was recorded (the process stopped); the receiver may have the event"

// Attempt is one HTTP request of a delivery.
type Attempt struct {
	// TenantID is the delivery's tenant: attempts are stored with it (docs/scaling.md).
	TenantID   string
	DeliveryID string
	Number     int
	At         time.Time
	// StatusCode is the receiver's HTTP status (0 when no response came back).
	StatusCode int
	// Error says why an attempt failed without a status (timeout, refused address).
	Error      string
	DurationMs int64
	Succeeded  bool
	// Unknown marks an attempt cut off before its outcome was recorded (CutOffError).
	Unknown bool
}

// Outcome names how the attempt ended: OutcomeSucceeded, OutcomeFailed or OutcomeUnknown.
func (a Attempt) Outcome() string {
	switch {
	case a.Succeeded:
		return OutcomeSucceeded
	case a.Unknown:
		return OutcomeUnknown
	default:
		return OutcomeFailed
	}
}

// Sign returns the Corridor-Signature header value for body sent at t:
// "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<unix seconds>.<body>" keyed with the secret>".
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte("."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Verify checks a Corridor-Signature header against body with the secret, refusing a
// timestamp further than tolerance from now. It is the recipe docs/webhooks.md documents.
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) bool {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	at := time.Unix(unix, 0)
	if d := now.Sub(at); d > tolerance || d < -tolerance {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, s := range sigs {
		got, err := hex.DecodeString(s)
		if err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}
