package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/checkout"
)

// Hosted checkout's DTOs (docs/api.md "Secondary documented shapes", docs/decisions/checkout.md, docs/checkout.md).

// jsonDecimal is a decimal carried as a JSON number (never through a float): a request's text
// is kept as given and parsed with core.ParseAmount; a response writes its text as a number.
type jsonDecimal string

var jsonDecimalType = reflect.TypeOf(jsonDecimal(""))

// MarshalJSON writes the decimal as a JSON number.
func (d jsonDecimal) MarshalJSON() ([]byte, error) {
	if d == "" {
		return []byte("0"), nil
	}
	return []byte(d), nil
}

// UnmarshalJSON takes a JSON number only.
func (d *jsonDecimal) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || !(b[0] == '-' || (b[0] >= '0' && b[0] <= '9')) {
		return errors.New("amount must be a JSON number such as 12.5")
	}
	*d = jsonDecimal(b)
	return nil
}

type checkoutCustomer struct {
	Email *string `json:"email,omitempty" description:"the payer's email, kept for the merchant"`
	Name  *string `json:"name,omitempty" oas:"maxLength=200"`
}

// checkoutCreateRequest is POST /v1/payments in the secondary shape (a checkout).
type checkoutCreateRequest struct {
	Amount         jsonDecimal       `json:"amount" oas:"required" description:"the price in currency, a JSON number with at most 2 fraction digits, at most 1000000"`
	Currency       string            `json:"currency" oas:"required,enum=USD" description:"USD, the only currency hosted checkout prices in (accepted in any case)"`
	Cryptocurrency string            `json:"cryptocurrency" oas:"required,enum=USDC" description:"USDC, the only cryptocurrency accepted (1 USD = 1 USDC); accepted in any case"`
	Description    *string           `json:"description,omitempty" oas:"maxLength=500" description:"shown on the payment page"`
	Customer       *checkoutCustomer `json:"customer,omitempty"`
	Metadata       map[string]string `json:"metadata,omitempty" description:"up to 20 string keys (1 to 40 characters) and values (at most 500)"`
}

// isSecondaryPaymentBody reports whether a POST /v1/payments body is a checkout: a JSON
// object naming currency, cryptocurrency or customer, or whose amount is a number (a Safe
// payment's amount is an object {value, asset}).
func isSecondaryPaymentBody(body []byte) bool {
	var fields map[string]json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&fields); err != nil {
		return false
	}
	for _, k := range []string{"currency", "cryptocurrency", "customer"} {
		if _, ok := fields[k]; ok {
			return true
		}
	}
	if raw, ok := fields["amount"]; ok {
		raw = bytes.TrimSpace(raw)
		return len(raw) > 0 && raw[0] != '{'
	}
	return false
}

type checkoutCreateResponse struct {
	ID             string      `json:"id" oas:"required" description:"the checkout's id (chk_…)"`
	Amount         jsonDecimal `json:"amount" oas:"required"`
	Currency       string      `json:"currency" oas:"required,enum=USD"`
	Cryptocurrency string      `json:"cryptocurrency" oas:"required,enum=USDC" description:"The asset the payer sends: USDC."`
	CryptoAmount   string      `json:"crypto_amount" oas:"required" description:"USDC to send, a decimal string with 6 fraction digits"`
	Status         string      `json:"status" oas:"required,enum=created|pending|completed|failed"`
	PaymentURL     string      `json:"payment_url" oas:"required" description:"the hosted payment page (GET /pay/{id})"`
	QRCode         string      `json:"qr_code" oas:"required" description:"URL of the page's QR code (PNG) of the EIP-681 transfer URI"`
	PaymentURI     string      `json:"payment_uri" oas:"required" description:"the EIP-681 URI the QR code encodes"`
	DepositAddress string      `json:"deposit_address" oas:"required" description:"this checkout's own CREATE2 deposit address"`
	ChainID        int64       `json:"chain_id" oas:"required"`
	ExpiresAt      time.Time   `json:"expires_at" oas:"required"`
	CreatedAt      time.Time   `json:"created_at" oas:"required"`
}

// checkoutResponse is GET /v1/payments/{chk_id}.
type checkoutResponse struct {
	ID              string            `json:"id" oas:"required"`
	Amount          jsonDecimal       `json:"amount" oas:"required"`
	Currency        string            `json:"currency" oas:"required,enum=USD"`
	Cryptocurrency  string            `json:"cryptocurrency" oas:"required,enum=USDC" description:"The asset the payer sends: USDC."`
	Status          string            `json:"status" oas:"required,enum=created|pending|completed|failed"`
	TransactionHash *string           `json:"transaction_hash" oas:"required" description:"the latest transfer to the deposit address; null before one is seen"`
	Confirmations   int64             `json:"confirmations" oas:"required" description:"depth of that transfer"`
	AmountReceived  string            `json:"amount_received" oas:"required" description:"USDC seen at the deposit address"`
	AmountRefunded  string            `json:"amount_refunded" oas:"required" description:"How much has been refunded to the payer so far, a decimal string with 6 fraction digits (0.000000 before any refund)."`
	Refundable      string            `json:"refundable" oas:"required" description:"credited to the merchant's balance and not refunded"`
	FailureReason   *string           `json:"failure_reason" oas:"required,enum=expired|underpaid" description:"why a failed payment failed"`
	DepositAddress  string            `json:"deposit_address" oas:"required"`
	PayerAddress    *string           `json:"payer_address" oas:"required" description:"the sender of the first transfer (refunds go there by default)"`
	Description     string            `json:"description" oas:"required"`
	Metadata        map[string]string `json:"metadata" oas:"required"`
	ExpiresAt       time.Time         `json:"expires_at" oas:"required"`
	CreatedAt       time.Time         `json:"created_at" oas:"required"`
	CompletedAt     *time.Time        `json:"completed_at" oas:"required"`
}

// checkoutListResponse is GET /v1/checkouts: a page of the merchant's checkouts, newest first.
type checkoutListResponse struct {
	Checkouts []checkoutResponse `json:"checkouts" oas:"required"`
	Total     int                `json:"total" oas:"required" description:"how many checkouts match the filters"`
}

// checkoutStatusResponse is the public status of the payment page: nothing about the
// merchant or the customer.
type checkoutStatusResponse struct {
	ID                    string    `json:"id" oas:"required"`
	Status                string    `json:"status" oas:"required,enum=created|pending|completed|failed"`
	Amount                string    `json:"amount" oas:"required"`
	Currency              string    `json:"currency" oas:"required,enum=USD"`
	CryptoAmount          string    `json:"crypto_amount" oas:"required" description:"The USDC the payer sends, a decimal string with 6 fraction digits (12.500000)."`
	DepositAddress        string    `json:"deposit_address" oas:"required"`
	Confirmations         int64     `json:"confirmations" oas:"required" description:"How many blocks deep the paying transfer is; 0 before one is seen."`
	RequiredConfirmations uint64    `json:"required_confirmations" oas:"required"`
	FailureReason         *string   `json:"failure_reason" oas:"required,enum=expired|underpaid" description:"Why the checkout failed: expired (nothing arrived in time) or underpaid (less than the amount arrived); null unless it failed."`
	ExpiresAt             time.Time `json:"expires_at" oas:"required"`
	AmountReceived        string    `json:"amount_received" oas:"required" description:"USDC seen at the deposit address (the page says when it is short of the amount)"`
	TransactionHash       *string   `json:"transaction_hash" oas:"required" description:"the latest transfer to the deposit address (public chain data); null before one is seen"`
}

// checkoutRefundRequest is POST /v1/payments/{chk_id}/refund.
type checkoutRefundRequest struct {
	Amount  *jsonDecimal `json:"amount,omitempty" description:"USD (= USDC) to refund, at most 6 fraction digits; omitted: everything still refundable"`
	Address *string      `json:"address,omitempty" description:"where the USDC goes; omitted: the payer (the sender of the first transfer)"`
}

type checkoutRefundResponse struct {
	ID              string    `json:"id" oas:"required" description:"the refund's id (crf_…)"`
	PaymentID       string    `json:"payment_id" oas:"required"`
	Amount          string    `json:"amount" oas:"required"`
	Currency        string    `json:"currency" oas:"required,enum=USDC"`
	Destination     string    `json:"destination" oas:"required" description:"The address the refund is sent to: the one asked for, else the payer (the sender of the first transfer)."`
	Status          string    `json:"status" oas:"required,enum=pending|processed"`
	TransactionHash *string   `json:"transaction_hash" oas:"required"`
	CreatedAt       time.Time `json:"created_at" oas:"required"`
}

type checkoutRefundListResponse struct {
	Data []checkoutRefundResponse `json:"data" oas:"required"`
}

// usdAmount is a USDC base-unit amount as a USD decimal with 2 to 6 fraction digits.
func usdAmount(units int64) string {
	s := core.FormatUSD(units)
	whole, frac, _ := strings.Cut(s, ".")
	for len(frac) < 2 {
		frac += "0"
	}
	return whole + "." + frac
}

// usdcAmount is a USDC base-unit amount with its 6 fraction digits.
func usdcAmount(units int64) string {
	s := core.FormatUSD(units)
	whole, frac, _ := strings.Cut(s, ".")
	for len(frac) < 6 {
		frac += "0"
	}
	return whole + "." + frac
}

func checkoutStatus(c checkout.Checkout) string { return strings.ToLower(string(c.Status)) }

func toCheckout(c checkout.Checkout) checkoutResponse {
	meta := c.Metadata
	if meta == nil {
		meta = map[string]string{}
	}
	return checkoutResponse{ID: c.ID, Amount: jsonDecimal(usdAmount(c.Amount)), Currency: c.Currency, Cryptocurrency: c.Cryptocurrency,
		Status: checkoutStatus(c), TransactionHash: strPtr(c.TransactionHash), Confirmations: c.Confirmations,
		AmountReceived: usdcAmount(c.Received), AmountRefunded: usdcAmount(c.Refunded), Refundable: usdcAmount(c.Refundable()),
		FailureReason: strPtr(c.FailureReason), DepositAddress: c.DepositAddress, PayerAddress: strPtr(c.PayerAddress),
		Description: c.Description, Metadata: meta, ExpiresAt: c.ExpiresAt, CreatedAt: c.CreatedAt, CompletedAt: c.CompletedAt}
}

func toCheckoutRefund(r checkout.Refund) checkoutRefundResponse {
	return checkoutRefundResponse{ID: r.ID, PaymentID: r.CheckoutID, Amount: usdcAmount(r.Amount), Currency: "USDC",
		Destination: r.Destination, Status: strings.ToLower(string(r.Status)), TransactionHash: strPtr(r.TxHash), CreatedAt: r.CreatedAt}
}

type checkoutSandboxPayRequest struct {
	Amount *jsonDecimal `json:"amount,omitempty" description:"USDC to send, at most 6 fraction digits and at most 1000000; omitted: what is still due"`
}

type checkoutSandboxPayResponse struct {
	PaymentID       string `json:"payment_id" oas:"required" description:"the checkout (chk_…)"`
	Amount          string `json:"amount" oas:"required" description:"USDC sent"`
	TransactionHash string `json:"transaction_hash" oas:"required" description:"the sandbox chain's transaction"`
}
