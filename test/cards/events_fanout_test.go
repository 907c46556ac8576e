package cards

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/test/testdb"
	"github.com/corridorhq/corridor/wiring"
)

// TestCards_EventsWithoutAnEndpointAreRecordedFannedOut: an event recorded while its tenant has
// no enabled webhook endpoint in its environment is written fanned out already (docs/webhooks.md,
// "Deliveries"): the card's card.issued (the store's common event insert) and an approval's
// card_authorization.approved (the approval's own statement) carry their dispatched time from
// the transaction that wrote them, and the fan-out pass never writes them again (each row is
// still the version its transaction inserted). Both are listed by GET /v1/events as before. Once
// an endpoint is registered, the next approval's event is delivered to it. Without the cut the
// events wait undispatched for the fan-out pass, which then updates every one of them.
func TestCards_EventsWithoutAnEndpointAreRecordedFannedOut(t *testing.T) {
	t.Parallel()
	url := testdb.NewDatabase(context.Background(), t)
	if _, err := wiring.Migrate(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	srv := harness.NewServerOn(t, url, func(c *wiring.Config) {
		// Local receivers allowed in TEST, and a fan-out pass soon after an event.
		c.Webhooks = webhooks.Config{RetryBase: 200 * time.Millisecond, RetryMax: 400 * time.Millisecond,
			Timeout: 3 * time.Second, DispatchInterval: 200 * time.Millisecond, AllowPrivateTest: true}
	})
	ten := srv.NewTenant(t)
	hid := ten.Root.Post("/v1/cardholders", map[string]any{"name": "Ana Lima", "email": "ana@example.com"}).Expect(t, 201).JSON(t)["cardholderId"].(string)
	id := ten.Root.Post("/v1/cards", map[string]any{"cardholderId": hid}).Expect(t, 201).JSON(t)["cardId"].(string)
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "1.00"}).Expect(t, 201)
	first := authorize(t, ten.Root.With("Idempotency-Key", "fan-out-1"), id, "0.10", "5411")
	if first["status"] != "APPROVED" {
		t.Fatalf("authorization: %v", first)
	}
	ten.Root.OneEventOf(t, "card.issued", id)
	ten.Root.OneEventOf(t, "card_authorization.approved", first["authorizationId"].(string))

	db := srv.Service.Store.DB()
	for _, q := range []struct{ what, sql, resource string }{
		{"card.issued", `SELECT e.xmin = c.xmin, e.dispatched_at IS NOT NULL FROM events e
			JOIN cards c ON c.tenant_id = e.tenant_id AND c.id = e.resource_id WHERE e.tenant_id = ? AND e.resource_id = ?`, id},
		{"card_authorization.approved", `SELECT e.xmin = a.xmin, e.dispatched_at IS NOT NULL FROM events e
			JOIN card_authorizations a ON a.tenant_id = e.tenant_id AND a.id = e.resource_id WHERE e.tenant_id = ? AND e.resource_id = ?`,
			first["authorizationId"].(string)},
	} {
		var asInserted, dispatched bool
		if err := db.QueryRowContext(context.Background(), q.sql, ten.ID, q.resource).Scan(&asInserted, &dispatched); err != nil {
			t.Fatalf("%s: %v", q.what, err)
		}
		if !dispatched || !asInserted {
			t.Errorf("%s without an endpoint: dispatched %v, the row its transaction inserted %v; want both", q.what, dispatched, asInserted)
		}
	}

	rcv := harness.NewWebhookReceiver(t, 0)
	ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": rcv.URL() + "/hook", "events": []string{"card_authorization.approved"}}).Expect(t, 201)
	second := authorize(t, ten.Root.With("Idempotency-Key", "fan-out-2"), id, "0.20", "5411")
	got := rcv.Wait(t, 1)[0].Event
	if data, _ := got["data"].(map[string]any); got["type"] != "card_authorization.approved" || data["id"] != second["authorizationId"] {
		t.Fatalf("delivered: %v; want the approval %v", got, second["authorizationId"])
	}
}
