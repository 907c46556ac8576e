package http

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/twofactors"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/twofactor"
)

// twoFactorHandlers serve factors, challenges, two-factor settings and contacts.
type twoFactorHandlers struct{ svc *twofactors.Service }

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

func (h *twoFactorHandlers) createContact(c *fiber.Ctx) error {
	var req contactCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	contact, err := h.svc.CreateContact(c.UserContext(), principal(c), twofactors.ContactInput{Address: req.Address, Label: req.Label, ChainID: req.ChainID})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toContact(contact, h.svc.CoolingOff()))
}

func (h *twoFactorHandlers) listContacts(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	contacts, total, err := h.svc.ListContacts(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := contactListResponse{Contacts: make([]contactResponse, len(contacts)), Total: total}
	for i, ct := range contacts {
		out.Contacts[i] = toContact(ct, h.svc.CoolingOff())
	}
	return c.JSON(out)
}

func (h *twoFactorHandlers) deleteContact(c *fiber.Ctx) error {
	contact, err := h.svc.DeleteContact(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toContact(contact, h.svc.CoolingOff()))
}

func (h *twoFactorHandlers) enrollFactor(c *fiber.Ctx) error {
	var req factorCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	e, err := h.svc.EnrollFactor(c.UserContext(), principal(c), req.Label, req.TwofaChallengeID)
	if err != nil {
		return err
	}
	f := e.Factor
	return c.Status(fiber.StatusCreated).JSON(factorEnrollResponse{ID: f.ID, Type: f.Type, Label: f.Label, Status: string(f.Status),
		CreatedAt: f.CreatedAt, VerifiedAt: f.VerifiedAt, Secret: e.Secret, OTPAuthURI: e.OTPAuthURI})
}

// deleteFactor removes a factor; the step-up challenge comes as ?twofaChallengeId= (a DELETE
// has no body).
func (h *twoFactorHandlers) deleteFactor(c *fiber.Ctx) error {
	f, err := h.svc.DeleteFactor(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), strings.TrimSpace(c.Query("twofaChallengeId")))
	if err != nil {
		return err
	}
	return c.JSON(toFactor(f))
}

func (h *twoFactorHandlers) verifyFactor(c *fiber.Ctx) error {
	var req factorVerifyRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	f, err := h.svc.VerifyFactor(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.Code, strings.TrimSpace(req.TwofaChallengeID))
	if err != nil {
		return err
	}
	return c.JSON(toFactor(f))
}

func (h *twoFactorHandlers) listFactors(c *fiber.Ctx) error {
	factors, err := h.svc.ListFactors(c.UserContext(), principal(c))
	if err != nil {
		return err
	}
	out := factorListResponse{Factors: make([]factorResponse, len(factors))}
	for i, f := range factors {
		out.Factors[i] = toFactor(f)
	}
	return c.JSON(out)
}

func (h *twoFactorHandlers) getTwoFactorSettings(c *fiber.Ctx) error {
	st, err := h.svc.Settings(c.UserContext(), principal(c))
	if err != nil {
		return err
	}
	return c.JSON(toTwoFactorSettings(st, h.svc.CoolingOff()))
}

func (h *twoFactorHandlers) putTwoFactorSettings(c *fiber.Ctx) error {
	var req twoFactorSettingsRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	st, err := h.svc.PutSettings(c.UserContext(), principal(c), twofactors.SettingsInput{
		ApprovalAboveValue: req.ApprovalAboveUSD, ApproveNewPayees: req.ApproveNewPayees, RequireSavedPayees: req.RequireSavedPayees,
		TwofaChallengeID: req.TwofaChallengeID})
	if err != nil {
		return err
	}
	return c.JSON(toTwoFactorSettings(st, h.svc.CoolingOff()))
}

func (h *twoFactorHandlers) verifyChallenge(c *fiber.Ctx) error {
	var req codeRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	ch, err := h.svc.VerifyChallenge(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.Code)
	if err != nil {
		return err
	}
	return c.JSON(toChallenge(ch))
}

// Contacts and two-factor DTOs (docs/twofactor.md).

type contactCreateRequest struct {
	Address string `json:"address" oas:"required,pattern=^0x[0-9a-fA-F]{40}$"`
	Label   string `json:"label" oas:"required,maxLength=100"`
	ChainID *int64 `json:"chainId,omitempty" description:"defaults to the environment's chain"`
}

type contactResponse struct {
	ID          string    `json:"id" oas:"required"`
	Address     string    `json:"address" oas:"required"`
	Label       string    `json:"label" oas:"required"`
	ChainID     int64     `json:"chainId" oas:"required"`
	CreatedAt   time.Time `json:"createdAt" oas:"required"`
	AvailableAt time.Time `json:"availableAt" oas:"required" description:"end of the cooling-off window: payments to the contact are refused PAYEE_COOLING_OFF before it"`
}

type contactListResponse struct {
	Contacts []contactResponse `json:"contacts" oas:"required"`
	Total    int               `json:"total" oas:"required"`
}

func toContact(c twofactor.Contact, window time.Duration) contactResponse {
	return contactResponse{ID: c.ID, Address: c.Address, Label: c.Label, ChainID: c.ChainID, CreatedAt: c.CreatedAt, AvailableAt: c.AvailableAt(window).UTC()}
}

type factorCreateRequest struct {
	Type  string `json:"type,omitempty" oas:"enum=totp" description:"totp (the default and only type)"`
	Label string `json:"label,omitempty" oas:"maxLength=100"`
	// TwofaChallengeID completes the step-up a new factor beside an ACTIVE one needs.
	TwofaChallengeID string `json:"twofaChallengeId,omitempty" description:"a SATISFIED challenge bound to this enrollment, needed when the tenant already has an ACTIVE factor"`
}

type factorResponse struct {
	ID         string     `json:"id" oas:"required"`
	Type       string     `json:"type" oas:"required,enum=totp"`
	Label      string     `json:"label" oas:"required"`
	Status     string     `json:"status" oas:"required,enum=PENDING|ACTIVE|CANCELLED"`
	CreatedAt  time.Time  `json:"createdAt" oas:"required"`
	VerifiedAt *time.Time `json:"verifiedAt" oas:"required,nullable"`
}

type factorEnrollResponse struct {
	ID         string     `json:"id" oas:"required"`
	Type       string     `json:"type" oas:"required,enum=totp"`
	Label      string     `json:"label" oas:"required"`
	Status     string     `json:"status" oas:"required,enum=PENDING|ACTIVE|CANCELLED"`
	CreatedAt  time.Time  `json:"createdAt" oas:"required"`
	VerifiedAt *time.Time `json:"verifiedAt" oas:"required,nullable"`
	Secret     string     `json:"secret" oas:"required,nullable" description:"base32 TOTP secret, shown once: null when an idempotent retry replays this response"`
	OTPAuthURI string     `json:"otpauthUri" oas:"required,nullable" description:"otpauth:// URI for an authenticator app, shown once: null when an idempotent retry replays this response"`
}

type factorListResponse struct {
	Factors []factorResponse `json:"factors" oas:"required"`
}

type codeRequest struct {
	Code string `json:"code" oas:"required,pattern=^[0-9]{6}$"`
}

// factorVerifyRequest activates a PENDING factor; beside an ACTIVE factor it needs step-up.
type factorVerifyRequest struct {
	Code             string `json:"code" oas:"required,pattern=^[0-9]{6}$"`
	TwofaChallengeID string `json:"twofaChallengeId,omitempty" description:"a SATISFIED challenge bound to this activation, needed when the tenant already has an ACTIVE factor"`
}

func toFactor(f twofactor.Factor) factorResponse {
	return factorResponse{ID: f.ID, Type: f.Type, Label: f.Label, Status: string(f.Status), CreatedAt: f.CreatedAt, VerifiedAt: f.VerifiedAt}
}

type twoFactorSettingsRequest struct {
	ApprovalAboveUSD   *string `json:"approvalAboveUsd,omitempty" oas:"nullable,pattern=^[0-9]+(\\.[0-9]+)?$" description:"payments of more than this amount need approval; null or absent: no threshold"`
	ApproveNewPayees   bool    `json:"approveNewPayees,omitempty" description:"payments to a destination that is not a saved contact need approval"`
	RequireSavedPayees bool    `json:"requireSavedPayees,omitempty" description:"payments to a destination that is not a saved contact are refused NEW_PAYEE_NOT_SAVED"`
	TwofaChallengeID   string  `json:"twofaChallengeId,omitempty" description:"a SATISFIED challenge bound to this change, needed when the tenant has an ACTIVE factor"`
}

type twoFactorSettingsResponse struct {
	ApprovalAboveUSD   *string    `json:"approvalAboveUsd" oas:"required,nullable"`
	ApproveNewPayees   bool       `json:"approveNewPayees" oas:"required"`
	RequireSavedPayees bool       `json:"requireSavedPayees" oas:"required"`
	CoolingOffSeconds  int64      `json:"coolingOffSeconds" oas:"required" description:"a new contact's cooling-off window (service configuration)"`
	UpdatedAt          *time.Time `json:"updatedAt" oas:"required,nullable"`
}

func toTwoFactorSettings(s twofactor.Settings, window time.Duration) twoFactorSettingsResponse {
	out := twoFactorSettingsResponse{ApprovalAboveUSD: usdPtr(s.ApprovalAboveBaseUnits), ApproveNewPayees: s.ApproveNewPayees,
		RequireSavedPayees: s.RequireSavedPayees, CoolingOffSeconds: int64(window.Seconds())}
	if !s.UpdatedAt.IsZero() {
		t := s.UpdatedAt
		out.UpdatedAt = &t
	}
	return out
}

type challengeTransactionResponse struct {
	AmountUSD          string `json:"amountUsd" oas:"required"`
	DestinationAddress string `json:"destinationAddress" oas:"required"`
	DestinationLabel   string `json:"destinationLabel" oas:"required" description:"The saved contact's label for the destination, or the handle paid; empty for an unsaved address."`
}

type challengeResponse struct {
	ID                string                       `json:"id" oas:"required"`
	Status            string                       `json:"status" oas:"required,enum=PENDING|SATISFIED|REDEEMED|CANCELLED"`
	AttemptsRemaining int                          `json:"attemptsRemaining" oas:"required"`
	ExpiresAt         time.Time                    `json:"expiresAt" oas:"required"`
	Transaction       challengeTransactionResponse `json:"transaction" oas:"required"`
	PaymentID         *string                      `json:"paymentId" oas:"required,nullable"`
}

func toChallenge(c twofactor.Challenge) challengeResponse {
	return challengeResponse{ID: c.ID, Status: string(c.Status), AttemptsRemaining: c.AttemptsRemaining(), ExpiresAt: c.ExpiresAt,
		Transaction: challengeTransactionResponse{AmountUSD: core.FormatUSD(c.AmountBaseUnits), DestinationAddress: c.DestinationAddress, DestinationLabel: c.DestinationLabel},
		PaymentID:   strPtr(c.PaymentID)}
}
