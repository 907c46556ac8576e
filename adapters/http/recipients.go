package http

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/recipients"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

// recipientsHandlers serve phone aliases, credentials (and the caller's identity, which shows
// them) and payout destinations.
type recipientsHandlers struct{ svc *recipients.Service }

// identityEndpoints is the caller's identity (docs/architecture.md): who it is, and its
// BUSINESS_IDENTITY credential, which the recipients capability keeps.
func (h *recipientsHandlers) identityEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/v1/identity", Summary: "The caller: who is authenticated, for which tenant and environment with which scopes, and its verification and credentials", Tag: "identity",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeIdentityRead},
			Responses: map[int]any{200: identityResponse{}}, Handler: h.getIdentity},
	}
}

type identityPrincipal struct {
	Type        string   `json:"type" oas:"required,enum=API_KEY|AGENT_KEY|SESSION"`
	TenantID    string   `json:"tenantId" oas:"required"`
	Environment string   `json:"environment" oas:"required,enum=TEST|LIVE"`
	Scopes      []string `json:"scopes" oas:"required"`
	KeyID       *string  `json:"keyId" oas:"required" description:"the API key's id; null for a session"`
	AgentID     *string  `json:"agentId" oas:"required" description:"set when the key is an agent's"`
	UserID      *string  `json:"userId" oas:"required" description:"the identity-provider user of a session; null for a key"`
	Email       *string  `json:"email" oas:"required"`
	Role        *string  `json:"role" oas:"required" description:"the session user's role in the tenant (OWNER, ADMIN or MEMBER)"`
	MemberID    *string  `json:"memberId" oas:"required"`
}

type identityVerification struct {
	Status                 string  `json:"status" oas:"required,enum=VERIFIED|UNVERIFIED"`
	BusinessIdentityStatus *string `json:"businessIdentityStatus" oas:"required" description:"ACTIVE, EXPIRED, REVOKED or SUSPENDED; null when none"`
}

type identityResponse struct {
	Principal    identityPrincipal    `json:"principal" oas:"required"`
	Verification identityVerification `json:"verification" oas:"required" description:"VERIFIED when the tenant's BUSINESS_IDENTITY credential is ACTIVE"`
	Credentials  []credentialResponse `json:"credentials" oas:"required"`
}

func (h *recipientsHandlers) getIdentity(c *fiber.Ctx) error {
	p := principal(c)
	cred, ok, err := h.svc.GetCredential(c.UserContext(), p)
	if err != nil {
		return err
	}
	out := identityResponse{Principal: toIdentityPrincipal(p), Verification: identityVerification{Status: "UNVERIFIED"},
		Credentials: []credentialResponse{toCredential(cred, ok)}}
	if ok {
		st := string(cred.Status)
		out.Verification.BusinessIdentityStatus = &st
		if cred.Status == recipient.CredentialActive {
			out.Verification.Status = "VERIFIED"
		}
	}
	return c.JSON(out)
}

func toIdentityPrincipal(p auth.Principal) identityPrincipal {
	out := identityPrincipal{Type: "API_KEY", TenantID: p.TenantID, Environment: string(p.Environment), Scopes: make([]string, len(p.Scopes)),
		KeyID: strPtr(p.KeyID), AgentID: strPtr(p.AgentID), UserID: strPtr(p.UserID),
		Email: strPtr(p.Email), Role: strPtr(p.Role), MemberID: strPtr(p.MemberID)}
	switch {
	case p.Kind == auth.KindSession:
		out.Type = "SESSION"
	case p.AgentID != "":
		out.Type = "AGENT_KEY"
	}
	for i, sc := range p.Scopes {
		out.Scopes[i] = string(sc)
	}
	return out
}

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

func (h *recipientsHandlers) createPhoneAlias(c *fiber.Ctx) error {
	var req phoneAliasCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := h.svc.CreatePhoneAlias(c.UserContext(), principal(c), recipients.CreateAliasInput{Phone: req.Phone, ClientIP: c.IP()})
	if err != nil {
		return withRetryAfter(c, err)
	}
	return c.Status(fiber.StatusCreated).JSON(toPhoneAlias(a))
}

func (h *recipientsHandlers) verifyPhoneAlias(c *fiber.Ctx) error {
	var req phoneAliasVerifyRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := h.svc.VerifyPhoneAlias(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.Code, c.IP())
	if err != nil {
		return withRetryAfter(c, err)
	}
	return c.JSON(toPhoneAlias(a))
}

func (h *recipientsHandlers) reverifyPhoneAlias(c *fiber.Ctx) error {
	a, err := h.svc.ReverifyPhoneAlias(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), c.IP())
	if err != nil {
		return withRetryAfter(c, err)
	}
	return c.JSON(toPhoneAlias(a))
}

func (h *recipientsHandlers) listPhoneAliases(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	as, total, err := h.svc.ListPhoneAliases(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := phoneAliasListResponse{PhoneAliases: make([]phoneAliasResponse, len(as)), Total: total}
	for i, a := range as {
		out.PhoneAliases[i] = toPhoneAlias(a)
	}
	return c.JSON(out)
}

func (h *recipientsHandlers) listSandboxSMS(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	ms, total, err := h.svc.ListSandboxSMS(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	return c.JSON(toSMSList(ms, total))
}

func (h *recipientsHandlers) listCredentials(c *fiber.Ctx) error {
	cred, ok, err := h.svc.GetCredential(c.UserContext(), principal(c))
	if err != nil {
		return err
	}
	return c.JSON(credentialListResponse{Credentials: []credentialResponse{toCredential(cred, ok)}})
}

func (h *recipientsHandlers) setSandboxCredential(c *fiber.Ctx) error {
	var req credentialSetRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	if req.Type != "" && req.Type != "BUSINESS_IDENTITY" {
		return core.Invalid("type", "must be BUSINESS_IDENTITY")
	}
	cred, err := h.svc.SetSandboxCredential(c.UserContext(), principal(c), req.Status)
	if err != nil {
		return err
	}
	return c.JSON(toCredential(cred, true))
}

func (h *recipientsHandlers) createDestination(c *fiber.Ctx) error {
	var req destinationCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	d, err := h.svc.CreateDestination(c.UserContext(), principal(c), req.input())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toDestination(d))
}

func (h *recipientsHandlers) listDestinations(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	ds, total, err := h.svc.ListDestinations(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := destinationListResponse{PayoutDestinations: make([]destinationResponse, len(ds)), Total: total}
	for i, d := range ds {
		out.PayoutDestinations[i] = toDestination(d)
	}
	return c.JSON(out)
}

func (h *recipientsHandlers) getDestination(c *fiber.Ctx) error {
	d, err := h.svc.GetDestination(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toDestination(d))
}

// heldPrepared prepares the screening verdicts of the caller's held payments, outside any
// transaction, for a change that re-evaluates them in the runner's unit (a verified alias, a
// credential, a destination), then applies handler.
func (h *recipientsHandlers) heldPrepared(handler fiber.Handler) prepare {
	return func(c *fiber.Ctx) (fiber.Handler, error) {
		if err := h.svc.PrepareHeld(c.UserContext(), principal(c)); err != nil {
			return nil, err
		}
		return handler, nil
	}
}

type phoneAliasCreateRequest struct {
	Phone string `json:"phone" oas:"required,maxLength=32"`
}

type phoneAliasVerifyRequest struct {
	Code string `json:"code" oas:"required,pattern=^[0-9]{6}$"`
}

// phoneAliasResponse shows the number masked only; the full number never leaves the service.
type phoneAliasResponse struct {
	ID                string     `json:"id" oas:"required"`
	PhoneMasked       string     `json:"phoneMasked" oas:"required"`
	Status            string     `json:"status" oas:"required,enum=PENDING_VERIFICATION|VERIFIED|FAILED"`
	AttemptsRemaining int        `json:"attemptsRemaining" oas:"required"`
	CodeExpiresAt     *time.Time `json:"codeExpiresAt" oas:"required"`
	VerifiedAt        *time.Time `json:"verifiedAt" oas:"required"`
	CreatedAt         time.Time  `json:"createdAt" oas:"required"`
}

type phoneAliasListResponse struct {
	PhoneAliases []phoneAliasResponse `json:"phoneAliases" oas:"required"`
	Total        int                  `json:"total" oas:"required"`
}

func toPhoneAlias(a recipient.Alias) phoneAliasResponse {
	out := phoneAliasResponse{ID: a.ID, PhoneMasked: a.Masked, Status: string(a.Status),
		AttemptsRemaining: max(recipient.MaxCodeAttempts-a.Attempts, 0), VerifiedAt: a.VerifiedAt, CreatedAt: a.CreatedAt}
	if a.Status == recipient.AliasPending {
		at := a.CodeExpiresAt
		out.CodeExpiresAt = &at
	}
	return out
}

type smsMessageResponse struct {
	ID       string    `json:"id" oas:"required"`
	ToMasked string    `json:"toMasked" oas:"required"`
	Body     string    `json:"body" oas:"required"`
	Purpose  string    `json:"purpose" oas:"required" description:"Why it was sent: phone_alias_verification, claim_link or claim_phone_code."`
	SentAt   time.Time `json:"sentAt" oas:"required"`
}

type smsMessageListResponse struct {
	Messages []smsMessageResponse `json:"messages" oas:"required"`
	Total    int                  `json:"total" oas:"required"`
}

func toSMSList(ms []ports.SentSMS, total int) smsMessageListResponse {
	out := smsMessageListResponse{Messages: make([]smsMessageResponse, len(ms)), Total: total}
	for i, m := range ms {
		out.Messages[i] = smsMessageResponse{ID: m.ID, ToMasked: m.ToMasked, Body: m.Body, Purpose: m.Purpose, SentAt: m.SentAt}
	}
	return out
}

type credentialSetRequest struct {
	Type   string `json:"type,omitempty" oas:"enum=BUSINESS_IDENTITY"`
	Status string `json:"status" oas:"required,enum=ACTIVE|EXPIRED|REVOKED|SUSPENDED"`
}

type credentialResponse struct {
	Type      string     `json:"type" oas:"required,enum=BUSINESS_IDENTITY"`
	Status    *string    `json:"status" oas:"required"`
	UpdatedAt *time.Time `json:"updatedAt" oas:"required"`
}

type credentialListResponse struct {
	Credentials []credentialResponse `json:"credentials" oas:"required"`
}

func toCredential(c recipient.Credential, ok bool) credentialResponse {
	out := credentialResponse{Type: recipient.CredentialBusinessIdentity}
	if ok {
		st, at := string(c.Status), c.UpdatedAt
		out.Status, out.UpdatedAt = &st, &at
	}
	return out
}

type destinationCreateRequest struct {
	Type                   string `json:"type" oas:"required"`
	Asset                  string `json:"asset,omitempty"`
	Network                string `json:"network,omitempty" description:"ONCHAIN_WALLET: the network as a chain key (eip155:84532, eip155:8453) or solana."`
	Address                string `json:"address,omitempty"`
	Email                  string `json:"email,omitempty"`
	Phone                  string `json:"phone,omitempty"`
	Handle                 string `json:"handle,omitempty"`
	Country                string `json:"country,omitempty" description:"APP_WALLET_B: the recipient's country (ISO 3166-1 alpha-2; US only)."`
	Currency               string `json:"currency,omitempty"`
	RoutingNumber          string `json:"routingNumber,omitempty" description:"US_BANK_ACH: the ABA routing number (9 digits, checksum validated)."`
	AccountNumber          string `json:"accountNumber,omitempty" description:"US_BANK_ACH: the bank account number (stored encrypted)."`
	IBAN                   string `json:"iban,omitempty" description:"SEPA: the IBAN, checksum validated (stored encrypted)."`
	AllowAutomaticFallback bool   `json:"allowAutomaticFallback,omitempty"`
}

func (r destinationCreateRequest) input() recipient.DestinationInput {
	return recipient.DestinationInput{Type: r.Type, Asset: r.Asset, Network: r.Network, Address: r.Address, Email: r.Email,
		Phone: r.Phone, Handle: r.Handle, Country: r.Country, Currency: r.Currency, RoutingNumber: r.RoutingNumber,
		AccountNumber: r.AccountNumber, IBAN: r.IBAN, AllowAutomaticFallback: r.AllowAutomaticFallback}
}

// destinationResponse is docs/api.md's PayoutDestination: type, status, masked label and
// allowAutomaticFallback, plus id and createdAt. Identifiers are never returned.
type destinationResponse struct {
	ID                     string    `json:"id" oas:"required"`
	Type                   string    `json:"type" oas:"required"`
	Status                 string    `json:"status" oas:"required,enum=ACTIVE|DISABLED|REVOKED"`
	MaskedLabel            string    `json:"maskedLabel" oas:"required" description:"The destination's identifier masked for display; the full identifier is stored encrypted and never returned."`
	AllowAutomaticFallback bool      `json:"allowAutomaticFallback" oas:"required"`
	Routable               bool      `json:"routable" oas:"required" description:"Whether payouts can be routed to it now: false for rails created but not routable (US_BANK_ACH, SEPA) and for a destination the provider revoked."`
	CreatedAt              time.Time `json:"createdAt" oas:"required"`
}

type destinationListResponse struct {
	PayoutDestinations []destinationResponse `json:"payoutDestinations" oas:"required"`
	Total              int                   `json:"total" oas:"required"`
}

func toDestination(d recipient.Destination) destinationResponse {
	return destinationResponse{ID: d.ID, Type: string(d.Type), Status: string(d.Status), MaskedLabel: d.Masked,
		AllowAutomaticFallback: d.AllowAutomaticFallback, Routable: d.Type.Routable() && d.Status == recipient.DestActive, CreatedAt: d.CreatedAt}
}
