package checkout

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
)

// TestCheckout_GoClient/an amount a float32 cannot hold round-trips exactly: a checkout for
// 131072.01 posted through the generated Go client (sdk/go/corridor) is created and read back
// for exactly 131072.01. A float32 holds it as 131072.015625 and a client generated with one
// sent 131072.02 (issue #31); the document declares the amount a decimal number, which the
// client keeps as its text.
func TestCheckout_GoClient(t *testing.T) {
	t.Parallel()
	t.Run("an amount a float32 cannot hold round-trips exactly", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		api := env().SDK(t, env().NewTenant(t).RootKey)
		body, err := corridor.CheckoutBody(json.Number("131072.01"))
		if err != nil {
			t.Fatal(err)
		}
		created, err := api.CreatePaymentWithResponse(ctx, &corridor.CreatePaymentParams{}, body)
		if err != nil || created.JSON201 == nil {
			t.Fatalf("create: %v, status %d: %s", err, created.StatusCode(), created.Body)
		}
		checkout, err := created.JSON201.AsCheckoutCreate()
		if err != nil || checkout.Amount != "131072.01" {
			t.Fatalf("created amount %q (%v), want 131072.01", checkout.Amount, err)
		}
		read, err := api.GetPaymentWithResponse(ctx, checkout.Id)
		if err != nil || read.JSON200 == nil {
			t.Fatalf("read: %v, status %d: %s", err, read.StatusCode(), read.Body)
		}
		got, err := read.JSON200.AsCheckout()
		if err != nil || got.Amount != "131072.01" || got.Id != checkout.Id {
			t.Fatalf("read back amount %q of %s (%v), want 131072.01 of %s", got.Amount, got.Id, err, checkout.Id)
		}
	})
}
