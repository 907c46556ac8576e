// Command invoices bills a payer through an escrow invoice with the generated Go client: an
// invoice is created (DRAFT) and sent, which deploys its 2-of-3 hold Safe (payer, payee,
// arbiter); its public view, what the payer is shown, names the hold address; the payer's
// USDC, here the sandbox faucet, lands there and the balance poller (run now by the sandbox
// clock) makes it FUNDED.
//
//	CORRIDOR_URL=http://localhost:8080 CORRIDOR_API_KEY=csk_test_… go run ./examples/invoices
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
	payer, err := address()
	if err != nil {
		return err
	}
	payee, err := address()
	if err != nil {
		return err
	}
	name, what := "Acme Widgets", "200 widgets"
	created, err := api.CreateInvoiceWithResponse(ctx, &corridor.CreateInvoiceParams{}, corridor.InvoiceRequest{
		AmountUsd: "10", PayerAddress: payer, PayeeAddress: payee, PayeeName: &name, Description: &what})
	if err != nil || created.JSON201 == nil {
		return fmt.Errorf("create invoice: %v %s", err, created.Body)
	}
	id := created.JSON201.InvoiceId
	fmt.Printf("invoice %s of %s USD to %s: %s\n", id, created.JSON201.AmountUsd, created.JSON201.PayeeName, created.JSON201.Status)

	sent, err := api.SendInvoiceWithResponse(ctx, id, &corridor.SendInvoiceParams{})
	if err != nil || sent.JSON202 == nil || sent.JSON202.HoldWalletId == nil {
		return fmt.Errorf("send: %v %s", err, sent.Body)
	}
	hold := *sent.JSON202.HoldWalletId
	if err := waitFor(func() (bool, error) {
		read, err := api.GetWalletWithResponse(ctx, hold)
		if err != nil || read.JSON200 == nil {
			return false, fmt.Errorf("read the hold Safe: %v", err)
		}
		if read.JSON200.Status == corridor.WalletDetailStatusFAILED {
			return false, fmt.Errorf("the hold Safe failed to deploy")
		}
		return read.JSON200.Status == corridor.WalletDetailStatusDEPLOYED, nil
	}); err != nil {
		return err
	}
	if err := printPublic(ctx, api, id); err != nil {
		return err
	}

	// The payer pays the hold address; in the sandbox the faucet stands in for the payer.
	if err := drip(ctx, api, hold, "10"); err != nil {
		return err
	}
	seconds := 1
	if adv, err := api.SandboxAdvanceInvoiceWithResponse(ctx, id, &corridor.SandboxAdvanceInvoiceParams{},
		corridor.InvoiceAdvanceRequest{Seconds: &seconds}); err != nil || adv.StatusCode() != http.StatusOK {
		return fmt.Errorf("advance the sandbox clock: %v", err)
	}
	if err := waitFor(func() (bool, error) {
		read, err := api.GetInvoiceWithResponse(ctx, id)
		if err != nil || read.JSON200 == nil {
			return false, fmt.Errorf("read invoice: %v", err)
		}
		return read.JSON200.Status == corridor.InvoiceStatusFUNDED, nil
	}); err != nil {
		return err
	}
	return printPublic(ctx, api, id)
}

// printPublic prints the invoice's public view, what anyone holding its id may read.
func printPublic(ctx context.Context, api *corridor.ClientWithResponses, id string) error {
	pub, err := api.GetPublicInvoiceWithResponse(ctx, id)
	if err != nil || pub.JSON200 == nil {
		return fmt.Errorf("public view: %v %s", err, pub.Body)
	}
	hold := "none"
	if pub.JSON200.HoldAddress != nil {
		hold = *pub.JSON200.HoldAddress
	}
	fmt.Printf("public view of %s: %s, %s USD on chain %d, pay to %s\n", id, pub.JSON200.Status, pub.JSON200.AmountUsd, pub.JSON200.ChainId, hold)
	return nil
}

// drip sends amount USDC from the sandbox faucet to the wallet and waits for it to land.
func drip(ctx context.Context, api *corridor.ClientWithResponses, walletID, amount string) error {
	asset := corridor.FundRequestAssetUsdc
	d, err := api.FundWalletWithResponse(ctx, walletID, &corridor.FundWalletParams{}, corridor.FundRequest{Asset: &asset, Amount: &amount})
	if err != nil || d.JSON201 == nil {
		return fmt.Errorf("fund: %v %s", err, d.Body)
	}
	return waitFor(func() (bool, error) {
		read, err := api.GetFaucetDripWithResponse(ctx, d.JSON201.Id)
		if err != nil || read.JSON200 == nil {
			return false, fmt.Errorf("read drip: %v", err)
		}
		if read.JSON200.Status == corridor.DripStatusFAILED {
			return false, fmt.Errorf("the faucet drip failed")
		}
		return read.JSON200.Status == corridor.DripStatusCONFIRMED, nil
	})
}

// address is a fresh Ethereum address, standing in for a party's own.
func address() (string, error) {
	k, err := crypto.GenerateKey()
	if err != nil {
		return "", err
	}
	return crypto.PubkeyToAddress(k.PublicKey).Hex(), nil
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
