package http

import (
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core/event"
)

// webhookPayload is the body of every webhook delivery (docs/webhooks.md): the event's id and
// type, and the payload fields every webhook of the API's documented shape carries (event,
// data, created_at). It has one spelling of each instant, so generators that derive one name
// per property (ogen) accept it.
type webhookPayload struct {
	ID        string         `json:"id" oas:"required" description:"the event's id (evt_…): the same on every attempt and redelivery, so a receiver deduplicates on it"`
	Type      string         `json:"type" oas:"required" description:"<resource>.<state reached>, e.g. safe_payment.completed"`
	Event     string         `json:"event" oas:"required" description:"the same as type, under the name the documented webhook payload gives it"`
	Data      map[string]any `json:"data" oas:"required" description:"the resource's id, status and amount (USD) when it has one, and a few fields of its own"`
	CreatedAt time.Time      `json:"created_at" oas:"required" description:"when the event was recorded (the createdAt of GET /v1/events/{id})"`
}

// webhookEventTypes are the event types a webhook endpoint receives, with when each is
// recorded: the documented list (core/event), one entry per type.
var webhookEventTypes = func() map[string]string {
	out := map[string]string{}
	for _, typ := range event.DocumentedTypes() {
		out[typ], _ = event.Documented(typ)
	}
	return out
}()

// webhookFamilyPrefixes are the id prefixes of the resource each event family is about.
var webhookFamilyPrefixes = map[string]string{
	"safe_payment": "pay", "offramp_payment": "ofp", "claim": "clm", "card": "card", "card_authorization": "cau",
	"agent": "agt", "invoice": "inv", "treasury_sweep": "swp", "payment": "chk", "refund": "crf", "webhook_endpoint": "whe", "member": "mem",
}

// webhooks is the document's webhooks: one POST per event type the service sends to a
// partner's endpoint, signed in Corridor-Signature.
func (g *schemaGen) webhooks() map[string]any {
	types := make([]string, 0, len(webhookEventTypes))
	for t := range webhookEventTypes {
		types = append(types, t)
	}
	sort.Strings(types)
	out := map[string]any{}
	for _, typ := range types {
		out[typ] = map[string]any{"post": g.webhookOperation(typ, webhookEventTypes[typ])}
	}
	return out
}

// webhookOperation is the delivery of one event type: the signed POST a partner's endpoint
// receives, answered 2xx to end it.
func (g *schemaGen) webhookOperation(typ, when string) map[string]any {
	example := exampleObject(reflect.TypeOf(webhookPayload{}))
	example["type"], example["event"] = typ, typ
	family, _, _ := strings.Cut(typ, ".")
	status, _ := event.DataStatus(typ)
	example["id"] = "evt" + exampleIDSuffix
	example["data"] = map[string]any{"id": webhookFamilyPrefixes[family] + exampleIDSuffix, "status": status}
	var name strings.Builder
	for _, word := range strings.FieldsFunc(typ, func(r rune) bool { return r == '.' || r == '_' }) {
		name.WriteString(strings.ToUpper(word[:1]) + word[1:])
	}
	return map[string]any{
		"operationId": "on" + name.String(),
		"summary":     typ,
		"description": sentence(when) + " Signed: Corridor-Signature t=<unix>,v1=<hex HMAC-SHA256 of \"t.body\"> with the endpoint's secret (docs/webhooks.md); retried with backoff for 3 days until a 2xx.",
		"tags":        []string{"webhooks"},
		"parameters": []any{
			map[string]any{"name": "Corridor-Signature", "in": "header", "required": true, "schema": map[string]any{"type": "string"},
				"description": "t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\"> keyed with the endpoint's whsec_… secret", "example": "t=1795773600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd"},
			map[string]any{"name": "Corridor-Event-Id", "in": "header", "required": true, "schema": map[string]any{"type": "string"}, "example": "evt_06h0c8y3a9xq2v5m7k1d4f6g8j"},
			map[string]any{"name": "Corridor-Delivery-Id", "in": "header", "required": true, "schema": map[string]any{"type": "string"}, "example": "whd_06h0c8y3a9xq2v5m7k1d4f6g8j"},
		},
		"requestBody": map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{
			"schema": g.schema(reflect.TypeOf(webhookPayload{})), "example": example}}},
		"responses": map[string]any{"2XX": map[string]any{"description": "Received: the delivery ends."},
			"default": map[string]any{"description": "Not received: retried with backoff."}},
	}
}
