package http

import "github.com/corridorhq/corridor/core/auth"

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
