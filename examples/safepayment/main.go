// Command safepayment makes a Safe payment end to end through the generated Go client, signing
// its safeTxHash as a partner's signer does: a 1-of-1 wallet owned by a fresh key is created
// and deployed, funded from the sandbox faucet, a USDC payment is proposed, the owner signs the
// safeTxHash (a raw secp256k1 signature over the 32-byte hash, no message prefix, v 27 or 28),
// and the payment executes on chain.
//
//	CORRIDOR_URL=http://localhost:8080 CORRIDOR_API_KEY=csk_test_… go run ./examples/safepayment
package main

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
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
	owner, err := crypto.GenerateKey() // in production: your signer's key, never sent anywhere
	if err != nil {
		return err
	}
	wallet, err := createWallet(ctx, api, crypto.PubkeyToAddress(owner.PublicKey))
	if err != nil {
		return err
	}
	fmt.Printf("wallet %s deployed at %s\n", wallet.Id, wallet.Address)
	if err := fund(ctx, api, wallet.Id, "5"); err != nil {
		return err
	}
	payment, err := propose(ctx, api, wallet, "0x000000000000000000000000000000000000dEaD", "1.25")
	if err != nil {
		return err
	}
	fmt.Printf("payment %s proposed: sign safeTxHash %s\n", payment.Id, *payment.SafeTxHash)
	signature, err := signSafeTxHash(common.HexToHash(*payment.SafeTxHash), owner)
	if err != nil {
		return err
	}
	signed, err := api.SignPaymentWithResponse(ctx, payment.Id, &corridor.SignPaymentParams{}, corridor.SafePaymentSignRequest{Signature: signature})
	if err != nil || signed.JSON200 == nil {
		return fmt.Errorf("sign: %v %s", err, signed.Body)
	}
	done, err := waitPayment(ctx, api, payment.Id)
	if err != nil {
		return err
	}
	fmt.Printf("payment %s %s in transaction %s\n", done.Id, done.Status, *done.ExecutedTxHash)
	return nil
}

// signSafeTxHash is the owner's signature a Safe checks for an EOA: secp256k1 over the
// safeTxHash itself (no "\x19Ethereum Signed Message" prefix), r ‖ s ‖ v with v 27 or 28.
func signSafeTxHash(hash common.Hash, key *ecdsa.PrivateKey) (string, error) {
	sig, err := crypto.Sign(hash.Bytes(), key) // v is 0 or 1 here
	if err != nil {
		return "", err
	}
	sig[64] += 27
	return hexutil.Encode(sig), nil
}

func createWallet(ctx context.Context, api *corridor.ClientWithResponses, owner common.Address) (corridor.WalletDetail, error) {
	threshold := 1
	var body corridor.CreateWalletBody
	if err := body.FromWalletCreateRequest(corridor.WalletCreateRequest{Name: "example wallet", Threshold: &threshold,
		Owners: []corridor.WalletOwnerRequest{{Address: owner.Hex(), Role: corridor.WalletOwnerRequestRoleFINANCEOWNER}}}); err != nil {
		return corridor.WalletDetail{}, err
	}
	created, err := api.CreateWalletWithResponse(ctx, &corridor.CreateWalletParams{}, body)
	if err != nil || created.JSON201 == nil {
		return corridor.WalletDetail{}, fmt.Errorf("create wallet: %v %s", err, created.Body)
	}
	w, err := created.JSON201.AsWallet()
	if err != nil {
		return corridor.WalletDetail{}, err
	}
	return waitFor(func() (corridor.WalletDetail, bool, error) {
		read, err := api.GetWalletWithResponse(ctx, w.Id)
		if err != nil || read.JSON200 == nil {
			return corridor.WalletDetail{}, false, fmt.Errorf("read wallet: %v", err)
		}
		switch read.JSON200.Status {
		case corridor.WalletDetailStatusDEPLOYED:
			return *read.JSON200, true, nil
		case corridor.WalletDetailStatusFAILED:
			return *read.JSON200, false, fmt.Errorf("the wallet failed to deploy")
		}
		return *read.JSON200, false, nil
	})
}

func fund(ctx context.Context, api *corridor.ClientWithResponses, walletID, amount string) error {
	asset := corridor.FundRequestAssetUsdc
	drip, err := api.FundWalletWithResponse(ctx, walletID, &corridor.FundWalletParams{}, corridor.FundRequest{Asset: &asset, Amount: &amount})
	if err != nil || drip.JSON201 == nil {
		return fmt.Errorf("fund: %v %s", err, drip.Body)
	}
	_, err = waitFor(func() (corridor.Drip, bool, error) {
		read, err := api.GetFaucetDripWithResponse(ctx, drip.JSON201.Id)
		if err != nil || read.JSON200 == nil {
			return corridor.Drip{}, false, fmt.Errorf("read drip: %v", err)
		}
		if read.JSON200.Status == corridor.DripStatusFAILED {
			return *read.JSON200, false, fmt.Errorf("the faucet drip failed")
		}
		return *read.JSON200, read.JSON200.Status == corridor.DripStatusCONFIRMED, nil
	})
	return err
}

func propose(ctx context.Context, api *corridor.ClientWithResponses, w corridor.WalletDetail, to, amount string) (corridor.SafePayment, error) {
	body, err := corridor.SafePaymentBody(w.Id,
		corridor.SafePaymentDestinationRequest{Type: corridor.SafePaymentDestinationRequestTypeAddress, Address: &to, ChainId: &w.ChainId},
		corridor.SafePaymentAmountRequest{Value: amount})
	if err != nil {
		return corridor.SafePayment{}, err
	}
	created, err := api.CreatePaymentWithResponse(ctx, &corridor.CreatePaymentParams{}, body)
	if err != nil || created.JSON201 == nil {
		return corridor.SafePayment{}, fmt.Errorf("propose: %v %s", err, created.Body)
	}
	return created.JSON201.AsSafePayment()
}

func waitPayment(ctx context.Context, api *corridor.ClientWithResponses, id string) (corridor.SafePayment, error) {
	return waitFor(func() (corridor.SafePayment, bool, error) {
		read, err := api.GetPaymentWithResponse(ctx, id)
		if err != nil || read.JSON200 == nil {
			return corridor.SafePayment{}, false, fmt.Errorf("read payment: %v", err)
		}
		p, err := read.JSON200.AsSafePayment()
		if err != nil {
			return p, false, err
		}
		if p.Status == corridor.SafePaymentStatusFAILED || p.Status == corridor.SafePaymentStatusCANCELLED {
			return p, false, fmt.Errorf("the payment ended %s", p.Status)
		}
		return p, p.Status == corridor.SafePaymentStatusCOMPLETED, nil
	})
}

// waitFor polls check every half second until it is done or fails, for at most waitLimit.
func waitFor[T any](check func() (T, bool, error)) (T, error) {
	deadline := time.Now().Add(waitLimit)
	for {
		v, done, err := check()
		if err != nil || done {
			return v, err
		}
		if time.Now().After(deadline) {
			return v, fmt.Errorf("gave up waiting after %s", waitLimit)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

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
