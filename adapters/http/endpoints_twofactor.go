package http

import "github.com/corridorhq/corridor/core/auth"

// twoFactorEndpoints are the routes of contacts and two-factor approval (docs/architecture.md).
func (h *twoFactorHandlers) twoFactorEndpoints() []Endpoint {
	pathID := []Param{{Name: "id", In: "path"}}
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	manage := []auth.Scope{auth.ScopeTwofactorManage}
	read := []auth.Scope{auth.ScopeTwofactorRead}
	return []Endpoint{
		{Method: "POST", Path: "/v1/contacts", Summary: "Save a payee; payments to it are refused PAYEE_COOLING_OFF until its cooling-off window ends", Tag: "contacts",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeContactsWrite}, Request: contactCreateRequest{},
			Responses: map[int]any{201: contactResponse{}, 400: Envelope{}, 409: Envelope{}, 503: Envelope{}}, Handler: h.createContact},
		{Method: "GET", Path: "/v1/contacts", Summary: "List saved payees of the caller's environment, newest first", Tag: "contacts",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeContactsRead}, Params: paging,
			Responses: map[int]any{200: contactListResponse{}}, Handler: h.listContacts},
		{Method: "DELETE", Path: "/v1/contacts/{id}", Summary: "Delete a saved payee; returns it", Tag: "contacts",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeContactsWrite}, Params: pathID,
			Responses: map[int]any{200: contactResponse{}, 404: Envelope{}}, Handler: h.deleteContact},
		{Method: "POST", Path: "/v1/twofactor/factors", Summary: "Enroll a TOTP factor (PENDING); the secret and otpauth URI are shown once", Tag: "twofactor",
			Auth: authRequired, Scopes: manage, Request: factorCreateRequest{},
			Responses: map[int]any{201: factorEnrollResponse{}, 400: Envelope{}, 409: Envelope{}}, Handler: h.enrollFactor, SecretFields: []string{"secret", "otpauthUri"}},
		{Method: "DELETE", Path: "/v1/twofactor/factors/{id}", Summary: "Remove a factor; with an ACTIVE factor present it needs a satisfied challenge bound to the removal (?twofaChallengeId=)", Tag: "twofactor",
			Auth: authRequired, Scopes: manage, Params: []Param{{Name: "id", In: "path"}, {Name: "twofaChallengeId", In: "query", Description: "a SATISFIED challenge bound to this removal"}},
			Responses: map[int]any{200: factorResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.deleteFactor},
		{Method: "POST", Path: "/v1/twofactor/factors/{id}/verify", Summary: "Activate a factor with a current code (beside an ACTIVE factor, with step-up)", Tag: "twofactor",
			Auth: authRequired, Scopes: manage, Params: pathID, Request: factorVerifyRequest{},
			Responses: map[int]any{200: factorResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Handler: h.verifyFactor},
		{Method: "GET", Path: "/v1/twofactor/factors", Summary: "List the tenant's factors of the caller's environment (never their secrets)", Tag: "twofactor",
			Auth: authRequired, Scopes: read, Responses: map[int]any{200: factorListResponse{}}, Handler: h.listFactors},
		{Method: "GET", Path: "/v1/twofactor/settings", Summary: "Which Safe payments need approval or a saved payee", Tag: "twofactor",
			Auth: authRequired, Scopes: read, Responses: map[int]any{200: twoFactorSettingsResponse{}}, Handler: h.getTwoFactorSettings},
		{Method: "PUT", Path: "/v1/twofactor/settings", Summary: "Replace the settings (absent fields: off)", Tag: "twofactor",
			Auth: authRequired, Scopes: manage, Request: twoFactorSettingsRequest{},
			Responses: map[int]any{200: twoFactorSettingsResponse{}, 400: Envelope{}, 403: Envelope{}}, Handler: h.putTwoFactorSettings},
		{Method: "POST", Path: "/v1/twofactor/challenges/{id}/verify", Summary: "Verify a TOTP code on a challenge; then retry the propose with twofaChallengeId", Tag: "twofactor",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsCreate}, Params: pathID, Request: codeRequest{},
			Responses: map[int]any{200: challengeResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.verifyChallenge},
	}
}
