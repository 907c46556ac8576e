package corridor

import "encoding/json"

// SafePaymentBody is POST /v1/payments's body for a Safe payment of amount from sourceWalletID
// to destination (memo and twofaChallengeId may be set on the answer). It exists because the
// body is one object for both shapes: the fields of a hosted checkout stay unset.
func SafePaymentBody(sourceWalletID string, destination SafePaymentDestinationRequest, amount SafePaymentAmountRequest) (CreatePaymentBody, error) {
	body := CreatePaymentBody{SourceWalletId: &sourceWalletID, Destination: &destination}
	err := body.Amount.FromSafePaymentAmountRequest(amount)
	return body, err
}

// CheckoutBody is POST /v1/payments's body for a hosted checkout of amount USD paid in USDC
// (description, customer and metadata may be set on the answer). amount is sent as written.
func CheckoutBody(amount json.Number) (CreatePaymentBody, error) {
	usd, usdc := CreatePaymentBodyCurrencyUSD, CreatePaymentBodyCryptocurrencyUSDC
	body := CreatePaymentBody{Currency: &usd, Cryptocurrency: &usdc}
	err := body.Amount.FromCheckoutCreateAmount(amount)
	return body, err
}
