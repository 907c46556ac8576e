// Package card is the pure domain of debit cards (docs/api.md Card and card limits, docs/decisions/cards.md):
// the card and its reversible freeze, its limits and their PUT patch, the spend windows, the
// authorization decision in docs/decisions/cards.md's order and the authorization state machine.
package card

import (
	"time"

	"github.com/corridorhq/corridor/core"
)

// Codes of the card capability.
const (
	CodeCardNotFound          core.Code = "CARD_NOT_FOUND"
	CodeCardholderNotFound    core.Code = "CARDHOLDER_NOT_FOUND"
	CodeAuthorizationNotFound core.Code = "CARD_AUTHORIZATION_NOT_FOUND"
	// CodeWalletNotDeployed: a card is issued from a DEPLOYED wallet only (409).
	CodeWalletNotDeployed core.Code = "WALLET_NOT_DEPLOYED"
	// CodeModuleNotEnabled: the wallet's Safe does not have the card spend module enabled (409),
	// for example a wallet created before the module existed.
	CodeModuleNotEnabled core.Code = "CARD_MODULE_NOT_ENABLED"
	// CodeEphemeralKeysUnsupported: the funding-account issuing provider has no push
	// provisioning (400).
	CodeEphemeralKeysUnsupported core.Code = "EPHEMERAL_KEYS_NOT_SUPPORTED"
)

// Status of a card: active, or inactive while frozen. Freezing is reversible and never terminal.
type Status string

const (
	StatusActive   Status = "active"
	StatusInactive Status = "inactive"
)

// Funding says where a card's spend comes from.
type Funding string

const (
	// FundingSafe: the card spends from its wallet's Safe (ISSUING_PROVIDER=safe_debit).
	FundingSafe Funding = "SAFE"
	// FundingAccount: the card draws on a funding card account, the tenant's service balance,
	// settled off chain by the issuer (cardholder cards).
	FundingAccount Funding = "FUNDING_ACCOUNT"
)

// Card is one issued card.
type Card struct {
	ID           string
	TenantID     string
	Environment  core.Environment
	Funding      Funding
	WalletID     string // FundingSafe: the wallet whose Safe pays
	SafeAddress  string
	CardholderID string // a cardholder card
	AgentID      string // "" unless bound to an agent
	Issuer       string // the issuer adapter's name ("sandbox")
	IssuerCardID string
	Last4        string
	// FundingAccountID is the issuer's funding card account (cardholder cards).
	FundingAccountID     string
	Chain                string
	CryptoAccountAddress string
	CryptoAccountType    string
	Status               Status
	Limits               Limits
	CreatedAt            time.Time
	UpdatedAt            time.Time
}

// Freeze makes the card inactive; freezing a frozen card changes nothing.
func (c Card) Freeze(now time.Time) Card {
	if c.Status != StatusInactive {
		c.Status, c.UpdatedAt = StatusInactive, now
	}
	return c
}

// Unfreeze makes the card active again; unfreezing an active card changes nothing.
func (c Card) Unfreeze(now time.Time) Card {
	if c.Status != StatusActive {
		c.Status, c.UpdatedAt = StatusActive, now
	}
	return c
}

// Cardholder is a person cards are issued to (docs/decisions/cards.md).
type Cardholder struct {
	ID          string
	TenantID    string
	Environment core.Environment
	Name        string
	Email       string
	CreatedAt   time.Time
}
