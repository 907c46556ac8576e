// Command checkout creates a hosted checkout through the generated Go client and reads it back:
// the secondary surface's body of POST /v1/payments, an exact decimal amount, and the
// payment page a payer opens.
//
//	CORRIDOR_URL=http://localhost:8080 CORRIDOR_API_KEY=csk_test_… go run ./examples/checkout
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
)

func main() {
	api, err := client()
	if err != nil {
		log.Fatal(err)
	}
	if err := run(context.Background(), api); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, api *corridor.ClientWithResponses) error {
	description := "Order 42"
	// The checkout's amount is a json.Number: its text is sent as written, never through a float.
	body, err := corridor.CheckoutBody(json.Number("131072.01"))
	if err != nil {
		return err
	}
	body.Description = &description
	created, err := api.CreatePaymentWithResponse(ctx, &corridor.CreatePaymentParams{}, body)
	if err != nil {
		return err
	}
	if created.JSON201 == nil {
		return fmt.Errorf("create: %d %s", created.StatusCode(), created.Body)
	}
	checkout, err := created.JSON201.AsCheckoutCreate()
	if err != nil {
		return err
	}
	fmt.Printf("created %s for %s USD: pay at %s\n", checkout.Id, checkout.Amount, checkout.PaymentUrl)

	read, err := api.GetPaymentWithResponse(ctx, checkout.Id)
	if err != nil {
		return err
	}
	if read.JSON200 == nil {
		return fmt.Errorf("read: %d %s", read.StatusCode(), read.Body)
	}
	got, err := read.JSON200.AsCheckout()
	if err != nil {
		return err
	}
	fmt.Printf("read back %s: %s, amount %s\n", got.Id, got.Status, got.Amount)
	return nil
}

// client is the generated client for CORRIDOR_URL with CORRIDOR_API_KEY.
func client() (*corridor.ClientWithResponses, error) {
	base, key := os.Getenv("CORRIDOR_URL"), os.Getenv("CORRIDOR_API_KEY")
	if base == "" {
		base = "http://localhost:8080"
	}
	if key == "" {
		return nil, fmt.Errorf("set CORRIDOR_API_KEY to a TEST key")
	}
	return corridor.NewClientWithResponses(base, corridor.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Service-Api-Key", key)
		return nil
	}))
}
