package http

import (
	"time"

	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/webhook"
)

type eventResponse struct {
	ID        string         `json:"id" oas:"required"`
	Type      string         `json:"type" oas:"required" description:"<resource>.<state reached>, e.g. safe_payment.completed"`
	Data      map[string]any `json:"data" oas:"required" description:"the resource's id, status and amount (USD) when it has one, and a few fields of its own"`
	CreatedAt time.Time      `json:"createdAt" oas:"required"`
}

type eventListResponse struct {
	Events []eventResponse `json:"events" oas:"required" description:"The events, newest first; the page asked for (skip/take)."`
	Total  int             `json:"total" oas:"required"`
}

func toEvent(e event.Event) eventResponse {
	return eventResponse{ID: e.ID, Type: e.Type, Data: e.Data, CreatedAt: e.CreatedAt}
}

// webhookEndpointRequest is the body of POST /v1/webhook-endpoints.
type webhookEndpointRequest struct {
	URL     string   `json:"url" oas:"required" description:"http(s); in LIVE never a loopback, private or link-local address"`
	Events  []string `json:"events,omitempty" description:"event types to receive (\"*\" or omitted: every type)"`
	Enabled *bool    `json:"enabled,omitempty" description:"default true"`
}

// webhookEndpointPatchRequest is the body of PATCH /v1/webhook-endpoints/{id}.
type webhookEndpointPatchRequest struct {
	URL          *string   `json:"url,omitempty"`
	Events       *[]string `json:"events,omitempty" description:"The event types to receive; empty or [*]: every type; absent: unchanged."`
	Enabled      *bool     `json:"enabled,omitempty" description:"true re-enables an endpoint disabled after failing, and clears its failure run"`
	RotateSecret bool      `json:"rotateSecret,omitempty" description:"replace the signing secret; the new one is in this answer only"`
}

type webhookEndpointResponse struct {
	ID             string     `json:"id" oas:"required"`
	URL            string     `json:"url" oas:"required"`
	Events         []string   `json:"events" oas:"required" description:"empty: every type"`
	Enabled        bool       `json:"enabled" oas:"required"`
	Secret         *string    `json:"secret" oas:"required,nullable" description:"whsec_…, shown when created or rotated only"`
	FailingSince   *time.Time `json:"failingSince" oas:"required,nullable"`
	DisabledReason *string    `json:"disabledReason" oas:"required,nullable"`
	CreatedAt      time.Time  `json:"createdAt" oas:"required"`
	UpdatedAt      time.Time  `json:"updatedAt" oas:"required"`
}

type webhookEndpointListResponse struct {
	Endpoints []webhookEndpointResponse `json:"endpoints" oas:"required"`
	Total     int                       `json:"total" oas:"required"`
}

func toWebhookEndpoint(e webhook.Endpoint, secret string) webhookEndpointResponse {
	events := e.EventTypes
	if events == nil {
		events = []string{}
	}
	return webhookEndpointResponse{ID: e.ID, URL: e.URL, Events: events, Enabled: e.Enabled, Secret: strPtr(secret),
		FailingSince: e.FailingSince, DisabledReason: strPtr(e.DisabledReason), CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
}

type webhookAttemptResponse struct {
	Number     int       `json:"number" oas:"required" description:"The attempt's number, from 1."`
	At         time.Time `json:"at" oas:"required" description:"When the attempt was made (RFC 3339, UTC)."`
	StatusCode *int      `json:"statusCode" oas:"required,nullable" description:"the receiver's status; null when no response came back"`
	Error      *string   `json:"error" oas:"required,nullable" description:"Why an attempt failed without an HTTP status (a timeout, a refused address); null when a response came back (statusCode holds its status)."`
	DurationMs int64     `json:"durationMs" oas:"required"`
	Succeeded  bool      `json:"succeeded" oas:"required"`
	Outcome    string    `json:"outcome" oas:"required,enum=SUCCEEDED|FAILED|UNKNOWN" description:"How the attempt ended: SUCCEEDED (a 2xx), FAILED (another status, or no answer), or UNKNOWN: the attempt was cut off before its outcome was recorded (the service stopped mid-attempt), so the receiver may or may not have the event; the delivery goes on."`
}

type webhookDeliveryResponse struct {
	ID            string                   `json:"id" oas:"required"`
	EndpointID    string                   `json:"endpointId" oas:"required"`
	EventID       string                   `json:"eventId" oas:"required"`
	EventType     string                   `json:"eventType" oas:"required"`
	Status        string                   `json:"status" oas:"required,enum=PENDING|SUCCEEDED|FAILED"`
	RedeliveryOf  *string                  `json:"redeliveryOf" oas:"required,nullable"`
	NextAttemptAt *time.Time               `json:"nextAttemptAt" oas:"required,nullable"`
	Attempts      []webhookAttemptResponse `json:"attempts" oas:"required"`
	CreatedAt     time.Time                `json:"createdAt" oas:"required"`
}

type webhookDeliveryListResponse struct {
	Deliveries []webhookDeliveryResponse `json:"deliveries" oas:"required"`
	Total      int                       `json:"total" oas:"required"`
}

func toWebhookDelivery(v webhooks.DeliveryView) webhookDeliveryResponse {
	d := v.Delivery
	out := webhookDeliveryResponse{ID: d.ID, EndpointID: d.EndpointID, EventID: d.EventID, EventType: d.EventType,
		Status: string(d.Status), RedeliveryOf: strPtr(d.RedeliveryOf), NextAttemptAt: d.NextAttemptAt,
		Attempts: make([]webhookAttemptResponse, len(v.Attempts)), CreatedAt: d.CreatedAt}
	for i, a := range v.Attempts {
		r := webhookAttemptResponse{Number: a.Number, At: a.At, Error: strPtr(a.Error), DurationMs: a.DurationMs, Succeeded: a.Succeeded,
			Outcome: a.Outcome()}
		if a.StatusCode != 0 {
			code := a.StatusCode
			r.StatusCode = &code
		}
		out.Attempts[i] = r
	}
	return out
}
