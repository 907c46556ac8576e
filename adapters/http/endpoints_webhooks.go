package http

import "github.com/corridorhq/corridor/core/auth"

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
