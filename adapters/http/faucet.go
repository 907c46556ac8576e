package http

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/faucet"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/wallet"
)

// faucetHandlers serve the sandbox faucet: funding a TEST wallet and its drips.
type faucetHandlers struct{ svc *faucet.Service }

// faucetEndpoints are the sandbox faucet's routes: fund a TEST wallet, read its drips.
func (h *faucetHandlers) faucetEndpoints() []Endpoint {
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	pathID := []Param{{Name: "id", In: "path"}}
	fund := []auth.Scope{auth.ScopeWalletsFund}
	return []Endpoint{
		{Method: "POST", Path: "/v1/wallets/{id}/fund", Summary: "TEST only: fund a wallet from the faucet (usdc default 250, max 1000; eth default and max 0.02)", Tag: "faucet",
			Auth: authRequired, Scopes: fund, SandboxOnly: true, Params: pathID, Request: fundRequest{},
			Responses: map[int]any{201: dripResponse{}, 403: Envelope{}, 404: Envelope{}, 429: Envelope{}, 503: Envelope{}}, Handler: h.fundWallet},
		{Method: "GET", Path: "/v1/faucet/drips", Summary: "TEST only: list faucet drips, newest first", Tag: "faucet",
			Auth: authRequired, Scopes: fund, SandboxOnly: true,
			Params:    append([]Param{{Name: "walletId", In: "query", Description: "only drips of this wallet"}}, paging...),
			Responses: map[int]any{200: dripListResponse{}, 404: Envelope{}}, Handler: h.listDrips},
		{Method: "GET", Path: "/v1/faucet/drips/{dripId}", Summary: "TEST only: a faucet drip", Tag: "faucet",
			Auth: authRequired, Scopes: fund, SandboxOnly: true, Params: []Param{{Name: "dripId", In: "path"}},
			Responses: map[int]any{200: dripResponse{}, 404: Envelope{}}, Handler: h.getDrip},
	}
}

func (h *faucetHandlers) fundWallet(c *fiber.Ctx) error {
	var req fundRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	d, err := h.svc.FundWallet(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")),
		faucet.FundInput{Asset: req.Asset, Amount: req.Amount})
	if err != nil {
		return withRetryAfter(c, err)
	}
	return c.Status(fiber.StatusCreated).JSON(toDrip(d))
}

func (h *faucetHandlers) listDrips(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	drips, total, err := h.svc.ListDrips(c.UserContext(), principal(c), c.Query("walletId"), page)
	if err != nil {
		return err
	}
	out := dripListResponse{Drips: make([]dripResponse, len(drips)), Total: total}
	for i, d := range drips {
		out.Drips[i] = toDrip(d)
	}
	return c.JSON(out)
}

func (h *faucetHandlers) getDrip(c *fiber.Ctx) error {
	d, err := h.svc.GetDrip(c.UserContext(), principal(c), strings.TrimSpace(c.Params("dripId")))
	if err != nil {
		return err
	}
	return c.JSON(toDrip(d))
}

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
