package http

import "corridor/core/auth"

// offrampEndpoints are the routes of phone-addressed off-ramp payments and their recipients'
// aliases, credentials, payout destinations, provider webhooks and sandbox helpers. Aliases,
// credentials and destinations take identity:read / identity:write (SPEC.md does not show
// their scopes; they describe who the tenant is and where it is paid).
func (s *Server) offrampEndpoints() []Endpoint {
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	pathID := []Param{{Name: "id", In: "path"}}
	read, write := []auth.Scope{auth.ScopeIdentityRead}, []auth.Scope{auth.ScopeIdentityWrite}
	return []Endpoint{
		{Method: "POST", Path: "/v1/phone-aliases", Summary: "Start proving a phone number: a 6-digit code is sent by SMS (D7)", Tag: "phone-aliases",
			Auth: authRequired, Scopes: write, Request: phoneAliasCreateRequest{},
			Responses: map[int]any{201: phoneAliasResponse{}, 400: Envelope{}, 422: Envelope{}, 429: Envelope{}, 501: Envelope{}}, Handler: s.createPhoneAlias},
		{Method: "POST", Path: "/v1/phone-aliases/{id}/verify", Summary: "Verify a phone alias with its code (6 digits, 5 attempts, expires)", Tag: "phone-aliases",
			Auth: authRequired, Scopes: write, Params: pathID, Request: phoneAliasVerifyRequest{},
			Responses: map[int]any{200: phoneAliasResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}, 422: Envelope{}, 429: Envelope{}, 501: Envelope{}}, Handler: s.verifyPhoneAlias},
		{Method: "POST", Path: "/v1/phone-aliases/{id}/reverify", Summary: "Prove a VERIFIED alias's phone again: a fresh 6-digit code is sent by SMS, verified with /verify; the alias keeps resolving meanwhile (the exit of PHONE_REVERIFICATION_REQUIRED)", Tag: "phone-aliases",
			Auth: authRequired, Scopes: write, Params: pathID,
			Responses: map[int]any{200: phoneAliasResponse{}, 404: Envelope{}, 409: Envelope{}, 429: Envelope{}, 501: Envelope{}}, Handler: s.reverifyPhoneAlias},
		{Method: "GET", Path: "/v1/phone-aliases", Summary: "List the caller's phone aliases (numbers masked)", Tag: "phone-aliases",
			Auth: authRequired, Scopes: read, Params: paging,
			Responses: map[int]any{200: phoneAliasListResponse{}}, Handler: s.listPhoneAliases},
		{Method: "GET", Path: "/v1/sandbox/sms-messages", Summary: "TEST only: the caller's sandbox SMS outbox (numbers masked)", Tag: "sandbox",
			Auth: authRequired, Scopes: read, Params: paging,
			Responses: map[int]any{200: smsMessageListResponse{}, 403: Envelope{}, 501: Envelope{}}, Handler: s.listSandboxSMS},
		{Method: "GET", Path: "/v1/credentials", Summary: "The caller's BUSINESS_IDENTITY credential (status null when none)", Tag: "credentials",
			Auth: authRequired, Scopes: read, Responses: map[int]any{200: credentialListResponse{}}, Handler: s.listCredentials},
		{Method: "POST", Path: "/v1/sandbox/credentials", Summary: "TEST only: set the caller's BUSINESS_IDENTITY credential status (D8)", Tag: "sandbox",
			Auth: authRequired, Scopes: write, Request: credentialSetRequest{},
			Responses: map[int]any{200: credentialResponse{}, 400: Envelope{}, 403: Envelope{}}, Handler: s.setSandboxCredential},
		{Method: "POST", Path: "/v1/payout-destinations", Summary: "Add a payout destination (needs an ACTIVE BUSINESS_IDENTITY credential); identifiers are immutable and never returned", Tag: "payout-destinations",
			Auth: authRequired, Scopes: write, Request: destinationCreateRequest{},
			Responses: map[int]any{201: destinationResponse{}, 400: Envelope{}, 422: Envelope{}, 501: Envelope{}}, Handler: s.createDestination},
		{Method: "GET", Path: "/v1/payout-destinations", Summary: "List the caller's payout destinations (masked labels)", Tag: "payout-destinations",
			Auth: authRequired, Scopes: read, Params: paging,
			Responses: map[int]any{200: destinationListResponse{}}, Handler: s.listDestinations},
		{Method: "GET", Path: "/v1/payout-destinations/{id}", Summary: "A payout destination (masked label)", Tag: "payout-destinations",
			Auth: authRequired, Scopes: read, Params: pathID,
			Responses: map[int]any{200: destinationResponse{}, 404: Envelope{}}, Handler: s.getDestination},
	}
}

// offrampPaymentEndpoints are SPEC.md's off-ramp payment table, the signed provider webhooks
// and the sandbox helpers (D10). Served only when the offrampPayments feature is on.
func (s *Server) offrampPaymentEndpoints() []Endpoint {
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	pathID := []Param{{Name: "id", In: "path"}}
	read, write := []auth.Scope{auth.ScopeRampsRead}, []auth.Scope{auth.ScopeRampsWrite}
	return []Endpoint{
		{Method: "POST", Path: "/v1/offramp/payments", Summary: "Pay a phone number: resolve, reserve, run the policy composer, quote routes", Tag: "offramp",
			Auth: authRequired, Scopes: write, Request: offrampPaymentCreateRequest{},
			Responses: map[int]any{201: offrampPaymentResponse{}, 400: Envelope{}, 403: Envelope{}, 422: Envelope{}, 429: Envelope{}, 501: Envelope{}, 503: Envelope{}}, Handler: s.createOfframpPayment},
		{Method: "GET", Path: "/v1/offramp/payments", Summary: "Off-ramp payments the caller sends or receives, newest first", Tag: "offramp",
			Auth: authRequired, Scopes: read, Params: paging,
			Responses: map[int]any{200: offrampPaymentListResponse{}}, Handler: s.listOfframpPayments},
		{Method: "GET", Path: "/v1/offramp/payments/{id}", Summary: "An off-ramp payment (sender or recipient; no quotes)", Tag: "offramp",
			Auth: authRequired, Scopes: read, Params: pathID,
			Responses: map[int]any{200: offrampPaymentResponse{}, 404: Envelope{}}, Handler: s.getOfframpPayment},
		{Method: "GET", Path: "/v1/offramp/payments/{id}/routes", Summary: "The payment's current active quote set", Tag: "offramp",
			Auth: authRequired, Scopes: read, Params: pathID,
			Responses: map[int]any{200: payoutRouteQuotesResponse{}, 404: Envelope{}}, Handler: s.offrampPaymentPayoutRoutes},
		{Method: "POST", Path: "/v1/offramp/payments/{id}/select-route", Summary: "Recipient only: select a route quote of the active set", Tag: "offramp",
			Auth: authRequired, Scopes: write, Params: pathID, Request: payoutRouteSelectRequest{},
			Responses: map[int]any{200: offrampPaymentResponse{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Handler: s.selectPayoutRoute},
		{Method: "POST", Path: "/v1/offramp/payments/{id}/confirm", Summary: "Recipient only: confirm the selected route; locks funds (FUNDS_LOCKED)", Tag: "offramp",
			Auth: authRequired, Scopes: write, Params: pathID,
			Responses: map[int]any{200: offrampPaymentResponse{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Handler: s.confirmOfframpPayment},
		{Method: "POST", Path: "/v1/offramp/payments/{id}/cancel", Summary: "Sender only, while unfunded: cancel and release the reservation", Tag: "offramp",
			Auth: authRequired, Scopes: write, Params: pathID,
			Responses: map[int]any{200: offrampPaymentResponse{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Handler: s.cancelOfframpPayment},
		{Method: "POST", Path: "/v1/providers/{provider}/webhooks", Public: "payout provider callback, authorized by its HMAC signature", Summary: "Signed payout provider webhook: HMAC-SHA256 over \"<timestamp>.<raw body>\"", Tag: "providers",
			Auth: authNone, Params: []Param{{Name: "provider", In: "path"}},
			Responses: map[int]any{200: providerWebhookResponse{}, 400: Envelope{}, 401: Envelope{}}, Handler: s.providerWebhook},
		{Method: "POST", Path: "/v1/sandbox/offramp/payments/{id}/expire-quotes", Summary: "TEST only: the payment's active quote set expires now and the payment goes where time would take it: POLICY_CHECK, then a fresh set (or a hold)", Tag: "sandbox",
			Auth: authRequired, Scopes: write, Params: pathID,
			Responses: map[int]any{200: offrampPaymentResponse{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Handler: s.expireOfframpPaymentQuotes},
		{Method: "POST", Path: "/v1/sandbox/offramp/payments/{id}/provider-step", Summary: "TEST only: move the payment's payout provider one step (one poll, as a signed webhook)", Tag: "sandbox",
			Auth: authRequired, Scopes: write, Params: pathID,
			Responses: map[int]any{200: offrampPaymentResponse{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Handler: s.offrampPaymentProviderStep},
	}
}
