package http

import (
	"time"

	"github.com/corridorhq/corridor/app/ramps"
	"github.com/corridorhq/corridor/core"
)

// rampRequest is the body of POST /v1/ramps.
type rampRequest struct {
	WalletID  string  `json:"walletId" oas:"required"`
	Direction string  `json:"direction" oas:"required,enum=on|off"`
	Amount    string  `json:"amount" oas:"required,pattern=^[0-9]+(\\.[0-9]+)?$" description:"USD, at most 6 fraction digits"`
	Provider  *string `json:"provider,omitempty" description:"simulated (the default); moonpay, transak, ramp_network, stripe and coinbase are recognized and answer RAMP_PROVIDER_NOT_AVAILABLE"`
	// TwofaChallengeID completes an off-ramp's two-factor handshake.
	TwofaChallengeID string `json:"twofaChallengeId,omitempty" description:"an off-ramp refused TWOFA_REQUIRED: the SATISFIED challenge, sent with the same request"`
}

type rampResponse struct {
	RampID        string    `json:"rampId" oas:"required"`
	WalletID      string    `json:"walletId" oas:"required"`
	Direction     string    `json:"direction" oas:"required,enum=ON|OFF"`
	Provider      string    `json:"provider" oas:"required" description:"The ramp provider, lower case (simulated in the sandbox)."`
	AmountUsd     string    `json:"amountUsd" oas:"required"`
	Status        string    `json:"status" oas:"required,enum=SUBMITTED|CONFIRMED|FAILED"`
	TxHash        *string   `json:"txHash" oas:"required" description:"the on-chain credit (ON) or the payment's execution (OFF); null until sent"`
	PaymentID     *string   `json:"paymentId" oas:"required" description:"OFF: the Safe payment owners sign; null for ON"`
	PaymentStatus *string   `json:"paymentStatus" oas:"required" description:"OFF: the linked payment's status; null for ON"`
	FiatRef       *string   `json:"fiatRef" oas:"required" description:"simulated fiat reference, set once CONFIRMED"`
	Simulated     bool      `json:"simulated" oas:"required"`
	FailureReason *string   `json:"failureReason" oas:"required"`
	CreatedAt     time.Time `json:"createdAt" oas:"required"`
}

type rampListResponse struct {
	Ramps []rampResponse `json:"ramps" oas:"required"`
	Total int            `json:"total" oas:"required"`
}

func toRamp(v ramps.View) rampResponse {
	r := v.Ramp
	return rampResponse{RampID: r.ID, WalletID: r.WalletID, Direction: string(r.Direction), Provider: r.Provider,
		AmountUsd: core.FormatUSD(r.AmountBaseUnits), Status: string(v.Status), TxHash: strPtr(v.TxHash),
		PaymentID: strPtr(r.PaymentID), PaymentStatus: strPtr(v.PaymentStatus),
		FiatRef: strPtr(v.FiatRef), Simulated: true, FailureReason: strPtr(v.FailureReason), CreatedAt: r.CreatedAt}
}

func rampInput(r rampRequest) ramps.Input {
	return ramps.Input{WalletID: r.WalletID, Direction: r.Direction, Amount: r.Amount, Provider: r.Provider, TwofaChallengeID: r.TwofaChallengeID}
}
