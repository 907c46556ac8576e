package http

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/claims"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/claim"
)

// claimsHandlers serve pending claims and their public claim links, throttled per client IP.
type claimsHandlers struct {
	svc     *claims.Service
	limiter callerLimiter
}

// claimEndpoints are the pending-claim operations (docs/api.md Claims; paths of docs/architecture.md): the
// token-authorized public inspect, phone code and confirm; redeem with the recipient's
// credentials; the sender's claim read, resend and refund request; the sandbox expiry helper.
// Served only when the pendingClaims feature is on (a claim escrow is configured).
func (h *claimsHandlers) claimEndpoints() []Endpoint {
	token := []Param{{Name: "claimToken", In: "path", Description: "the claim link's token"}}
	claimID := []Param{{Name: "claimId", In: "path"}}
	read, write := []auth.Scope{auth.ScopeRampsRead}, []auth.Scope{auth.ScopeRampsWrite}
	return []Endpoint{
		{Method: "GET", Path: "/v1/claims/{claimToken}", Public: "the claim link token authorizes it (docs/api.md Authentication 3)", Summary: "Public: inspect a claim link (the token authorizes; throttled per IP; no-referrer, no-store)", Tag: "claims",
			Auth: authNone, Params: token,
			Responses: map[int]any{200: claimPublicResponse{}, 404: Envelope{}, 409: Envelope{}, 429: Envelope{}}, Handler: h.inspectClaim},
		{Method: "POST", Path: "/v1/claims/{claimToken}/phone-code", Public: "the claim link token authorizes it (docs/api.md Authentication 3)", Summary: "Public: text a 6-digit code to the phone on the claim record (budgeted per phone and per IP)", Tag: "claims",
			Auth: authNone, Params: token,
			Responses: map[int]any{201: claimChallengeResponse{}, 404: Envelope{}, 409: Envelope{}, 429: Envelope{}, 501: Envelope{}}, Handler: h.sendClaimPhoneCode},
		{Method: "POST", Path: "/v1/claims/{claimToken}/phone-code/verify", Public: "the claim link token authorizes it (docs/api.md Authentication 3)", Summary: "Public: confirm the phone code (5 attempts per challenge, then it is cancelled)", Tag: "claims",
			Auth: authNone, Params: token, Request: claimCodeVerifyRequest{},
			Responses: map[int]any{200: claimChallengeVerifyResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}, 429: Envelope{}, 501: Envelope{}}, Handler: h.verifyClaimPhoneCode},
		{Method: "POST", Path: "/v1/claims/{claimToken}/redeem", Summary: "Redeem a claim into the caller's tenant: a VERIFIED challenge and one of the caller's ACTIVE destinations; the full policy composer runs", Tag: "claims",
			Auth: authRequired, Scopes: write, Params: token, Request: claimRedeemRequest{},
			Responses: map[int]any{200: claimRedeemResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 501: Envelope{}}, Prepare: h.redeemClaim},
		{Method: "GET", Path: "/v1/offramp/claims/{claimId}", Summary: "Sender only: a claim with its escrow transactions", Tag: "claims",
			Auth: authRequired, Scopes: read, Params: claimID,
			Responses: map[int]any{200: claimResponse{}, 404: Envelope{}}, Handler: h.getClaim},
		{Method: "POST", Path: "/v1/offramp/claims/{claimId}/resend", Summary: "Sender only, budgeted: text a fresh claim link (the old one stops working)", Tag: "claims",
			Auth: authRequired, Scopes: write, Params: claimID,
			Responses: map[int]any{200: claimResendResponse{}, 404: Envelope{}, 409: Envelope{}, 429: Envelope{}, 501: Envelope{}}, Handler: h.resendClaim},
		{Method: "POST", Path: "/v1/offramp/claims/{claimId}/refund-request", Summary: "Sender only: refund an expired claim (409 before expiry; idempotent)", Tag: "claims",
			Auth: authRequired, Scopes: write, Params: claimID,
			Responses: map[int]any{200: claimRefundResponse{}, 404: Envelope{}, 409: Envelope{}}, Handler: h.requestClaimRefund},
		{Method: "POST", Path: "/v1/sandbox/offramp/claims/{claimId}/expire", Summary: "TEST only: the claim's lifetime ends now (then as the expiry job)", Tag: "sandbox",
			Auth: authRequired, Scopes: write, Params: claimID,
			Responses: map[int]any{200: claimRefundResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.expireClaim},
	}
}

// publicClaimHeaders keep the link token out of referrers and caches.
func publicClaimHeaders(c *fiber.Ctx) {
	c.Set("Referrer-Policy", "no-referrer")
	c.Set(fiber.HeaderCacheControl, "no-store")
}

// throttleClaimIP charges the client IP's claim-link bucket (docs/api.md: inspect is throttled).
func (h *claimsHandlers) throttleClaimIP(c *fiber.Ctx) error {
	ok, wait := h.limiter.allow("claim-ip:"+c.IP(), time.Now())
	if ok {
		return nil
	}
	c.Set(fiber.HeaderRetryAfter, retryAfter(wait))
	return (&core.Error{Code: core.CodeRateLimited, Message: "too many claim link requests from this address; retry after the Retry-After seconds"}).
		WithDetails(map[string]any{"retryAfterSeconds": retryAfter(wait)})
}

func claimToken(c *fiber.Ctx) string { return strings.TrimSpace(c.Params("claimToken")) }

func (h *claimsHandlers) inspectClaim(c *fiber.Ctx) error {
	publicClaimHeaders(c)
	if err := h.throttleClaimIP(c); err != nil {
		return err
	}
	v, err := h.svc.InspectClaim(c.UserContext(), claimToken(c))
	if err != nil {
		return err
	}
	return c.JSON(toClaimPublic(v))
}

func (h *claimsHandlers) sendClaimPhoneCode(c *fiber.Ctx) error {
	publicClaimHeaders(c)
	if err := h.throttleClaimIP(c); err != nil {
		return err
	}
	ch, err := h.svc.SendClaimPhoneCode(c.UserContext(), claimToken(c), c.IP())
	if err != nil {
		return withRetryAfter(c, err)
	}
	return c.Status(fiber.StatusCreated).JSON(claimChallengeResponse{ChallengeID: ch.ChallengeID, ExpiresAt: ch.ExpiresAt})
}

func (h *claimsHandlers) verifyClaimPhoneCode(c *fiber.Ctx) error {
	publicClaimHeaders(c)
	if err := h.throttleClaimIP(c); err != nil {
		return err
	}
	var req claimCodeVerifyRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	ch, err := h.svc.VerifyClaimPhoneCode(c.UserContext(), claimToken(c), req.ChallengeID, req.Code)
	if err != nil {
		return err
	}
	return c.JSON(claimChallengeVerifyResponse{ChallengeID: ch.ChallengeID, Verified: ch.Verified})
}

// redeemClaim screens the claim's payment while preparing, outside any transaction; the
// redeem (and the policy check it runs) applies in the runner's unit of work.
func (h *claimsHandlers) redeemClaim(c *fiber.Ctx) (fiber.Handler, error) {
	publicClaimHeaders(c)
	var req claimRedeemRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	if err := h.svc.PrepareRedeem(c.UserContext(), principal(c), claimToken(c)); err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		v, err := h.svc.RedeemClaim(c.UserContext(), principal(c), claimToken(c),
			claims.RedeemClaimInput{ChallengeID: req.ChallengeID, DestinationID: req.DestinationID})
		if err != nil {
			return err
		}
		return c.JSON(toClaimRedeem(v))
	}, nil
}

func (h *claimsHandlers) getClaim(c *fiber.Ctx) error {
	v, err := h.svc.GetClaim(c.UserContext(), principal(c), strings.TrimSpace(c.Params("claimId")))
	if err != nil {
		return err
	}
	return c.JSON(toClaim(v))
}

func (h *claimsHandlers) resendClaim(c *fiber.Ctx) error {
	cl, err := h.svc.ResendClaimLink(c.UserContext(), principal(c), strings.TrimSpace(c.Params("claimId")))
	if err != nil {
		return err
	}
	return c.JSON(claimResendResponse{ExpiresAt: cl.ExpiresAt})
}

func (h *claimsHandlers) requestClaimRefund(c *fiber.Ctx) error {
	v, err := h.svc.RequestClaimRefund(c.UserContext(), principal(c), strings.TrimSpace(c.Params("claimId")))
	if err != nil {
		return err
	}
	return c.JSON(toClaimRefund(v))
}

func (h *claimsHandlers) expireClaim(c *fiber.Ctx) error {
	v, err := h.svc.ExpireClaimNow(c.UserContext(), principal(c), strings.TrimSpace(c.Params("claimId")))
	if err != nil {
		return err
	}
	return c.JSON(toClaimRefund(v))
}

// claimLimit is the claim-link throttle per client IP.
var claimLimit = RateLimit{PerSecond: float64(claim.PublicViewPerIPLimit) / 60, Burst: claim.PublicViewPerIPLimit}

// claimPublicResponse is docs/api.md's claim public view: nothing personal beyond the masked phone.
type claimPublicResponse struct {
	AmountUSD   string    `json:"amountUsd" oas:"required"`
	AssetID     string    `json:"assetId" oas:"required"`
	ChainKey    string    `json:"chainKey" oas:"required"`
	Status      string    `json:"status" oas:"required"`
	ExpiresAt   time.Time `json:"expiresAt" oas:"required"`
	PhoneMasked string    `json:"phoneMasked" oas:"required"`
}

type claimChallengeResponse struct {
	ChallengeID string    `json:"challengeId" oas:"required"`
	ExpiresAt   time.Time `json:"expiresAt" oas:"required"`
}

type claimCodeVerifyRequest struct {
	ChallengeID string `json:"challengeId" oas:"required"`
	Code        string `json:"code" oas:"required" description:"6 digits"`
}

type claimChallengeVerifyResponse struct {
	ChallengeID string `json:"challengeId" oas:"required"`
	Verified    bool   `json:"verified" oas:"required"`
}

type claimRedeemRequest struct {
	ChallengeID   string `json:"challengeId" oas:"required" description:"a VERIFIED phone challenge of this claim"`
	DestinationID string `json:"destinationId" oas:"required" description:"one of the caller's ACTIVE payout destinations"`
}

type claimRedeemResponse struct {
	PaymentID   string                     `json:"paymentId" oas:"required"`
	Status      string                     `json:"status" oas:"required"`
	HoldReasons []string                   `json:"holdReasons" oas:"required"`
	Quotes      []payoutRouteQuoteResponse `json:"quotes" oas:"required"`
}

type claimResendResponse struct {
	ExpiresAt time.Time `json:"expiresAt" oas:"required"`
}

type claimRefundResponse struct {
	ClaimStatus   string  `json:"claimStatus" oas:"required" description:"The claim's status after the request (docs/claims.md lists the states); REFUNDED once the escrow has been refunded to the sender."`
	PaymentStatus string  `json:"paymentStatus" oas:"required"`
	RefundTxHash  *string `json:"refundTxHash" oas:"required"`
}

// claimResponse is a claim as its sender reads it, with the escrow transactions.
type claimResponse struct {
	ClaimID         string    `json:"claimId" oas:"required"`
	PaymentID       string    `json:"paymentId" oas:"required"`
	Status          string    `json:"status" oas:"required"`
	PaymentStatus   string    `json:"paymentStatus" oas:"required"`
	Funded          bool      `json:"funded" oas:"required" description:"the escrow funding is indexed on chain"`
	AmountUSD       string    `json:"amountUsd" oas:"required"`
	AssetID         string    `json:"assetId" oas:"required"`
	ChainKey        string    `json:"chainKey" oas:"required"`
	PhoneMasked     string    `json:"phoneMasked" oas:"required"`
	ExpiresAt       time.Time `json:"expiresAt" oas:"required"`
	Redeemed        bool      `json:"redeemed" oas:"required"`
	EscrowClaimID   string    `json:"escrowClaimId" oas:"required" description:"the opaque bytes32 id in the escrow contract"`
	MetadataHash    string    `json:"metadataHash" oas:"required" description:"The hash the escrow contract records with the claim: sha256 over the domain corridor.claim.metadata.v1, the escrow id and the payment id (0x…, 64 hex digits); never the phone."`
	DecisionHash    *string   `json:"decisionHash" oas:"required" description:"committed on chain with the release"`
	FundTxHash      *string   `json:"fundTxHash" oas:"required"`
	LockTxHash      *string   `json:"lockTxHash" oas:"required"`
	ReleaseTxHash   *string   `json:"releaseTxHash" oas:"required"`
	RefundTxHash    *string   `json:"refundTxHash" oas:"required"`
	CancelTxHash    *string   `json:"cancelTxHash" oas:"required"`
	CreatedAt       time.Time `json:"createdAt" oas:"required"`
	ResendsInWindow int       `json:"resendsInWindow" oas:"required"`
}

func toClaimPublic(v claim.PublicView) claimPublicResponse {
	return claimPublicResponse{AmountUSD: core.FormatUSD(v.AmountBaseUnits), AssetID: v.AssetID, ChainKey: v.ChainKey,
		Status: string(v.Status), ExpiresAt: v.ExpiresAt, PhoneMasked: v.PhoneMasked}
}

func toClaimRefund(v claims.ClaimView) claimRefundResponse {
	return claimRefundResponse{ClaimStatus: string(v.Claim.Status), PaymentStatus: string(v.Payment.Status),
		RefundTxHash: strPtr(v.Claim.RefundTxHash)}
}

func toClaim(v claims.ClaimView) claimResponse {
	c := v.Claim
	return claimResponse{ClaimID: c.ID, PaymentID: c.PaymentID, Status: string(c.Status), PaymentStatus: string(v.Payment.Status),
		Funded: c.Funded, AmountUSD: core.FormatUSD(c.AmountBaseUnits), AssetID: c.AssetID, ChainKey: c.ChainKey,
		PhoneMasked: c.PhoneMasked, ExpiresAt: c.ExpiresAt, Redeemed: c.RedeemedAt != nil, EscrowClaimID: c.OnchainID,
		MetadataHash: c.MetadataHash, DecisionHash: strPtr(c.DecisionHash), FundTxHash: strPtr(c.FundTxHash),
		LockTxHash: strPtr(c.LockTxHash), ReleaseTxHash: strPtr(c.ReleaseTxHash), RefundTxHash: strPtr(c.RefundTxHash),
		CancelTxHash: strPtr(c.CancelTxHash), CreatedAt: c.CreatedAt, ResendsInWindow: c.ResendCount}
}

func toClaimRedeem(v claims.RedeemView) claimRedeemResponse {
	p := toOfframpPayment(v.Payment)
	return claimRedeemResponse{PaymentID: p.PaymentID, Status: p.Status, HoldReasons: p.HoldReasons, Quotes: toPayoutRouteQuotes(v.Quotes)}
}
