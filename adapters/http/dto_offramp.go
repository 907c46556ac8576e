package http

import (
	"time"

	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

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
