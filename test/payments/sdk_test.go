package payments

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
	"github.com/corridorhq/corridor/test/harness"
)

// TestSafePayment_GoClient/proposed, signed and executed through the generated client: the
// Safe payment journey spoken entirely through sdk/go/corridor (docs/architecture.md, Tests), so a renamed
// field or a body the client cannot send fails here: a 1-of-1 wallet is created and deployed,
// funded from the faucet, a payment to an address proposed with the Safe-shaped body of the
// POST /v1/payments union, its safeTxHash signed by the owner, and it completes on chain.
func TestSafePayment_GoClient(t *testing.T) {
	t.Parallel()
	t.Run("proposed, signed and executed through the generated client", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		api := env().SDK(t, env().NewTenant(t).RootKey)
		owner := harness.NewOwner(t)
		w := sdkWallet(t, api, owner)
		walletID := w.Id
		sdkFund(t, api, walletID, "5")

		to := randomAddress(t).Hex()
		body, err := corridor.SafePaymentBody(walletID,
			corridor.SafePaymentDestinationRequest{Type: corridor.SafePaymentDestinationRequestTypeAddress, Address: &to, ChainId: &w.ChainId},
			corridor.SafePaymentAmountRequest{Value: "1.25"})
		if err != nil {
			t.Fatal(err)
		}
		created, err := api.CreatePaymentWithResponse(ctx, &corridor.CreatePaymentParams{}, body)
		if err != nil || created.JSON201 == nil {
			t.Fatalf("propose: %v, status %d: %s", err, created.StatusCode(), created.Body)
		}
		payment, err := created.JSON201.AsSafePayment()
		if err != nil || payment.SafeTxHash == nil || payment.Status != corridor.SafePaymentStatusAWAITINGSIGNATURE {
			t.Fatalf("proposed %+v (%v)", payment, err)
		}
		sig, err := safe.Sign(common.HexToHash(*payment.SafeTxHash), owner.Key)
		if err != nil {
			t.Fatal(err)
		}
		signed, err := api.SignPaymentWithResponse(ctx, payment.Id, &corridor.SignPaymentParams{}, corridor.SafePaymentSignRequest{Signature: sig.Hex()})
		if err != nil || signed.JSON200 == nil {
			t.Fatalf("sign: %v, status %d: %s", err, signed.StatusCode(), signed.Body)
		}
		done := harness.Until(t, "payment "+payment.Id+" completed", func() corridor.SafePayment {
			read, err := api.GetPaymentWithResponse(ctx, payment.Id)
			if err != nil || read.JSON200 == nil {
				t.Fatalf("read: %v, status %d", err, read.StatusCode())
			}
			p, err := read.JSON200.AsSafePayment()
			if err != nil {
				t.Fatal(err)
			}
			return p
		}, func(p corridor.SafePayment) bool {
			return p.Status == corridor.SafePaymentStatusCOMPLETED || p.Status == corridor.SafePaymentStatusFAILED
		})
		if done.Status != corridor.SafePaymentStatusCOMPLETED || done.ExecutedTxHash == nil || done.Amount != "1.25" {
			t.Fatalf("payment %+v", done)
		}
		if got := balance(t, common.HexToAddress(to)); got.Cmp(usdc(t, "1.25")) != 0 {
			t.Fatalf("destination holds %s base units, want 1.25 USDC", got)
		}
	})
}

// sdkWallet creates a 1-of-1 wallet owned by owner through the generated client and waits
// until it is deployed.
func sdkWallet(t *testing.T, api *corridor.ClientWithResponses, owner harness.Owner) corridor.WalletDetail {
	t.Helper()
	ctx := context.Background()
	threshold := 1
	var body corridor.CreateWalletBody
	if err := body.FromWalletCreateRequest(corridor.WalletCreateRequest{Name: "client wallet", Threshold: &threshold,
		Owners: []corridor.WalletOwnerRequest{{Address: owner.Address.Hex(), Role: corridor.WalletOwnerRequestRoleFINANCEOWNER}}}); err != nil {
		t.Fatal(err)
	}
	created, err := api.CreateWalletWithResponse(ctx, &corridor.CreateWalletParams{}, body)
	if err != nil || created.JSON201 == nil {
		t.Fatalf("create wallet: %v, status %d: %s", err, created.StatusCode(), created.Body)
	}
	w, err := created.JSON201.AsWallet()
	if err != nil {
		t.Fatal(err)
	}
	got := harness.Until(t, "wallet "+w.Id+" deployed", func() corridor.WalletDetail {
		read, err := api.GetWalletWithResponse(ctx, w.Id)
		if err != nil || read.JSON200 == nil {
			t.Fatalf("read wallet: %v, status %d", err, read.StatusCode())
		}
		return *read.JSON200
	}, func(d corridor.WalletDetail) bool {
		return d.Status == corridor.WalletDetailStatusDEPLOYED || d.Status == corridor.WalletDetailStatusFAILED
	})
	if got.Status != corridor.WalletDetailStatusDEPLOYED {
		t.Fatalf("wallet %+v", got)
	}
	return got
}

// sdkFund drips amount USDC from the faucet into the wallet and waits until it is confirmed.
func sdkFund(t *testing.T, api *corridor.ClientWithResponses, walletID, amount string) {
	t.Helper()
	ctx := context.Background()
	asset := corridor.FundRequestAssetUsdc
	drip, err := api.FundWalletWithResponse(ctx, walletID, &corridor.FundWalletParams{}, corridor.FundRequest{Asset: &asset, Amount: &amount})
	if err != nil || drip.JSON201 == nil {
		t.Fatalf("fund: %v, status %d: %s", err, drip.StatusCode(), drip.Body)
	}
	got := harness.Until(t, "drip confirmed", func() corridor.Drip {
		read, err := api.GetFaucetDripWithResponse(ctx, drip.JSON201.Id)
		if err != nil || read.JSON200 == nil {
			t.Fatalf("read drip: %v, status %d", err, read.StatusCode())
		}
		return *read.JSON200
	}, func(d corridor.Drip) bool { return d.Status != corridor.DripStatusSUBMITTED })
	if got.Status != corridor.DripStatusCONFIRMED {
		t.Fatalf("drip %+v", got)
	}
}
