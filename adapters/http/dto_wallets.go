package http

import (
	"time"

	"github.com/corridorhq/corridor/app/wallets"
	"github.com/corridorhq/corridor/core/wallet"
)

type walletOwnerRequest struct {
	Address string  `json:"address" oas:"required,pattern=^0x[0-9a-fA-F]{40}$"`
	Role    string  `json:"role" oas:"required,enum=ADMIN_OWNER|FINANCE_OWNER|MERCHANT_OPERATOR|AGENT"`
	Label   *string `json:"label,omitempty" oas:"maxLength=100"`
}

type walletCreateRequest struct {
	Name      string               `json:"name" oas:"required,maxLength=100"`
	Owners    []walletOwnerRequest `json:"owners" oas:"required"`
	Threshold *int                 `json:"threshold,omitempty"`
	ChainID   *int64               `json:"chainId,omitempty"`
}

func (r walletCreateRequest) input() wallets.CreateWalletInput {
	owners := make([]wallet.OwnerInput, len(r.Owners))
	for i, o := range r.Owners {
		owners[i] = wallet.OwnerInput{Address: o.Address, Role: o.Role, Label: o.Label}
	}
	return wallets.CreateWalletInput{Name: r.Name, Owners: owners, Threshold: r.Threshold, ChainID: r.ChainID}
}

type walletOwnerResponse struct {
	Address string  `json:"address" oas:"required"`
	Role    string  `json:"role" oas:"required,enum=ADMIN_OWNER|FINANCE_OWNER|MERCHANT_OPERATOR|AGENT"`
	Label   *string `json:"label" oas:"required"`
}

// walletResponse is docs/api.md's Wallet without balances (lists), plus failureReason, null unless
// the deployment FAILED.
type walletResponse struct {
	ID               string                `json:"id" oas:"required"`
	Address          string                `json:"address" oas:"required"`
	Status           string                `json:"status" oas:"required,enum=PENDING_DEPLOYMENT|DEPLOYING|DEPLOYED|FAILED"`
	ChainID          int64                 `json:"chainId" oas:"required"`
	Threshold        int                   `json:"threshold" oas:"required"`
	PredictedAddress bool                  `json:"predictedAddress" oas:"required" description:"True until the wallet is DEPLOYED: address is where the deployment job will put the Safe (safe to fund already); false once it is there."`
	Name             string                `json:"name" oas:"required"`
	Purpose          string                `json:"purpose" oas:"required,enum=GENERAL|AGENT|TREASURY|ESCROW" description:"What the wallet is for: GENERAL (created by the partner), AGENT (an agent's own), TREASURY (a treasury bucket) or ESCROW (an invoice's hold Safe)."`
	Owners           []walletOwnerResponse `json:"owners" oas:"required"`
	FailureReason    *string               `json:"failureReason" oas:"required"`
	CreatedAt        time.Time             `json:"createdAt" oas:"required"`
}

type balanceResponse struct {
	Asset    string `json:"asset" oas:"required,enum=usdc|eth"`
	Amount   string `json:"amount" oas:"required"`
	Decimals int32  `json:"decimals" oas:"required"`
}

// walletDetailResponse is the get-one Wallet: balances are live, or null when the chain could
// not be read.
type walletDetailResponse struct {
	walletResponse
	Balances *[]balanceResponse `json:"balances" oas:"required" description:"The wallet's live balances (USDC and ETH) read from the chain; null when the chain cannot be read."` // pointer: documented as nullable
}

type walletListResponse struct {
	Wallets []walletResponse `json:"wallets" oas:"required" description:"The wallets; the page asked for (skip/take)."`
	Total   int              `json:"total" oas:"required"`
}

func toWallet(w wallet.Wallet) walletResponse {
	owners := make([]walletOwnerResponse, len(w.Owners))
	for i, o := range w.Owners {
		owners[i] = walletOwnerResponse{Address: o.Address, Role: string(o.Role), Label: strPtr(o.Label)}
	}
	return walletResponse{
		ID: w.ID, Address: w.Address, Status: string(w.Status), ChainID: w.ChainID, Threshold: w.Threshold,
		PredictedAddress: w.PredictedAddress(), Name: w.Name, Purpose: string(w.Purpose), Owners: owners,
		FailureReason: strPtr(w.FailureReason), CreatedAt: w.CreatedAt,
	}
}

func toWalletDetail(v wallets.WalletView) walletDetailResponse {
	out := walletDetailResponse{walletResponse: toWallet(v.Wallet)}
	if v.Balances != nil {
		balances := make([]balanceResponse, len(v.Balances))
		for i, b := range v.Balances {
			balances[i] = balanceResponse{Asset: string(b.Asset), Amount: wallet.FormatBigAmount(b.Asset, b.AmountBaseUnits), Decimals: b.Asset.Decimals()}
		}
		out.Balances = &balances
	}
	return out
}

type handlePutRequest struct {
	Handle      string  `json:"handle" oas:"required,pattern=^@?[A-Za-z0-9][A-Za-z0-9_-]{1,30}[A-Za-z0-9]$"`
	WalletID    string  `json:"walletId" oas:"required"`
	DisplayName *string `json:"displayName,omitempty" oas:"maxLength=100"`
}

type handleInfoResponse struct {
	Handle      string  `json:"handle" oas:"required"`
	DisplayName *string `json:"displayName" oas:"required"`
	Address     string  `json:"address" oas:"required"`
	ChainID     int64   `json:"chainId" oas:"required"`
	Verified    bool    `json:"verified" oas:"required"`
}

func toHandleInfo(v wallets.HandleView) handleInfoResponse {
	return handleInfoResponse{Handle: v.Handle.Handle, DisplayName: strPtr(v.Handle.DisplayName),
		Address: v.Wallet.Address, ChainID: v.Wallet.ChainID, Verified: v.Handle.Verified}
}
