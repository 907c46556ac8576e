// Command cards issues a card from a wallet through the generated Go client and spends with it
// in the sandbox: a wallet is created, deployed and funded from the faucet, a card with a daily
// cap and a blocked merchant category is issued from it, and two sandbox authorizations show
// one approved and one declined with its reason.
//
//	CORRIDOR_URL=http://localhost:8080 CORRIDOR_API_KEY=csk_test_… go run ./examples/cards
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
	walletID, err := fundedWallet(ctx, api, "20")
	if err != nil {
		return err
	}
	daily, blocked := "100", []string{"7995"} // 7995: betting
	issued, err := api.CreateWalletCardWithResponse(ctx, walletID, &corridor.CreateWalletCardParams{},
		corridor.CardIssueRequest{DailyUsd: &daily, BlockedMcc: &blocked})
	if err != nil || issued.JSON201 == nil {
		return fmt.Errorf("issue: %v %s", err, issued.Body)
	}
	card := issued.JSON201
	fmt.Printf("card %s (…%s) %s, spending from wallet %s\n", card.CardId, card.Last4, card.Status, walletID)
	for _, try := range []struct{ amount, mcc, merchant string }{{"12.5", "5411", "Corner Grocery"}, {"5", "7995", "Lucky Bets"}} {
		auth, err := api.SandboxCreateCardAuthorizationWithResponse(ctx, card.CardId, &corridor.SandboxCreateCardAuthorizationParams{},
			corridor.CardAuthorizationRequest{AmountUsd: try.amount, Mcc: try.mcc, MerchantName: try.merchant})
		if err != nil || auth.JSON201 == nil {
			return fmt.Errorf("authorize: %v %s", err, auth.Body)
		}
		reason := ""
		if auth.JSON201.DeclineReason != nil {
			reason = " (" + *auth.JSON201.DeclineReason + ")"
		}
		fmt.Printf("authorization of %s USD at %s: %s%s\n", try.amount, try.merchant, auth.JSON201.Status, reason)
	}
	return nil
}

// fundedWallet creates a 1-of-1 wallet, waits for its deployment and drips amount USDC into it.
func fundedWallet(ctx context.Context, api *corridor.ClientWithResponses, amount string) (string, error) {
	owner, err := crypto.GenerateKey()
	if err != nil {
		return "", err
	}
	threshold := 1
	var body corridor.CreateWalletBody
	if err := body.FromWalletCreateRequest(corridor.WalletCreateRequest{Name: "card wallet", Threshold: &threshold,
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
	if err := waitFor(func() (bool, error) {
		read, err := api.GetWalletWithResponse(ctx, w.Id)
		if err != nil || read.JSON200 == nil {
			return false, fmt.Errorf("read wallet: %v", err)
		}
		if read.JSON200.Status == corridor.WalletDetailStatusFAILED {
			return false, fmt.Errorf("the wallet failed to deploy")
		}
		return read.JSON200.Status == corridor.WalletDetailStatusDEPLOYED, nil
	}); err != nil {
		return "", err
	}
	asset := corridor.FundRequestAssetUsdc
	drip, err := api.FundWalletWithResponse(ctx, w.Id, &corridor.FundWalletParams{}, corridor.FundRequest{Asset: &asset, Amount: &amount})
	if err != nil || drip.JSON201 == nil {
		return "", fmt.Errorf("fund: %v %s", err, drip.Body)
	}
	return w.Id, waitFor(func() (bool, error) {
		read, err := api.GetFaucetDripWithResponse(ctx, drip.JSON201.Id)
		if err != nil || read.JSON200 == nil {
			return false, fmt.Errorf("read drip: %v", err)
		}
		if read.JSON200.Status == corridor.DripStatusFAILED {
			return false, fmt.Errorf("the faucet drip failed")
		}
		return read.JSON200.Status == corridor.DripStatusCONFIRMED, nil
	})
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
