package http

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/webhooks"
)

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
