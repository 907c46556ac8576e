package http

import (
	"time"

	"github.com/corridorhq/corridor/core/wallet"
)

type fundRequest struct {
	Asset  *string `json:"asset,omitempty" oas:"enum=usdc|eth"`
	Amount *string `json:"amount,omitempty"`
}

type dripResponse struct {
	ID            string    `json:"id" oas:"required"`
	WalletID      string    `json:"walletId" oas:"required"`
	Asset         string    `json:"asset" oas:"required,enum=usdc|eth"`
	Amount        string    `json:"amount" oas:"required"`
	ChainID       int64     `json:"chainId" oas:"required"`
	Status        string    `json:"status" oas:"required,enum=SUBMITTED|CONFIRMED|FAILED"`
	TxHash        *string   `json:"txHash" oas:"required"`
	FailureReason *string   `json:"failureReason" oas:"required"`
	CreatedAt     time.Time `json:"createdAt" oas:"required"`
}

type dripListResponse struct {
	Drips []dripResponse `json:"drips" oas:"required"`
	Total int            `json:"total" oas:"required"`
}

// toDrip renders a drip. txHash shows once the drip is CONFIRMED (docs/api.md: "set when
// confirmed"); while SUBMITTED the hash the job recorded stays internal.
func toDrip(d wallet.Drip) dripResponse {
	out := dripResponse{
		ID: d.ID, WalletID: d.WalletID, Asset: string(d.Asset), Amount: wallet.FormatAmount(d.Asset, d.AmountBaseUnits),
		ChainID: d.ChainID, Status: string(d.Status), FailureReason: strPtr(d.FailureReason), CreatedAt: d.CreatedAt,
	}
	if d.Status != wallet.DripSubmitted {
		out.TxHash = strPtr(d.TxHash)
	}
	return out
}
