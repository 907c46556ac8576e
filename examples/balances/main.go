// Command balances reads the money side through the generated Go client: it credits the
// tenant's sandbox service balance, reads the balance (available, held, in USD and base units)
// and checks the tenant's trial balance sums to zero per asset.
//
//	CORRIDOR_URL=http://localhost:8080 CORRIDOR_API_KEY=csk_test_… go run ./examples/balances
package main

import (
	"context"
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
	deposit, err := api.SandboxCreateBalanceDepositWithResponse(ctx, &corridor.SandboxCreateBalanceDepositParams{},
		corridor.DepositRequest{AmountUsd: "100"})
	if err != nil || deposit.JSON201 == nil {
		return fmt.Errorf("deposit: %v %s", err, deposit.Body)
	}
	balances, err := api.ListBalancesWithResponse(ctx, &corridor.ListBalancesParams{})
	if err != nil || balances.JSON200 == nil {
		return fmt.Errorf("balances: %v %s", err, balances.Body)
	}
	for _, b := range balances.JSON200.Balances {
		fmt.Printf("service balance %s: %s available, %s held (%s base units available)\n", b.Asset, b.Available, b.Held, b.AvailableBaseUnits)
	}
	trial, err := api.GetTrialBalanceWithResponse(ctx, &corridor.GetTrialBalanceParams{})
	if err != nil || trial.JSON200 == nil {
		return fmt.Errorf("trial balance: %v %s", err, trial.Body)
	}
	for _, a := range trial.JSON200.Assets {
		fmt.Printf("trial balance %s: balanced %t\n", a.Asset, a.Balanced)
		if !a.Balanced {
			return fmt.Errorf("the %s trial balance does not sum to zero", a.Asset)
		}
	}
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
