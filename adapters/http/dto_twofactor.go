package http

import (
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/twofactor"
)

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
