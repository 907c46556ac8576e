package offramp

import (
	"strconv"
	"time"

	"github.com/corridorhq/corridor/core"
)

// Error codes of off-ramp payments (docs/api.md Errors and docs/decisions/api.md).
const (
	CodePaymentNotFound          core.Code = "OFFRAMP_PAYMENT_NOT_FOUND"
	CodeFundingModeNotAvailable  core.Code = "FUNDING_MODE_NOT_AVAILABLE"
	CodeDestinationNotEligible   core.Code = "DESTINATION_NOT_ELIGIBLE"
	CodeRecipientConsentRequired core.Code = "RECIPIENT_CONSENT_REQUIRED"
	CodeSenderOnly               core.Code = "SENDER_ONLY"
	// CodeClaimFunded refuses the cancel of a pending claim whose escrow funding was indexed:
	// CodeProviderNotFound: no payout provider of that name is configured.
	CodeProviderNotFound core.Code = "PAYOUT_PROVIDER_NOT_FOUND"
	// the money is in the escrow and leaves only by the claim's refund at expiry.
	CodeClaimFunded      core.Code = "CLAIM_ALREADY_FUNDED"
	CodeQuoteExpired     core.Code = "QUOTE_EXPIRED"
	CodeQuoteNotFound    core.Code = "ROUTE_QUOTE_NOT_FOUND"
	CodeRouteNotSelected core.Code = "ROUTE_NOT_SELECTED"
	CodeRecipientUnknown core.Code = "RECIPIENT_UNKNOWN"
	CodeSelfPayment      core.Code = "SELF_PAYMENT_NOT_ALLOWED"
)

// Funding modes (docs/api.md). Only INTERNAL_BALANCE is built.
const (
	FundingInternalBalance = "INTERNAL_BALANCE"
	FundingOnchainDeposit  = "ONCHAIN_DEPOSIT"
	FundingSafeProposal    = "SAFE_PROPOSAL"
)

// MaxAmountBaseUnits bounds one off-ramp payment: 1,000,000 USD.
const MaxAmountBaseUnits int64 = 1_000_000 * 1_000_000

// Payment is an off-ramp payment.
type Payment struct {
	ID                     string
	Environment            core.Environment
	SenderTenantID         string
	RecipientTenantID      string
	RecipientPhoneHash     string
	RecipientPhoneMasked   string
	ClaimID                string
	SourceChainKey         string
	SourceAssetID          string
	SourceAmountBaseUnits  int64
	FundingMode            string
	RequestedDestinationID string
	SpeedPreference        SpeedPreference
	Status                 Status
	HoldReasons            []HoldReason
	SelectedQuoteID        string
	QuoteSetVersion        int
	// Reservation counts reservations (holds) taken; HoldTransferID is the current one.
	Reservation    int
	HoldTransferID string
	// Attempt counts payout attempts; Provider and ProviderReference name the current one.
	Attempt           int
	Provider          string
	ProviderReference string
	FailureReason     string
	// RequoteReason is why the last pre-submission re-check requoted the payment; empty once
	// the recipient confirmed again (or when it never happened).
	RequoteReason RequoteReason
	DeliveredAt   *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Apply moves p along the table row for step and returns the row, so the caller performs its
// effect. Refused steps leave p unchanged.
func (p *Payment) Apply(step Step, now time.Time) (Row, error) {
	row, err := Next(p.Status, step)
	if err != nil {
		return Row{}, err
	}
	p.Status, p.UpdatedAt = row.To, now
	if row.To == StatusDelivered {
		p.DeliveredAt = &now
	}
	return row, nil
}

// SourceAssetID is the asset id of USDC on a chain: eip155:<chainId>/erc20:<token>.
func SourceAssetID(chainID int64, token string) string {
	return ChainKey(chainID) + "/erc20:" + token
}

// ChainKey is eip155:<chainId>.
func ChainKey(chainID int64) string { return "eip155:" + strconv.FormatInt(chainID, 10) }

// IdempotencyKey is the key of one payout attempt at the provider: the same payment and
// attempt always submit with the same key, so a retried job never pays twice.
func (p Payment) IdempotencyKey() string {
	return p.ID + ":attempt:" + strconv.Itoa(p.Attempt)
}

// ClaimFunded reports whether the payment's money sits in its claim's escrow account: the claim
// was funded (its reservation posted) and the payment has not locked or re-reserved since.
func (p Payment) ClaimFunded() bool {
	return p.ClaimID != "" && p.HoldTransferID == "" && !p.Status.Funded() && p.Status != StatusPendingClaim &&
		!p.Status.Terminal()
}

// Funded is docs/decisions/ledger.md's funded for the composer's REJECT guard: the status is funded, or the money
// sits in the claim's escrow account.
func (p Payment) Funded() bool { return p.Status.Funded() || p.ClaimFunded() }

// LedgerRef is the idempotency reference of the payment's n-th ledger transfer of a step
// ("offramp:{paymentId}:{step}:{n}"). Payments and their claims post under it.
func (p Payment) LedgerRef(step string, n int) string {
	return "offramp:" + p.ID + ":" + step + ":" + strconv.Itoa(n)
}
