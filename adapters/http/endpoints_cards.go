package http

import "github.com/corridorhq/corridor/core/auth"

// cardEndpoints are the routes of cards (docs/api.md Cards, docs/decisions/cards.md).
func (h *cardsHandlers) cardEndpoints() []Endpoint {
	pathID := []Param{{Name: "id", In: "path"}}
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	read := []auth.Scope{auth.ScopeCardsRead}
	issue := []auth.Scope{auth.ScopeCardsIssue}
	manage := []auth.Scope{auth.ScopeCardsManage}
	return []Endpoint{
		{Method: "POST", Path: "/v1/wallets/{walletId}/cards", Summary: "Issue a card spending from a DEPLOYED wallet's Safe (the Safe must have the card spend module enabled); with agentId, the agent's card on its own wallet, as POST /v1/agents/{id}/cards", Tag: "cards",
			Auth: authRequired, Scopes: issue, Params: []Param{{Name: "walletId", In: "path"}}, Request: cardIssueRequest{}, SandboxOnly: true,
			Responses: map[int]any{201: cardResponse{}, 400: Envelope{}, 404: Envelope{}, 409: Envelope{}, 503: Envelope{}}, Prepare: h.issueWalletCard,
			AgentSuspendedConflict: true},
		{Method: "POST", Path: "/v1/cardholders", Summary: "Create a cardholder", Tag: "cards",
			Auth: authRequired, SandboxOnly: true, Scopes: issue, Request: cardholderRequest{},
			Responses: map[int]any{201: cardholderResponse{}, 400: Envelope{}}, Handler: h.createCardholder},
		{Method: "GET", Path: "/v1/cardholders", Summary: "List cardholders, newest first", Tag: "cards",
			Auth: authRequired, SandboxOnly: true, Scopes: read, Params: paging,
			Responses: map[int]any{200: cardholderListResponse{}}, Handler: h.listCardholders},
		{Method: "POST", Path: "/v1/cards", Summary: "Issue a card for a cardholder, drawing on the tenant's funding card account", Tag: "cards",
			Auth: authRequired, Scopes: issue, Request: cardholderCardRequest{}, SandboxOnly: true,
			Responses: map[int]any{201: cardResponse{}, 400: Envelope{}, 404: Envelope{}}, Prepare: h.issueCardholderCard},
		{Method: "GET", Path: "/v1/cards", Summary: "List cards, newest first", Tag: "cards",
			Auth: authRequired, Scopes: read, Params: paging,
			Responses: map[int]any{200: cardListResponse{}}, Handler: h.listCards},
		{Method: "GET", Path: "/v1/cards/{id}", Summary: "A card", Tag: "cards",
			Auth: authRequired, Scopes: read, Params: pathID,
			Responses: map[int]any{200: cardResponse{}, 404: Envelope{}}, Handler: h.getCard},
		{Method: "GET", Path: "/v1/cards/{id}/limits", Summary: "A card's limits", Tag: "cards",
			Auth: authRequired, Scopes: read, Params: pathID,
			Responses: map[int]any{200: cardLimitsResponse{}, 404: Envelope{}}, Handler: h.getCardLimits},
		{Method: "PUT", Path: "/v1/cards/{id}/limits", Summary: "Change a card's limits: only sent fields change; null clears a cap or the allowlist; blockedMcc replaces the list", Tag: "cards",
			Auth: authRequired, Scopes: manage, Params: pathID, Request: cardLimitsRequest{},
			Responses: map[int]any{200: cardLimitsResponse{}, 400: Envelope{}, 404: Envelope{}}, Handler: h.putCardLimits},
		{Method: "POST", Path: "/v1/cards/{id}/freeze", Summary: "Freeze a card (reversible): its authorizations decline CARD_INACTIVE", Tag: "cards",
			Auth: authRequired, Scopes: manage, Params: pathID,
			Responses: map[int]any{200: cardResponse{}, 404: Envelope{}}, Handler: h.freezeCard},
		{Method: "POST", Path: "/v1/cards/{id}/unfreeze", Summary: "Unfreeze a card", Tag: "cards",
			Auth: authRequired, Scopes: manage, Params: pathID,
			Responses: map[int]any{200: cardResponse{}, 404: Envelope{}}, Handler: h.unfreezeCard},
		{Method: "POST", Path: "/v1/cards/{id}/ephemeral-keys", Summary: "A push-provisioning ephemeral key (5 a minute per client IP; 400 under the funding_account issuing provider)", Tag: "cards",
			Auth: authRequired, Scopes: manage, Params: pathID, Request: ephemeralKeyRequest{},
			Responses: map[int]any{201: ephemeralKeyResponse{}, 400: Envelope{}, 404: Envelope{}, 429: Envelope{}}, Prepare: h.createEphemeralKey,
			SecretFields: []string{"ephemeralKey"}},
		{Method: "GET", Path: "/v1/cards/{id}/authorizations", Summary: "A card's authorizations with their decisions, newest first", Tag: "cards",
			Auth: authRequired, Scopes: read, Params: append(append([]Param{}, pathID...), paging...),
			Responses: map[int]any{200: cardAuthorizationListResponse{}, 404: Envelope{}}, Handler: h.listCardAuthorizations},
		{Method: "POST", Path: "/v1/sandbox/cards/{id}/authorizations", Summary: "Simulate an authorization at a till: approved (a ledger hold) or declined with its reason", Tag: "sandbox",
			Auth: authRequired, Scopes: manage, Params: pathID, Request: cardAuthorizationRequest{},
			Responses: map[int]any{201: cardAuthorizationResponse{}, 400: Envelope{}, 404: Envelope{}}, Handler: h.sandboxAuthorize},
		{Method: "POST", Path: "/v1/sandbox/card-authorizations/{id}/capture", Summary: "Capture an APPROVED authorization in whole or in part; the captured spend settles on chain", Tag: "sandbox",
			Auth: authRequired, Scopes: manage, Params: pathID, Request: cardCaptureRequest{},
			Responses: map[int]any{200: cardAuthorizationResponse{}, 400: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Handler: h.sandboxCapture},
		{Method: "POST", Path: "/v1/sandbox/card-authorizations/{id}/reverse", Summary: "Reverse an APPROVED authorization: the hold is voided and its windows credited back", Tag: "sandbox",
			Auth: authRequired, Scopes: manage, Params: pathID,
			Responses: map[int]any{200: cardAuthorizationResponse{}, 404: Envelope{}, 409: Envelope{}}, Handler: h.sandboxReverse},
	}
}
