package http

import (
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/ramps"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
)

// rampsHandlers serve on- and off-ramps.
type rampsHandlers struct{ svc *ramps.Service }

// rampEndpoints are the sandbox ramps (docs/api.md Endpoints, Ramps). Ramps are sandbox only: every
// route answers LIVE keys 403 SANDBOX_ONLY.
func (h *rampsHandlers) rampEndpoints() []Endpoint {
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	return []Endpoint{
		{Method: "POST", Path: "/v1/ramps", Summary: "TEST only: a simulated on-ramp (credits the wallet's Safe from the platform test pool and completes immediately: CONFIRMED with txHash) or off-ramp (a Safe payment to the platform liquidation address that owners sign)", Tag: "ramps",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeRampsWrite}, Request: rampRequest{}, SandboxOnly: true,
			Responses: map[int]any{201: rampResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 429: Envelope{}, 503: Envelope{}}, Prepare: h.createRamp, Committed: h.completeRamp},
		{Method: "GET", Path: "/v1/ramps", Summary: "TEST only: list ramps, newest first, with their live status", Tag: "ramps",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeRampsRead}, SandboxOnly: true,
			Params:    append([]Param{{Name: "walletId", In: "query", Description: "only ramps of this wallet"}}, paging...),
			Responses: map[int]any{200: rampListResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.listRamps},
		{Method: "GET", Path: "/v1/ramps/{id}", Summary: "TEST only: a ramp with its live status", Tag: "ramps",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeRampsRead}, Params: []Param{{Name: "id", In: "path"}}, SandboxOnly: true,
			Responses: map[int]any{200: rampResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.getRamp},
	}
}

func (h *rampsHandlers) createRamp(c *fiber.Ctx) (fiber.Handler, error) {
	var req rampRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadRamp(c.UserContext(), principal(c), rampInput(req))
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		v, err := h.svc.CreateRamp(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toRamp(v))
	}, nil
}

// completeRamp answers a new on-ramp complete: after its unit of work committed, it waits for
// the credit's mint (ramps.Service.CompleteOnRamp) and answers CONFIRMED with the txHash. If
// the ramp cannot be read back, the committed answer stands.
func (h *rampsHandlers) completeRamp(c *fiber.Ctx) error {
	var created rampResponse
	if err := json.Unmarshal(c.Response().Body(), &created); err != nil || created.Direction != "ON" {
		return nil
	}
	v, err := h.svc.CompleteOnRamp(c.UserContext(), principal(c), created.RampID)
	if err != nil {
		return nil
	}
	return c.Status(fiber.StatusCreated).JSON(toRamp(v))
}

func (h *rampsHandlers) listRamps(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	views, total, err := h.svc.ListRamps(c.UserContext(), principal(c), c.Query("walletId"), page)
	if err != nil {
		return err
	}
	out := rampListResponse{Ramps: make([]rampResponse, len(views)), Total: total}
	for i, v := range views {
		out.Ramps[i] = toRamp(v)
	}
	return c.JSON(out)
}

func (h *rampsHandlers) getRamp(c *fiber.Ctx) error {
	v, err := h.svc.GetRamp(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toRamp(v))
}

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
