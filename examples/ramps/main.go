// Command ramps buys USDC into a wallet with the simulated on-ramp through the generated Go
// client: a wallet is created and deployed, an on-ramp of a USD amount is submitted for it, and
// the ramp is polled until CONFIRMED with its transaction and the provider's fiat reference.
//
//	CORRIDOR_URL=http://localhost:8080 CORRIDOR_API_KEY=csk_test_… go run ./examples/ramps
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
)

// waitLimit bounds every wait for the chain.
const waitLimit = 2 * time.Minute

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
	walletID, err := deployedWallet(ctx, api)
	if err != nil {
		return err
	}
	created, err := api.CreateRampWithResponse(ctx, &corridor.CreateRampParams{},
		corridor.RampRequest{WalletId: walletID, Direction: corridor.RampRequestDirectionOn, Amount: "25.5"})
	if err != nil || created.JSON201 == nil {
		return fmt.Errorf("on-ramp: %v %s", err, created.Body)
	}
	ramp := *created.JSON201
	fmt.Printf("ramp %s %s %s USD into wallet %s through %s: %s\n", ramp.RampId, ramp.Direction, ramp.AmountUsd,
		ramp.WalletId, ramp.Provider, ramp.Status)
	if err := waitFor(func() (bool, error) {
		read, err := api.GetRampWithResponse(ctx, ramp.RampId)
		if err != nil || read.JSON200 == nil {
			return false, fmt.Errorf("read ramp: %v", err)
		}
		ramp = *read.JSON200
		if ramp.Status == corridor.RampStatusFAILED {
			return false, fmt.Errorf("the ramp failed: %s", orNone(ramp.FailureReason))
		}
		return ramp.Status == corridor.RampStatusCONFIRMED, nil
	}); err != nil {
		return err
	}
	fmt.Printf("ramp %s %s in transaction %s, fiat reference %s\n", ramp.RampId, ramp.Status, orNone(ramp.TxHash), orNone(ramp.FiatRef))
	return nil
}

// deployedWallet creates a 1-of-1 wallet and waits for its deployment.
func deployedWallet(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	owner, err := crypto.GenerateKey()
	if err != nil {
		return "", err
	}
	threshold := 1
	var body corridor.CreateWalletBody
	if err := body.FromWalletCreateRequest(corridor.WalletCreateRequest{Name: "ramp wallet", Threshold: &threshold,
		Owners: []corridor.WalletOwnerRequest{{Address: crypto.PubkeyToAddress(owner.PublicKey).Hex(), Role: corridor.WalletOwnerRequestRoleADMINOWNER}}}); err != nil {
		return "", err
	}
	created, err := api.CreateWalletWithResponse(ctx, &corridor.CreateWalletParams{}, body)
	if err != nil || created.JSON201 == nil {
		return "", fmt.Errorf("create wallet: %v %s", err, created.Body)
	}
	w, err := created.JSON201.AsWallet()
	if err != nil {
		return "", err
	}
	return w.Id, waitFor(func() (bool, error) {
		read, err := api.GetWalletWithResponse(ctx, w.Id)
		if err != nil || read.JSON200 == nil {
			return false, fmt.Errorf("read wallet: %v", err)
		}
		if read.JSON200.Status == corridor.WalletDetailStatusFAILED {
			return false, fmt.Errorf("the wallet failed to deploy")
		}
		return read.JSON200.Status == corridor.WalletDetailStatusDEPLOYED, nil
	})
}

// orNone is s, or "none" when it is not set.
func orNone(s *string) string {
	if s == nil {
		return "none"
	}
	return *s
}

// waitFor polls done every half second until it holds or fails, for at most waitLimit.
func waitFor(done func() (bool, error)) error {
	deadline := time.Now().Add(waitLimit)
	for {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("gave up waiting after %s", waitLimit)
		}
		time.Sleep(500 * time.Millisecond)
	}
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
