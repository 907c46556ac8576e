package http

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/webhook"
)

// webhooksHandlers serve events, webhook endpoints and deliveries.
type webhooksHandlers struct{ svc *webhooks.Service }

// webhookEndpoints are events and webhooks (docs/decisions/webhooks.md). Every route needs keys:manage:
// an event feed spans every capability, and an endpoint's secret is a credential.
func (h *webhooksHandlers) webhookEndpoints() []Endpoint {
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	pathID := []Param{{Name: "id", In: "path"}}
	scopes := []auth.Scope{auth.ScopeKeysManage}
	return []Endpoint{
		{Method: "GET", Path: "/v1/events", Summary: "List events, newest first", Tag: "events",
			Auth: authRequired, Scopes: scopes,
			Params: append([]Param{
				{Name: "type", In: "query", Description: "one type (safe_payment.completed) or a family (card_authorization.*)"},
				{Name: "from", In: "query", Description: "RFC 3339; only events created at or after it"},
				{Name: "to", In: "query", Description: "RFC 3339; only events created before it"}}, paging...),
			Responses: map[int]any{200: eventListResponse{}, 400: Envelope{}, 403: Envelope{}}, Handler: h.listEvents},
		{Method: "POST", Path: "/v1/sandbox/events", Summary: "TEST only: emit an event of a documented type about a real object of the caller's (data.sandboxTrigger true), delivered like any other; 409 when the caller has no object of the family yet; corridor trigger calls it", Tag: "events",
			Auth: authRequired, Scopes: scopes, Request: triggerEventRequest{},
			Responses: map[int]any{201: eventResponse{}, 400: Envelope{}, 403: Envelope{}, 409: Envelope{}}, Handler: h.triggerEvent},
		{Method: "GET", Path: "/v1/events/{id}", Summary: "An event", Tag: "events",
			Auth: authRequired, Scopes: scopes, Params: pathID,
			Responses: map[int]any{200: eventResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.getEvent},
		{Method: "GET", Path: "/v1/events/{id}/payload", Summary: "The exact body every webhook delivery of an event carries (the bytes its Corridor-Signature signs), to test a receiver's parsing and verification against", Tag: "events",
			Auth: authRequired, Scopes: scopes, Params: pathID,
			Responses: map[int]any{200: webhookPayload{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.getEventPayload},
		{Method: "POST", Path: "/v1/webhook-endpoints", Summary: "Register a webhook endpoint (its signing secret is returned once)", Tag: "webhooks",
			Auth: authRequired, Scopes: scopes, Request: webhookEndpointRequest{}, SecretFields: []string{"secret"},
			Responses: map[int]any{201: webhookEndpointResponse{}, 400: Envelope{}, 403: Envelope{}, 409: Envelope{}}, Prepare: h.createWebhookEndpoint},
		{Method: "GET", Path: "/v1/webhook-endpoints", Summary: "List webhook endpoints", Tag: "webhooks",
			Auth: authRequired, Scopes: scopes, Params: paging,
			Responses: map[int]any{200: webhookEndpointListResponse{}, 403: Envelope{}}, Handler: h.listWebhookEndpoints},
		{Method: "GET", Path: "/v1/webhook-endpoints/{id}", Summary: "A webhook endpoint", Tag: "webhooks",
			Auth: authRequired, Scopes: scopes, Params: pathID,
			Responses: map[int]any{200: webhookEndpointResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.getWebhookEndpoint},
		{Method: "PATCH", Path: "/v1/webhook-endpoints/{id}", Summary: "Change an endpoint (url, events, enabled) or rotate its secret (rotateSecret: the new one is returned once)", Tag: "webhooks",
			Auth: authRequired, Scopes: scopes, Params: pathID, Request: webhookEndpointPatchRequest{},
			Responses: map[int]any{200: webhookEndpointResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.patchWebhookEndpoint},
		{Method: "DELETE", Path: "/v1/webhook-endpoints/{id}", Summary: "Delete an endpoint (returned, disabled); its pending deliveries fail", Tag: "webhooks",
			Auth: authRequired, Scopes: scopes, Params: pathID,
			Responses: map[int]any{200: webhookEndpointResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.deleteWebhookEndpoint},
		{Method: "GET", Path: "/v1/webhook-endpoints/{id}/deliveries", Summary: "An endpoint's deliveries, newest first, with their attempts", Tag: "webhooks",
			Auth: authRequired, Scopes: scopes, Params: append(append([]Param{}, pathID...), paging...),
			Responses: map[int]any{200: webhookDeliveryListResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.listWebhookDeliveries},
		{Method: "POST", Path: "/v1/webhook-deliveries/{id}/redeliver", Summary: "Send a delivery's event to its endpoint again now, as a new delivery (same event id)", Tag: "webhooks",
			Auth: authRequired, Scopes: scopes, Params: pathID,
			Responses: map[int]any{201: webhookDeliveryResponse{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Handler: h.redeliverWebhook},
	}
}

// triggerEventRequest is the body of POST /v1/sandbox/events.
type triggerEventRequest struct {
	Type string `json:"type" oas:"required" example:"safe_payment.completed" description:"the event type to emit: one of the documented types (the document's webhooks)"`
	// ResourceID names the object the event is about; omitted, the newest of the family.
	ResourceID string `json:"resourceId" example:"agt_06h0c8y3a9xq2v5m7k1d4f6g8j" description:"the object of yours the event is about (an object of the type's family); omitted: your newest one, or a sample id when you have none"`
}

// triggerEvent records a sample event of the asked type (TEST only).
func (h *webhooksHandlers) triggerEvent(c *fiber.Ctx) error {
	var req triggerEventRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	e, err := h.svc.TriggerEvent(c.UserContext(), principal(c), req.Type, req.ResourceID)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toEvent(e))
}

func (h *webhooksHandlers) listEvents(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	q := webhooks.EventQuery{Type: c.Query("type")}
	for name, dst := range map[string]*time.Time{"from": &q.From, "to": &q.To} {
		t, err := queryTime(c, name)
		if err != nil {
			return err
		}
		if t != nil {
			*dst = *t
		}
	}
	events, total, err := h.svc.ListEvents(c.UserContext(), principal(c), q, page)
	if err != nil {
		return err
	}
	out := eventListResponse{Events: make([]eventResponse, len(events)), Total: total}
	for i, e := range events {
		out.Events[i] = toEvent(e)
	}
	return c.JSON(out)
}

func (h *webhooksHandlers) getEvent(c *fiber.Ctx) error {
	e, err := h.svc.GetEvent(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toEvent(e))
}

// getEventPayload answers the delivery body itself, byte for byte, rather than a re-encoding:
// a receiver checking a signature needs the exact bytes.
func (h *webhooksHandlers) getEventPayload(c *fiber.Ctx) error {
	e, err := h.svc.GetEvent(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	raw, err := webhooks.Payload(e)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(raw)
}

// createWebhookEndpoint checks the URL (resolving its host) while preparing, outside any
// transaction, then records the endpoint in the runner's unit of work.
func (h *webhooksHandlers) createWebhookEndpoint(c *fiber.Ctx) (fiber.Handler, error) {
	var req webhookEndpointRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	prepared, err := h.svc.PrepareEndpoint(c.UserContext(), principal(c),
		webhooks.EndpointInput{URL: req.URL, Events: req.Events, Enabled: req.Enabled})
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		e, secret, err := h.svc.AddEndpoint(c.UserContext(), principal(c), prepared)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toWebhookEndpoint(e, secret))
	}, nil
}

func (h *webhooksHandlers) listWebhookEndpoints(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	list, total, err := h.svc.ListEndpoints(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := webhookEndpointListResponse{Endpoints: make([]webhookEndpointResponse, len(list)), Total: total}
	for i, e := range list {
		out.Endpoints[i] = toWebhookEndpoint(e, "")
	}
	return c.JSON(out)
}

func (h *webhooksHandlers) getWebhookEndpoint(c *fiber.Ctx) error {
	e, err := h.svc.GetEndpoint(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toWebhookEndpoint(e, ""))
}

func (h *webhooksHandlers) patchWebhookEndpoint(c *fiber.Ctx) error {
	var req webhookEndpointPatchRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	e, secret, err := h.svc.UpdateEndpoint(c.UserContext(), principal(c), c.Params("id"),
		webhooks.EndpointPatch{URL: req.URL, Events: req.Events, Enabled: req.Enabled, RotateSecret: req.RotateSecret})
	if err != nil {
		return err
	}
	return c.JSON(toWebhookEndpoint(e, secret))
}

func (h *webhooksHandlers) deleteWebhookEndpoint(c *fiber.Ctx) error {
	e, err := h.svc.DeleteEndpoint(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toWebhookEndpoint(e, ""))
}

func (h *webhooksHandlers) listWebhookDeliveries(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	list, total, err := h.svc.ListDeliveries(c.UserContext(), principal(c), c.Params("id"), page)
	if err != nil {
		return err
	}
	out := webhookDeliveryListResponse{Deliveries: make([]webhookDeliveryResponse, len(list)), Total: total}
	for i, d := range list {
		out.Deliveries[i] = toWebhookDelivery(d)
	}
	return c.JSON(out)
}

func (h *webhooksHandlers) redeliverWebhook(c *fiber.Ctx) error {
	d, err := h.svc.Redeliver(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toWebhookDelivery(d))
}

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
