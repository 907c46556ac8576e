package portstest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/webhook"
	"github.com/corridorhq/corridor/ports"
)

// EventRepo is the contract of ports.EventRepo: an event is recorded unless its resource's
// latest event has its type (a repeatable one always), lists newest first by resource or type
// family, is scoped (EVENT_NOT_FOUND elsewhere) and fanned out once, per tenant (recorded fanned
// out when the tenant's environment has no enabled endpoint); endpoints and
// deliveries are scoped (their NOT_FOUND codes), by tenant in the delivery job's lookups too, a deleted endpoint is gone and fails its pending
// deliveries, and attempts list in order per delivery.
func EventRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"an event records once per status, lists newest first, scoped, fans out once", eventRecord},
		{"endpoints and deliveries are scoped; deleting an endpoint fails its pending deliveries", eventEndpoints},
	})
}

func recordEvent(ctx context.Context, t *testing.T, tx ports.Tx, e event.Event) bool {
	t.Helper()
	ok, err := tx.Events().RecordEvent(ctx, e)
	noErr(t, "RecordEvent", err)
	return ok
}

func eventRecord(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	resource := core.NewID(core.PrefixPayment)
	at := ledgerNow()
	created := event.New(tn.ID, core.EnvTest, "safe_payment.created", resource, nil, at)
	again := event.New(tn.ID, core.EnvTest, "safe_payment.created", resource, nil, at)
	done := event.New(tn.ID, core.EnvTest, "safe_payment.completed", resource, map[string]any{"amount": "1.00"}, at.Add(time.Second))
	repeat := event.New(tn.ID, core.EnvTest, "safe_payment.completed", resource, nil, at.Add(2*time.Second))
	repeat.Repeatable = true
	unfanned := event.New(other.ID, core.EnvTest, "safe_payment.created", core.NewID(core.PrefixPayment), nil, at)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		// tn has an enabled endpoint, so its events wait for the fan-out; other has none, so its
		// event is recorded fanned out already.
		noErr(t, "CreateEndpoint", tx.Events().CreateEndpoint(ctx, newEndpoint(tn.ID)))
		recordEvent(ctx, t, tx, unfanned)
		got := []bool{recordEvent(ctx, t, tx, created), recordEvent(ctx, t, tx, again), recordEvent(ctx, t, tx, done), recordEvent(ctx, t, tx, repeat)}
		if !slices.Equal(got, []bool{true, false, true, true}) {
			t.Errorf("recorded = %v, want [true false true true]", got)
		}
		return nil
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		f := ports.EventFilter{TenantID: tn.ID, Environment: core.EnvTest, ResourceID: resource}
		list, total, err := tx.Events().ListEvents(ctx, f, ports.Page{Take: 10})
		wantTotal(t, "ListEvents", total, 3)
		wantIDs(t, "ListEvents", ids(list, func(e event.Event) string { return e.ID }), []string{repeat.ID, done.ID, created.ID})
		f.Type = "safe_payment.created"
		list, _, err2 := tx.Events().ListEvents(ctx, f, ports.Page{Take: 10})
		wantIDs(t, "ListEvents by type", ids(list, func(e event.Event) string { return e.ID }), []string{created.ID})
		got, err3 := tx.Events().FindEvent(ctx, tn.ID, core.EnvTest, done.ID)
		if got.Type != done.Type || got.Data["amount"] != "1.00" || got.ResourceID != resource {
			t.Errorf("FindEvent = %+v", got)
		}
		_, err4 := tx.Events().FindEvent(ctx, other.ID, core.EnvTest, done.ID)
		wantCode(t, err4, event.CodeEventNotFound)
		return firstErr(err, err2, err3)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		tenants, err := tx.Events().TenantsWithUndispatchedEvents(ctx, 10_000)
		if !containsString(tenants, tn.ID) || containsString(tenants, other.ID) {
			t.Errorf("TenantsWithUndispatchedEvents = %v, want %s and not %s", tenants, tn.ID, other.ID)
		}
		if none, _ := tx.Events().ClaimUndispatchedEvents(ctx, other.ID, 10_000); len(none) != 0 {
			t.Errorf("another tenant's claim took %d events", len(none))
		}
		claimed, err2 := tx.Events().ClaimUndispatchedEvents(ctx, tn.ID, 10_000)
		if !containsString(ids(claimed, func(e event.Event) string { return e.ID }), done.ID) {
			t.Error("ClaimUndispatchedEvents does not claim a new event")
		}
		again, err3 := tx.Events().ClaimUndispatchedEvents(ctx, tn.ID, 10_000)
		if containsString(ids(again, func(e event.Event) string { return e.ID }), done.ID) {
			t.Error("ClaimUndispatchedEvents claims an event twice")
		}
		return firstErr(err, err2, err3)
	})
}

func newEndpoint(tenantID string) webhook.Endpoint {
	at := ledgerNow()
	return webhook.Endpoint{ID: core.NewID(core.PrefixWebhookEndpoint), TenantID: tenantID, Environment: core.EnvTest,
		URL: "https://example.com/hook", EventTypes: []string{"*"}, Enabled: true, SealedSecret: []byte("sealed"), CreatedAt: at, UpdatedAt: at}
}

func eventEndpoints(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	a, b := newEndpoint(tn.ID), newEndpoint(tn.ID)
	e := event.New(tn.ID, core.EnvTest, "agent.created", core.NewID(core.PrefixAgent), nil, ledgerNow())
	at := ledgerNow()
	d := webhook.Delivery{ID: core.NewID(core.PrefixWebhookDelivery), TenantID: tn.ID, Environment: core.EnvTest, EndpointID: a.ID,
		EventID: e.ID, EventType: e.Type, Status: webhook.DeliveryPending, NextAttemptAt: &at, CreatedAt: at, UpdatedAt: at}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		recordEvent(ctx, t, tx, e)
		n, err := tx.Events().CountEndpoints(ctx, tn.ID, core.EnvTest)
		if n != 0 {
			t.Errorf("CountEndpoints before any = %d", n)
		}
		noErr(t, "CreateEndpoint", tx.Events().CreateEndpoint(ctx, a))
		noErr(t, "CreateEndpoint", tx.Events().CreateEndpoint(ctx, b))
		noErr(t, "CreateDelivery", tx.Events().CreateDelivery(ctx, d))
		noErr(t, "AddAttempt", tx.Events().AddAttempt(ctx, webhook.Attempt{TenantID: tn.ID, DeliveryID: d.ID, Number: 1, At: at, StatusCode: 500}))
		noErr(t, "AddAttempt", tx.Events().AddAttempt(ctx, webhook.Attempt{TenantID: tn.ID, DeliveryID: d.ID, Number: 2, At: at.Add(time.Second), StatusCode: 503}))
		return err
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		list, total, err := tx.Events().ListEndpoints(ctx, tn.ID, core.EnvTest, ports.Page{Take: 10})
		wantTotal(t, "ListEndpoints", total, 2)
		wantIDs(t, "ListEndpoints", ids(list, func(e webhook.Endpoint) string { return e.ID }), []string{b.ID, a.ID})
		_, err2 := tx.Events().FindEndpoint(ctx, other.ID, core.EnvTest, a.ID)
		wantCode(t, err2, webhook.CodeEndpointNotFound)
		_, err3 := tx.Events().FindDelivery(ctx, other.ID, core.EnvTest, d.ID)
		wantCode(t, err3, webhook.CodeDeliveryNotFound)
		if none, _ := tx.Events().EventDeliveries(ctx, other.ID, core.EnvTest, e.ID); len(none) != 0 {
			t.Errorf("another tenant sees %d deliveries of the event", len(none))
		}
		if none, _ := tx.Events().Attempts(ctx, other.ID, []string{d.ID}); len(none[d.ID]) != 0 {
			t.Errorf("another tenant sees %d attempts of the delivery", len(none[d.ID]))
		}
		_, errOther := tx.Events().LockDeliveryByID(ctx, other.ID, d.ID)
		wantCode(t, errOther, webhook.CodeDeliveryNotFound)
		if owner, err := tx.Events().DeliveryTenant(ctx, d.ID); err != nil || owner != tn.ID {
			t.Errorf("DeliveryTenant = %q, %v; want %s", owner, err, tn.ID)
		}
		attempts, err4 := tx.Events().Attempts(ctx, tn.ID, []string{d.ID})
		if len(attempts[d.ID]) != 2 || attempts[d.ID][0].Number != 1 || attempts[d.ID][1].StatusCode != 503 {
			t.Errorf("Attempts = %+v", attempts)
		}
		noErr(t, "DeleteEndpoint", tx.Events().DeleteEndpoint(ctx, tn.ID, core.EnvTest, a.ID, ledgerNow()))
		_, err5 := tx.Events().LockEndpointByID(ctx, tn.ID, a.ID)
		wantCode(t, err5, webhook.CodeEndpointNotFound)
		got, err6 := tx.Events().LockDeliveryByID(ctx, tn.ID, d.ID)
		if got.Status != webhook.DeliveryFailed {
			t.Errorf("a pending delivery of a deleted endpoint is %s, want FAILED", got.Status)
		}
		enabled, err7 := tx.Events().EnabledEndpoints(ctx, tn.ID, core.EnvTest)
		wantIDs(t, "EnabledEndpoints", ids(enabled, func(e webhook.Endpoint) string { return e.ID }), []string{b.ID})
		return firstErr(err, err4, err6, err7)
	})
	eventUpdates(t, s, b, e)
}

// eventUpdates disables an endpoint and moves a delivery on, then reads both back.
func eventUpdates(t *testing.T, s ports.Store, ep webhook.Endpoint, e event.Event) {
	at := ledgerNow()
	d := webhook.Delivery{ID: core.NewID(core.PrefixWebhookDelivery), TenantID: ep.TenantID, Environment: ep.Environment, EndpointID: ep.ID,
		EventID: e.ID, EventType: e.Type, Status: webhook.DeliveryPending, NextAttemptAt: &at, CreatedAt: at, UpdatedAt: at}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Events().CreateDelivery(ctx, d) })
	ep.Enabled, ep.DisabledReason, ep.FailingSince, ep.UpdatedAt = false, "failing", &at, at
	d.Status, d.Attempts, d.NextAttemptAt, d.UpdatedAt = webhook.DeliverySucceeded, 1, nil, at
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "UpdateEndpoint", tx.Events().UpdateEndpoint(ctx, ep))
		return tx.Events().UpdateDelivery(ctx, d)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Events().FindEndpoint(ctx, ep.TenantID, ep.Environment, ep.ID)
		if got.Enabled || got.DisabledReason != "failing" || got.FailingSince == nil {
			t.Errorf("after UpdateEndpoint = %+v", got)
		}
		list, total, err2 := tx.Events().ListDeliveries(ctx, ep.TenantID, ep.ID, ports.Page{Take: 10})
		wantTotal(t, "ListDeliveries", total, 1)
		if len(list) == 1 && (list[0].Status != webhook.DeliverySucceeded || list[0].Attempts != 1 || list[0].NextAttemptAt != nil) {
			t.Errorf("after UpdateDelivery = %+v", list[0])
		}
		byID, err3 := tx.Events().FindEventByID(ctx, ep.TenantID, e.ID)
		if byID.ID != e.ID || byID.TenantID != ep.TenantID {
			t.Errorf("FindEventByID = %+v", byID)
		}
		_, err4 := tx.Events().FindEventByID(ctx, ep.TenantID, core.NewID(core.PrefixEvent))
		wantCode(t, err4, event.CodeEventNotFound)
		return firstErr(err, err2, err3)
	})
}
