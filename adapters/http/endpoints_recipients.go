package http

import "github.com/corridorhq/corridor/core/auth"

// recipientEndpoints are the routes of off-ramp recipients: phone aliases, credentials, payout
// destinations and their sandbox helpers. They take identity:read / identity:write (docs/api.md
// does not show their scopes; they describe who the tenant is and where it is paid).
func (h *recipientsHandlers) recipientEndpoints() []Endpoint {
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	pathID := []Param{{Name: "id", In: "path"}}
	read, write := []auth.Scope{auth.ScopeIdentityRead}, []auth.Scope{auth.ScopeIdentityWrite}
	return []Endpoint{
		{Method: "POST", Path: "/v1/phone-aliases", Summary: "Start proving a phone number: a 6-digit code is sent by SMS (docs/decisions/offramp.md)", Tag: "phone-aliases",
			Auth: authRequired, Scopes: write, Request: phoneAliasCreateRequest{},
			Responses: map[int]any{201: phoneAliasResponse{}, 400: Envelope{}, 422: Envelope{}, 429: Envelope{}, 501: Envelope{}}, Handler: h.createPhoneAlias},
		{Method: "POST", Path: "/v1/phone-aliases/{id}/verify", Summary: "Verify a phone alias with its code (6 digits, 5 attempts, expires)", Tag: "phone-aliases",
			Auth: authRequired, Scopes: write, Params: pathID, Request: phoneAliasVerifyRequest{},
			Responses: map[int]any{200: phoneAliasResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}, 422: Envelope{}, 429: Envelope{}, 501: Envelope{}}, Prepare: h.heldPrepared(h.verifyPhoneAlias)},
		{Method: "POST", Path: "/v1/phone-aliases/{id}/reverify", Summary: "Prove a VERIFIED alias's phone again: a fresh 6-digit code is sent by SMS, verified with /verify; the alias keeps resolving meanwhile (the exit of PHONE_REVERIFICATION_REQUIRED)", Tag: "phone-aliases",
			Auth: authRequired, Scopes: write, Params: pathID,
			Responses: map[int]any{200: phoneAliasResponse{}, 404: Envelope{}, 409: Envelope{}, 429: Envelope{}, 501: Envelope{}}, Handler: h.reverifyPhoneAlias},
		{Method: "GET", Path: "/v1/phone-aliases", Summary: "List the caller's phone aliases (numbers masked)", Tag: "phone-aliases",
			Auth: authRequired, Scopes: read, Params: paging,
			Responses: map[int]any{200: phoneAliasListResponse{}}, Handler: h.listPhoneAliases},
		{Method: "GET", Path: "/v1/sandbox/sms-messages", Summary: "TEST only: the caller's sandbox SMS outbox (numbers masked)", Tag: "sandbox",
			Auth: authRequired, Scopes: read, Params: paging,
			Responses: map[int]any{200: smsMessageListResponse{}, 403: Envelope{}, 501: Envelope{}}, Handler: h.listSandboxSMS},
		{Method: "GET", Path: "/v1/credentials", Summary: "The caller's BUSINESS_IDENTITY credential (status null when none)", Tag: "credentials",
			Auth: authRequired, Scopes: read, Responses: map[int]any{200: credentialListResponse{}}, Handler: h.listCredentials},
		{Method: "POST", Path: "/v1/sandbox/credentials", Summary: "TEST only: set the caller's BUSINESS_IDENTITY credential status (docs/decisions/ramps.md)", Tag: "sandbox",
			Auth: authRequired, Scopes: write, Request: credentialSetRequest{},
			Responses: map[int]any{200: credentialResponse{}, 400: Envelope{}, 403: Envelope{}}, Prepare: h.heldPrepared(h.setSandboxCredential)},
		{Method: "POST", Path: "/v1/payout-destinations", Summary: "Add a payout destination (needs an ACTIVE BUSINESS_IDENTITY credential); identifiers are immutable and never returned", Tag: "payout-destinations",
			Auth: authRequired, Scopes: write, Request: destinationCreateRequest{},
			Responses: map[int]any{201: destinationResponse{}, 400: Envelope{}, 422: Envelope{}, 501: Envelope{}}, Prepare: h.heldPrepared(h.createDestination)},
		{Method: "GET", Path: "/v1/payout-destinations", Summary: "List the caller's payout destinations (masked labels)", Tag: "payout-destinations",
			Auth: authRequired, Scopes: read, Params: paging,
			Responses: map[int]any{200: destinationListResponse{}}, Handler: h.listDestinations},
		{Method: "GET", Path: "/v1/payout-destinations/{id}", Summary: "A payout destination (masked label)", Tag: "payout-destinations",
			Auth: authRequired, Scopes: read, Params: pathID,
			Responses: map[int]any{200: destinationResponse{}, 404: Envelope{}}, Handler: h.getDestination},
	}
}
