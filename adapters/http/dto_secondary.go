package http

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safepay"
)

// The secondary surface's DTOs (docs/api.md "Secondary documented shapes", docs/decisions/checkout.md): snake_case fields,
// each mapped onto the canonical wallets, Safe payments and ledger (docs/api.md, "Secondary
// surface").

// secondaryErrorResponse is the secondary error shape: {error: {code, message, details}}.
type secondaryErrorResponse struct {
	Error secondaryErrorBody `json:"error" oas:"required"`
}

type secondaryErrorBody struct {
	// Code is documented as the SecondaryErrorCode enum (secondaryErrorCodeSchema), narrowed per
	// status by SecondaryErrorBody<status>.
	Code    string         `json:"code" oas:"required"`
	Message string         `json:"message" oas:"required"`
	Details map[string]any `json:"details" oas:"required" description:"the canonical details, plus canonical_code and request_id"`
}

// secondaryCodes maps canonical codes onto the five secondary codes; any other code answers
// in lower case (validation_failed, insufficient_scope, chain_unavailable, …).
var secondaryCodes = map[core.Code]string{
	core.CodeUnauthenticated:           "invalid_api_key",
	core.CodeInsufficientFunds:         "insufficient_funds",
	core.CodeRateLimited:               "rate_limit_exceeded",
	core.CodeWalletNotFound:            "wallet_not_found",
	safepay.CodeDestinationNotResolved: "invalid_address",
}

// addressFields are the body fields whose VALIDATION_FAILED answers invalid_address.
var addressFields = []string{"destination", "owner_address", "address"}

// secondaryCode is the secondary code of a canonical error.
func secondaryCode(de *core.Error) string {
	if code, ok := secondaryCodes[de.Code]; ok {
		return code
	}
	if de.Code == core.CodeValidationFailed {
		if fields, ok := de.Details["fields"].(map[string]any); ok {
			for _, f := range addressFields {
				if _, bad := fields[f]; bad {
					return "invalid_address"
				}
			}
		}
	}
	return strings.ToLower(string(de.Code))
}

// toSecondaryError renders a canonical error in the secondary shape.
func toSecondaryError(de *core.Error, requestID string) secondaryErrorResponse {
	details := make(map[string]any, len(de.Details)+2)
	for k, v := range de.Details {
		details[k] = v
	}
	details["canonical_code"] = string(de.Code)
	details["request_id"] = requestID
	return secondaryErrorResponse{Error: secondaryErrorBody{Code: secondaryCode(de), Message: de.Message, Details: details}}
}

// secondaryWalletCreateRequest is POST /v1/wallets in the secondary shape: SPEC's customer_id
// and currencies make a custodial wallet, a 1-of-1 Safe owned by a key the service's custody
// signer holds (docs/decisions/wallets.md). owner_address, this service's one addition, makes it non-custodial: the
// partner's key owns the Safe and signs its payments.
type secondaryWalletCreateRequest struct {
	CustomerID   string   `json:"customer_id" oas:"required,maxLength=100" description:"the partner's customer; kept as the wallet's name"`
	Currencies   []string `json:"currencies" oas:"required" description:"USDC and/or ETH; both live at the wallet's one Safe address"`
	OwnerAddress string   `json:"owner_address,omitempty" oas:"pattern=^0x[0-9a-fA-F]{40}$" description:"optional: the 1-of-1 Safe's owner, a key the partner holds (non-custodial); absent, the service holds the owner key and signs sends itself"`
}

// isSecondaryWalletBody reports whether a POST /v1/wallets body is the secondary shape: a JSON
// object naming customer_id, currencies or owner_address (canonical bodies use camelCase).
func isSecondaryWalletBody(body []byte) bool {
	var fields map[string]json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&fields); err != nil {
		return false
	}
	for _, k := range []string{"customer_id", "currencies", "owner_address"} {
		if _, ok := fields[k]; ok {
			return true
		}
	}
	return false
}

type secondaryWalletResponse struct {
	WalletID  string            `json:"wallet_id" oas:"required"`
	Addresses map[string]string `json:"addresses" oas:"required" description:"currency → deposit address (the wallet's Safe)"`
	CreatedAt time.Time         `json:"created_at" oas:"required"`
}

type secondaryBalanceLine struct {
	Currency string  `json:"currency" oas:"required,enum=USDC|ETH"`
	Amount   string  `json:"amount" oas:"required" description:"a decimal string"`
	USDValue *string `json:"usd_value" oas:"required" description:"USDC counts 1:1; null where no price is held (ETH)"`
}

type secondaryBalanceResponse struct {
	WalletID      string                 `json:"wallet_id" oas:"required"`
	Balances      []secondaryBalanceLine `json:"balances" oas:"required" description:"One line per currency the wallet holds."`
	TotalUSDValue string                 `json:"total_usd_value" oas:"required" description:"the sum of the known usd_value"`
}

// secondarySendRequest is POST /v1/wallets/{id}/send. amount is a decimal string or a JSON
// number (its text is parsed exactly, never through a float).
type secondarySendRequest struct {
	Currency    string      `json:"currency" oas:"required,enum=USDC" description:"USDC, the only currency sent (accepted in any case)"`
	Amount      json.Number `json:"amount" oas:"required" description:"a decimal string or a JSON number, at most 6 fraction digits"`
	Destination string      `json:"destination" oas:"required" description:"a 0x address on the wallet's chain"`
	Note        *string     `json:"note,omitempty" oas:"maxLength=500" description:"A note kept with the send (at most 500 characters), returned as note on the transaction."`
	// TwofaChallengeID redeems a satisfied two-factor challenge (a send answered 403
	// twofa_required names it in details.challengeId), as twofaChallengeId does on a propose.
	TwofaChallengeID *string `json:"twofa_challenge_id,omitempty"`
}

type secondarySendResponse struct {
	TransactionID         string     `json:"transaction_id" oas:"required" description:"the Safe payment's id (pay_…)"`
	Status                string     `json:"status" oas:"required,enum=awaiting_signature|signing|ready_to_execute|executing|completed|failed|cancelled"`
	TransactionHash       *string    `json:"transaction_hash" oas:"required" description:"null until the payment is executed on chain"`
	EstimatedConfirmation *time.Time `json:"estimated_confirmation" oas:"required" description:"null while owners' signatures are awaited"`
}

type secondaryTransaction struct {
	ID              string    `json:"id" oas:"required" description:"a Safe payment (pay_…) or a ledger transfer of the on-chain mirror"`
	WalletID        string    `json:"wallet_id" oas:"required"`
	Type            string    `json:"type" oas:"required,enum=payment|withdrawal|refund"`
	Currency        string    `json:"currency" oas:"required,enum=USDC"`
	Amount          string    `json:"amount" oas:"required"`
	Status          string    `json:"status" oas:"required,enum=awaiting_signature|signing|ready_to_execute|executing|completed|failed|cancelled"`
	TransactionHash *string   `json:"transaction_hash" oas:"required"`
	Counterparty    *string   `json:"counterparty" oas:"required" description:"the sender of a payment received, the destination of a withdrawal"`
	Note            *string   `json:"note" oas:"required" description:"The note given with the send; null when none was."`
	CreatedAt       time.Time `json:"created_at" oas:"required"`
}

type secondaryTransactionListResponse struct {
	Data    []secondaryTransaction `json:"data" oas:"required"`
	Total   int                    `json:"total" oas:"required"`
	HasMore bool                   `json:"has_more" oas:"required"`
}
