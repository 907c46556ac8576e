package offramp

import (
	"context"
	"testing"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
	"github.com/corridorhq/corridor/test/harness"
)

// TestOfframp_GoClient/delivered to a service balance through the generated client: the
// off-ramp payment flow spoken through sdk/go/corridor: the sender pays a verified phone, the
// recipient reads the quoted routes, selects one and confirms, and the payment is DELIVERED,
// the sender's service balance less the amount.
func TestOfframp_GoClient(t *testing.T) {
	t.Parallel()
	t.Run("delivered to a service balance through the generated client", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		p := newPair(t, "50")
		destination(t, p.recipient.Root, serviceBalance)
		sender, recipient := env().SDK(t, p.sender.RootKey), env().SDK(t, p.recipient.RootKey)

		created, err := sender.CreateOfframpPaymentWithResponse(ctx, &corridor.CreateOfframpPaymentParams{},
			corridor.OfframpPaymentCreateRequest{Phone: p.phone, AmountUsd: "12.5"})
		if err != nil || created.JSON201 == nil {
			t.Fatalf("create: %v, status %d: %s", err, created.StatusCode(), created.Body)
		}
		id := created.JSON201.PaymentId
		routes, err := recipient.ListOfframpPaymentRoutesWithResponse(ctx, id)
		if err != nil || routes.JSON200 == nil || len(routes.JSON200.Routes) == 0 {
			t.Fatalf("routes: %v, status %d: %s", err, routes.StatusCode(), routes.Body)
		}
		routeID := routes.JSON200.Routes[0].RouteId
		selected, err := recipient.SelectOfframpPaymentRouteWithResponse(ctx, id, &corridor.SelectOfframpPaymentRouteParams{},
			corridor.PayoutRouteSelectRequest{RouteQuoteId: routeID})
		if err != nil || selected.JSON200 == nil || selected.JSON200.SelectedRouteQuoteId == nil || *selected.JSON200.SelectedRouteQuoteId != routeID {
			t.Fatalf("select: %v, status %d: %s", err, selected.StatusCode(), selected.Body)
		}
		confirmed, err := recipient.ConfirmOfframpPaymentWithResponse(ctx, id, &corridor.ConfirmOfframpPaymentParams{})
		if err != nil || confirmed.JSON200 == nil {
			t.Fatalf("confirm: %v, status %d: %s", err, confirmed.StatusCode(), confirmed.Body)
		}
		done := harness.Until(t, "payment "+id+" delivered", func() corridor.OfframpPayment {
			read, err := sender.GetOfframpPaymentWithResponse(ctx, id)
			if err != nil || read.JSON200 == nil {
				t.Fatalf("read: %v, status %d", err, read.StatusCode())
			}
			return *read.JSON200
		}, func(o corridor.OfframpPayment) bool { return o.Status == "DELIVERED" || o.Status == "FAILED" })
		if done.Status != "DELIVERED" || done.DeliveredAt == nil || done.SourceAmountBaseUnits != "12500000" {
			t.Fatalf("payment %+v", done)
		}
		harness.ExpectServiceBalance(t, p.sender.Root, 37_500_000, 0)
	})
}
