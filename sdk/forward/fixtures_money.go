package forward

import (
	"context"
	"fmt"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
)

// The fixtures of the families that move money. Each stops where the next step needs someone
// else (an owner's signature, a recipient, the chain's confirmations are awaited only where
// the service reaches the state by itself): docs/webhooks.md's trigger table says where.

// deployedWallet creates a sandbox Safe wallet owned by a fresh address, waits for the service
// to deploy it, and funds it from the faucet; it returns the wallet's id and chain.
func deployedWallet(ctx context.Context, api *corridor.ClientWithResponses) (string, int, error) {
	created, err := api.CreateWalletWithBodyWithResponse(ctx, &corridor.CreateWalletParams{}, jsonType, body(map[string]any{
		"name": fixtureName, "owners": []map[string]any{{"address": newAddress(), "role": "FINANCE_OWNER"}}}))
	var w struct{ ID string }
	if err := decode("POST /v1/wallets", created, err, &w); err != nil {
		return "", 0, err
	}
	var state struct {
		Status  string
		ChainID int
	}
	err = await(ctx, "wallet "+w.ID+" to deploy", func() (bool, error) {
		got, err := api.GetWalletWithResponse(ctx, w.ID)
		err = decode("GET /v1/wallets/{id}", got, err, &state)
		return state.Status == "DEPLOYED", err
	})
	if err != nil {
		return "", 0, err
	}
	amount := "1"
	funded, err := api.FundWalletWithResponse(ctx, w.ID, &corridor.FundWalletParams{}, corridor.FundRequest{Amount: &amount})
	return w.ID, state.ChainID, decode("POST /v1/wallets/{id}/fund", funded, err, nil)
}

// safePaymentFixture proposes 1 USDC from a fixture wallet to a fresh address: the payment
// waits for its owner's signature (AWAITING_SIGNATURE), which nobody gives.
func safePaymentFixture(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	walletID, chainID, err := deployedWallet(ctx, api)
	if err != nil {
		return "", err
	}
	resp, err := api.CreatePaymentWithBodyWithResponse(ctx, &corridor.CreatePaymentParams{}, jsonType, body(map[string]any{
		"sourceWalletId": walletID, "amount": map[string]any{"value": "1", "asset": "usdc"},
		"destination": map[string]any{"type": "address", "address": newAddress(), "chainId": chainID}}))
	var p struct{ ID string }
	return p.ID, decode("POST /v1/payments", resp, err, &p)
}

func offrampPaymentFixture(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	return offrampFixture(ctx, api, false)
}

func claimFixture(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	return offrampFixture(ctx, api, true)
}

// offrampFixture credits the service balance with 1 USD from the sandbox pool and pays it to a
// phone nobody verified: the payment waits for its recipient (PENDING_CLAIM) and opens a claim.
// It returns the payment's id, or the claim's.
func offrampFixture(ctx context.Context, api *corridor.ClientWithResponses, claim bool) (string, error) {
	dep, err := api.SandboxCreateBalanceDepositWithBodyWithResponse(ctx, &corridor.SandboxCreateBalanceDepositParams{}, jsonType,
		body(map[string]any{"amountUsd": "1"}))
	if err := decode("POST /v1/sandbox/balance-deposits", dep, err, nil); err != nil {
		return "", err
	}
	resp, err := api.CreateOfframpPaymentWithBodyWithResponse(ctx, &corridor.CreateOfframpPaymentParams{}, jsonType,
		body(map[string]any{"phone": newPhone(), "amountUsd": "1"}))
	var p struct{ PaymentID, ClaimID string }
	if err := decode("POST /v1/offramp/payments", resp, err, &p); err != nil {
		return "", err
	}
	if !claim {
		return p.PaymentID, nil
	}
	if p.ClaimID == "" {
		return "", fmt.Errorf("the off-ramp payment %s to a new phone opened no claim", p.PaymentID)
	}
	return p.ClaimID, nil
}

// invoiceFixture creates a DRAFT escrow invoice of 1 USD between two fresh addresses (the
// platform's arbiter is the third).
func invoiceFixture(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	resp, err := api.CreateInvoiceWithBodyWithResponse(ctx, &corridor.CreateInvoiceParams{}, jsonType, body(map[string]any{
		"amountUsd": "1", "payerAddress": newAddress(), "payeeAddress": newAddress(), "description": fixtureName}))
	var inv struct{ InvoiceID string }
	return inv.InvoiceID, decode("POST /v1/invoices", resp, err, &inv)
}

// sweepFixture creates a two-bucket treasury account, waits for its Safes to deploy, and
// proposes a 1 USD sweep between them: PROPOSED, its payment awaiting the owner's signature.
func sweepFixture(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	created, err := api.CreateTreasuryAccountWithBodyWithResponse(ctx, &corridor.CreateTreasuryAccountParams{}, jsonType, body(map[string]any{
		"name": fixtureName, "owners": []map[string]any{{"address": newAddress(), "role": "FINANCE_OWNER"}},
		"buckets": []map[string]any{{"name": "Operating", "kind": "OPERATING", "targetBps": 5000},
			{"name": "Reserve", "kind": "RESERVE", "targetBps": 5000}}}))
	type bucket struct{ BucketID, WalletStatus string }
	var account struct {
		AccountID string
		Buckets   []bucket
	}
	if err := decode("POST /v1/treasury/accounts", created, err, &account); err != nil {
		return "", err
	}
	err = await(ctx, "treasury account "+account.AccountID+" to deploy", func() (bool, error) {
		got, err := api.GetTreasuryAccountWithResponse(ctx, account.AccountID)
		if err := decode("GET /v1/treasury/accounts/{id}", got, err, &account); err != nil {
			return false, err
		}
		for _, b := range account.Buckets {
			if b.WalletStatus != "DEPLOYED" {
				return false, nil
			}
		}
		return len(account.Buckets) == 2, nil
	})
	if err != nil {
		return "", err
	}
	resp, err := api.CreateTreasuryAccountSweepWithResponse(ctx, account.AccountID, &corridor.CreateTreasuryAccountSweepParams{},
		corridor.TreasurySweepRequest{SourceBucketId: account.Buckets[0].BucketID, DestBucketId: account.Buckets[1].BucketID, AmountUsd: "1"})
	var sw struct{ SweepID string }
	return sw.SweepID, decode("POST /v1/treasury/accounts/{id}/sweeps", resp, err, &sw)
}

// checkoutFixture creates a hosted checkout of amount USD, paid in USDC (created).
func checkoutFixture(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	resp, err := api.CreatePaymentWithBodyWithResponse(ctx, &corridor.CreatePaymentParams{}, jsonType, body(map[string]any{
		"amount": 1, "currency": "USD", "cryptocurrency": "USDC", "description": fixtureName}))
	var c struct{ ID string }
	return c.ID, decode("POST /v1/payments", resp, err, &c)
}

// refundFixture pays a fixture checkout as the sandbox payer, waits for it to complete, refunds
// it to a fresh address and waits until the refund is sent (processed), which is when a
// refund's first event is recorded.
func refundFixture(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	id, err := checkoutFixture(ctx, api)
	if err != nil {
		return "", err
	}
	paid, err := api.SandboxPayCheckoutWithBodyWithResponse(ctx, id, &corridor.SandboxPayCheckoutParams{}, jsonType, body(map[string]any{}))
	if err := decode("POST /v1/sandbox/payments/{id}/pay", paid, err, nil); err != nil {
		return "", err
	}
	err = await(ctx, "checkout "+id+" to complete", func() (bool, error) {
		var c struct{ Status string }
		got, err := api.GetPaymentWithResponse(ctx, id)
		err = decode("GET /v1/payments/{id}", got, err, &c)
		return c.Status == "completed", err
	})
	if err != nil {
		return "", err
	}
	made, err := api.RefundCheckoutWithBodyWithResponse(ctx, id, &corridor.RefundCheckoutParams{}, jsonType,
		body(map[string]any{"amount": 1, "address": newAddress()}))
	var r struct{ ID string }
	if err := decode("POST /v1/payments/{id}/refund", made, err, &r); err != nil {
		return "", err
	}
	return r.ID, await(ctx, "refund "+r.ID+" to be sent", func() (bool, error) {
		var list struct{ Data []struct{ ID, Status string } }
		got, err := api.ListCheckoutRefundsWithResponse(ctx, id)
		if err := decode("GET /v1/payments/{id}/refunds", got, err, &list); err != nil {
			return false, err
		}
		for _, x := range list.Data {
			if x.ID == r.ID {
				return x.Status == "processed", nil
			}
		}
		return false, nil
	})
}
