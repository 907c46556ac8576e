package http

import (
	"strings"
	"time"

	"github.com/corridorhq/corridor/app/invoices"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/invoice"
)

// invoiceRequest is the body of POST /v1/invoices.
type invoiceRequest struct {
	AmountUsd      string `json:"amountUsd" oas:"required" description:"decimal USD string, at most 6 fraction digits, greater than zero"`
	PayerAddress   string `json:"payerAddress" oas:"required"`
	PayeeAddress   string `json:"payeeAddress" oas:"required"`
	ArbiterAddress string `json:"arbiterAddress,omitempty" description:"default: the platform arbiter; payer, payee and arbiter must be three distinct addresses"`
	PayeeName      string `json:"payeeName,omitempty" oas:"maxLength=200"`
	Description    string `json:"description,omitempty" oas:"maxLength=2000"`
	ChainID        *int64 `json:"chainId,omitempty" description:"default 84532 (the sandbox chain)"`
	// ExpiresAt is decoded as a string and parsed here, so a bad value is refused on its own
	// field with a plain message rather than as the body with Go's time layout.
	ExpiresAt *string `json:"expiresAt,omitempty" oas:"format=date-time" description:"ISO-8601, in the future; a SENT invoice still under-funded then becomes EXPIRED"`
}

func (r invoiceRequest) input() (invoice.DraftInput, error) {
	in := invoice.DraftInput{AmountUsd: r.AmountUsd, PayerAddress: r.PayerAddress, PayeeAddress: r.PayeeAddress,
		ArbiterAddress: r.ArbiterAddress, PayeeName: r.PayeeName, Description: r.Description, ChainID: r.ChainID}
	if r.ExpiresAt != nil {
		at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(*r.ExpiresAt))
		if err != nil {
			return in, core.Invalid("expiresAt", "must be an ISO-8601 timestamp with a time zone, for example 2026-12-31T23:59:59Z")
		}
		in.ExpiresAt = &at
	}
	return in, nil
}

type invoiceResponse struct {
	InvoiceID        string     `json:"invoiceId" oas:"required"`
	PayeeName        string     `json:"payeeName" oas:"required"`
	Description      string     `json:"description" oas:"required"`
	AmountUsd        string     `json:"amountUsd" oas:"required"`
	PayerAddress     string     `json:"payerAddress" oas:"required"`
	PayeeAddress     string     `json:"payeeAddress" oas:"required"`
	ArbiterAddress   string     `json:"arbiterAddress" oas:"required"`
	ChainID          int64      `json:"chainId" oas:"required"`
	Status           string     `json:"status" oas:"required,enum=DRAFT|SENT|FUNDED|DELIVERED|EXPIRED|RELEASED|REFUNDED|CANCELLED"`
	HoldWalletID     *string    `json:"holdWalletId" oas:"required" description:"the 2-of-3 hold Safe (wallet of purpose ESCROW); null until sent"`
	HoldAddress      *string    `json:"holdAddress" oas:"required" description:"where the payer sends USDC; null until sent"`
	ReleasePaymentID *string    `json:"releasePaymentId" oas:"required"`
	RefundPaymentID  *string    `json:"refundPaymentId" oas:"required"`
	Evidence         *string    `json:"evidence" oas:"required" description:"delivery evidence; null when none"`
	ExpiresAt        *time.Time `json:"expiresAt" oas:"required"`
	FundedAt         *time.Time `json:"fundedAt" oas:"required"`
	CreatedAt        time.Time  `json:"createdAt" oas:"required"`
}

func toInvoice(i invoice.Invoice) invoiceResponse {
	return invoiceResponse{InvoiceID: i.ID, PayeeName: i.PayeeName, Description: i.Description, AmountUsd: core.FormatUSD(i.AmountBaseUnits),
		PayerAddress: i.PayerAddress, PayeeAddress: i.PayeeAddress, ArbiterAddress: i.ArbiterAddress, ChainID: i.ChainID,
		Status: string(i.Status), HoldWalletID: strPtr(i.HoldWalletID), HoldAddress: strPtr(i.HoldAddress),
		ReleasePaymentID: strPtr(i.ReleasePaymentID), RefundPaymentID: strPtr(i.RefundPaymentID), Evidence: strPtr(i.Evidence),
		ExpiresAt: i.ExpiresAt, FundedAt: i.FundedAt, CreatedAt: i.CreatedAt}
}

type invoiceListResponse struct {
	Invoices []invoiceResponse `json:"invoices" oas:"required"`
	Total    int               `json:"total" oas:"required"`
}

// invoicePublicResponse is the public view: nothing but these four fields.
type invoicePublicResponse struct {
	AmountUsd   string  `json:"amountUsd" oas:"required"`
	Status      string  `json:"status" oas:"required,enum=DRAFT|SENT|FUNDED|DELIVERED|EXPIRED|RELEASED|REFUNDED|CANCELLED"`
	HoldAddress *string `json:"holdAddress" oas:"required"`
	ChainID     int64   `json:"chainId" oas:"required"`
}

type invoiceDeliverRequest struct {
	Evidence string `json:"evidence,omitempty" oas:"maxLength=4000"`
}

type invoiceSettleRequest struct {
	OwnerAddress     string `json:"ownerAddress,omitempty" description:"who asks: the payer, the payee or the arbiter"`
	TwofaChallengeID string `json:"twofaChallengeId,omitempty" description:"a settlement refused TWOFA_REQUIRED: the SATISFIED challenge, sent with the same request"`
}

type invoiceAdvanceRequest struct {
	Seconds *int64 `json:"seconds" oas:"required" description:"1 to 31622400"`
}

// billRequest is the body of POST /v1/bills.
type billRequest struct {
	ToHandle                string     `json:"toHandle,omitempty" description:"one of toHandle or toAddress: the payer tenant's directory handle"`
	ToAddress               string     `json:"toAddress,omitempty" description:"one of toHandle or toAddress: a wallet address of the payer tenant (the payer of the signed authorization)"`
	AmountUsd               string     `json:"amountUsd" oas:"required"`
	PayeeAddress            string     `json:"payeeAddress" oas:"required"`
	SenderAddress           string     `json:"senderAddress" oas:"required" description:"the address that signed: an active member's signerAddress"`
	Signature               string     `json:"signature" oas:"required" description:"EIP-712 InvoiceAuthorization signature, 0x r ‖ s ‖ v"`
	SigNonce                string     `json:"sigNonce" oas:"required" description:"uint256 as a decimal string, single-use per signer"`
	SigExpiresAt            *time.Time `json:"sigExpiresAt" oas:"required" description:"ISO-8601; signed as unix seconds"`
	PayeeName               string     `json:"payeeName,omitempty" oas:"maxLength=200"`
	Description             string     `json:"description,omitempty" oas:"maxLength=2000"`
	ChainID                 *int64     `json:"chainId,omitempty"`
	SigDocHash              string     `json:"sigDocHash,omitempty" description:"bytes32 sha256 of the terms; default zero"`
	DomainChainID           *int64     `json:"domainChainId,omitempty" description:"default chainId"`
	DomainVerifyingContract string     `json:"domainVerifyingContract,omitempty" description:"default the zero address"`
}

func (r billRequest) input() invoices.BillInput {
	return invoices.BillInput{ToHandle: r.ToHandle, ToAddress: r.ToAddress, AmountUsd: r.AmountUsd, PayeeAddress: r.PayeeAddress,
		SenderAddress: r.SenderAddress, Signature: r.Signature, SigNonce: r.SigNonce, SigExpiresAt: r.SigExpiresAt,
		PayeeName: r.PayeeName, Description: r.Description, SigDocHash: r.SigDocHash, ChainID: r.ChainID,
		DomainChainID: r.DomainChainID, DomainVerifyingContract: r.DomainVerifyingContract}
}

type billResponse struct {
	InvoiceID          string    `json:"invoiceId" oas:"required"`
	AmountUsd          string    `json:"amountUsd" oas:"required"`
	PayerAddress       string    `json:"payerAddress" oas:"required"`
	PayeeAddress       string    `json:"payeeAddress" oas:"required"`
	PayeeName          string    `json:"payeeName" oas:"required"`
	Description        string    `json:"description" oas:"required"`
	ChainID            int64     `json:"chainId" oas:"required"`
	PayerTenantID      string    `json:"payerTenantId" oas:"required"`
	SenderTenantID     string    `json:"senderTenantId" oas:"required"`
	SenderAddress      string    `json:"senderAddress" oas:"required"`
	VerificationStatus string    `json:"verificationStatus" oas:"required,enum=UNVERIFIED|VERIFIED|FAILED" description:"Whether the bill's signature verified against the sender's registered signer (docs/invoices.md); UNVERIFIED is never stored today, since verification is synchronous."`
	VerificationReason *string   `json:"verificationReason" oas:"required" description:"why a bill FAILED: SIGNATURE_INVALID, SIGNER_MISMATCH (wrong key or wrong EIP-712 domain), SIGNER_NOT_ACTIVE_MEMBER, SIGNATURE_EXPIRED, NONCE_REPLAYED; null otherwise"`
	PayerDecision      *string   `json:"payerDecision" oas:"required" description:"ACCEPTED once the payer proposed its payment"`
	PayerPaymentID     *string   `json:"payerPaymentId" oas:"required"`
	SigExpiresAt       time.Time `json:"sigExpiresAt" oas:"required"`
	CreatedAt          time.Time `json:"createdAt" oas:"required"`
}

func toBill(b invoice.Bill) billResponse {
	return billResponse{InvoiceID: b.ID, AmountUsd: core.FormatUSD(b.AmountBaseUnits), PayerAddress: b.PayerAddress,
		PayeeAddress: b.PayeeAddress, PayeeName: b.PayeeName, Description: b.Description, ChainID: b.ChainID,
		PayerTenantID: b.PayerTenantID, SenderTenantID: b.SenderTenantID, SenderAddress: b.SenderAddress,
		VerificationStatus: string(b.VerificationStatus), VerificationReason: strPtr(b.FailureReason),
		PayerDecision: strPtr(b.PayerDecision), PayerPaymentID: strPtr(b.PayerPaymentID), SigExpiresAt: b.SigExpiresAt, CreatedAt: b.CreatedAt}
}

type billListResponse struct {
	Bills []billResponse `json:"bills" oas:"required"`
	Total int            `json:"total" oas:"required"`
}

type billAcceptRequest struct {
	WalletID         string `json:"walletId" oas:"required" description:"the payer's wallet the payment is proposed from"`
	TwofaChallengeID string `json:"twofaChallengeId,omitempty" description:"an acceptance refused TWOFA_REQUIRED: the SATISFIED challenge, sent with the same request"`
}
