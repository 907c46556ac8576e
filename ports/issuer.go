package ports

import (
	"context"
	"time"
)

// IssuingProvider is ISSUING_PROVIDER: the issuer program cards are issued under (docs/decisions/cards.md).
type IssuingProvider string

const (
	// IssuingSafeDebit (the default): wallet cards spend from their Safe; push provisioning
	// (ephemeral keys) is offered.
	IssuingSafeDebit IssuingProvider = "safe_debit"
	// IssuingFundingAccount: the program draws on funding card accounts and offers no push
	// provisioning, so ephemeral keys answer 400.
	IssuingFundingAccount IssuingProvider = "funding_account"
)

// CardIssuer is the card issuer: it creates cards (its own ids, the last four digits of the
// PAN, the funding card account a cardholder card draws on), changes their status and mints
// push-provisioning ephemeral keys. Reference is the service's card id: issuing one reference
// twice returns the same card, so a retried issuance never creates a second card.
type CardIssuer interface {
	// Name is the issuer's name in ledger references (issuer:{name}:clearing).
	Name() string
	IssueCard(ctx context.Context, in IssueCardInput) (IssuedCard, error)
	// SetCardStatus activates or deactivates a card at the issuer.
	SetCardStatus(ctx context.Context, issuerCardID string, active bool) error
	// CreateEphemeralKey mints a short-lived key for a wallet provider's push provisioning.
	CreateEphemeralKey(ctx context.Context, in EphemeralKeyInput) (EphemeralKey, error)
}

// IssueCardInput describes a card to issue.
type IssueCardInput struct {
	Reference string // the service's card id
	TenantID  string
	// FundingAccount asks for a card drawing on the tenant's funding card account (a
	// cardholder card) rather than on a Safe.
	FundingAccount bool
	SafeAddress    string
	CardholderName string
}

// IssuedCard is the issuer's answer.
type IssuedCard struct {
	IssuerCardID     string
	Last4            string
	FundingAccountID string // set for funding-account cards
}

// EphemeralKeyInput is a push-provisioning request.
type EphemeralKeyInput struct {
	IssuerCardID   string
	Platform       string
	Nonce          string
	NonceSignature string
	Certificates   []string
}

// EphemeralKey is the issuer's key object, passed through to the client as is.
type EphemeralKey struct {
	ID        string
	Secret    string
	Platform  string
	ExpiresAt time.Time
}
