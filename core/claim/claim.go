// Package claim is the pending claim of an off-ramp payment to a phone number nobody has
// verified (docs/api.md Claim): its state machine as data, the claim-link token, the phone
// challenge and the public view. Status changes other than expiry are driven by the escrow
// contract's indexed events (ApplyEvent); nothing here does I/O.
package claim

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
)

// Error codes of claims (docs/decisions/api.md statuses: business refusals 422, conflicts 409).
const (
	CodeClaimNotFound      core.Code = "CLAIM_NOT_FOUND"
	CodeLinkUsed           core.Code = "CLAIM_LINK_USED"
	CodeLinkExpired        core.Code = "CLAIM_LINK_EXPIRED"
	CodeNotExpired         core.Code = "CLAIM_NOT_EXPIRED"
	CodeNotRedeemable      core.Code = "CLAIM_NOT_REDEEMABLE"
	CodeNotFunded          core.Code = "CLAIM_NOT_FUNDED"
	CodeChallengeNotFound  core.Code = "CLAIM_CHALLENGE_NOT_FOUND"
	CodeResendBudget       core.Code = "CLAIM_RESEND_LIMIT"
	CodeInvalidCode        core.Code = "TWOFA_INVALID_CODE"
	CodeTooManyAttempts    core.Code = "TWOFA_TOO_MANY_ATTEMPTS"
	CodeChallengeExpired   core.Code = "TWOFA_CHALLENGE_EXPIRED"
	CodeChallengeNotUsable core.Code = "TWOFA_CHALLENGE_NOT_REDEEMABLE"
)

// Defaults (docs/api.md Limits; the rest are ours, docs/decisions/README.md).
const (
	DefaultLifetime      = 14 * 24 * time.Hour
	DefaultGracePeriod   = 24 * time.Hour
	ChallengeLifetime    = 10 * time.Minute
	ChallengeAttempts    = 5
	CodeDigits           = 6
	MaxResends           = 3 // per claim, per ResendWindow
	ResendWindow         = 24 * time.Hour
	MaxCodesPerPhone     = 5 // per CodeBudgetWindow
	MaxCodesPerIP        = 20
	CodeBudgetWindow     = time.Hour
	TokenBytes           = 32
	OnchainIDBytes       = 32
	MetadataHashDomain   = "corridor.claim.metadata.v1"
	PublicViewPerIPLimit = 30 // inspections per minute per IP
)

// Status is a claim's status (docs/api.md Claim table).
type Status string

const (
	StatusOpen     Status = "OPEN"
	StatusLocked   Status = "LOCKED"
	StatusReleased Status = "RELEASED"
	StatusRefunded Status = "REFUNDED"
	StatusExpired  Status = "EXPIRED"
	StatusCanceled Status = "CANCELED"
)

// Absorbing reports RELEASED, REFUNDED and CANCELED: nothing leaves them.
func (s Status) Absorbing() bool {
	return s == StatusReleased || s == StatusRefunded || s == StatusCanceled
}

// Trigger is what moves a claim.
type Trigger string

const (
	TrigLock        Trigger = "lock"                                // ClaimLocked indexed (the recipient redeemed)
	TrigRelease     Trigger = "claimed and paid out"                // ClaimReleased indexed
	TrigGraceRefund Trigger = "grace-period refund of a stuck lock" // ClaimRefunded indexed on a LOCKED claim
	TrigExpiry      Trigger = "expiry"                              // lifetime passed, nobody redeemed
	TrigRefund      Trigger = "nobody claimed, funded"              // ClaimRefunded indexed on an EXPIRED claim
	TrigCancel      Trigger = "unfunded"                            // ClaimCanceled indexed on an EXPIRED claim
)

// Row is one transition.
type Row struct {
	From    Status
	Trigger Trigger
	To      Status
}

// Table is docs/api.md's Claim table, row by row.
var Table = []Row{
	{StatusOpen, TrigLock, StatusLocked},
	{StatusLocked, TrigRelease, StatusReleased},
	{StatusLocked, TrigGraceRefund, StatusRefunded},
	{StatusOpen, TrigExpiry, StatusExpired},
	{StatusExpired, TrigRefund, StatusRefunded},
	{StatusExpired, TrigCancel, StatusCanceled},
}

// Next returns the target of (from, trigger), or INVALID_STATE.
func Next(from Status, t Trigger) (Status, error) {
	for _, r := range Table {
		if r.From == from && r.Trigger == t {
			return r.To, nil
		}
	}
	return "", core.E(core.CodeInvalidState, "a claim in %s cannot take %q", from, t)
}

// Claim is a pending claim. OnchainID is the escrow's opaque bytes32 key (0x + 64 hex) from
// the CSPRNG; the phone travels only as its keyed hash, its mask and its ciphertext.
type Claim struct {
	ID                string
	OnchainID         string
	Environment       core.Environment
	PaymentID         string
	SenderTenantID    string
	RecipientTenantID string // set at redeem
	PhoneHash         string
	PhoneMasked       string
	PhoneCiphertext   []byte
	AmountBaseUnits   int64
	ChainID           int64
	ChainKey          string
	AssetID           string
	MetadataHash      string // 0x + 64 hex
	Status            Status
	// Funded: the escrow's ClaimFunded event was indexed (docs/decisions/ledger.md: funded from here on).
	Funded bool
	// Transactions the service sent for the claim, and the decision hash committed on release.
	FundTxHash, LockTxHash, ReleaseTxHash, RefundTxHash, CancelTxHash string
	DecisionHash                                                      string
	ExpiresAt                                                         time.Time
	RedeemedAt                                                        *time.Time
	ResendCount                                                       int
	ResendWindowStart                                                 *time.Time
	CreatedAt, UpdatedAt                                              time.Time
}

// New opens a claim for a payment: a fresh on-chain id and the metadata hash over the two
// server-generated ids.
func New(env core.Environment, paymentID, senderTenantID string, amount int64, chainID int64, chainKey, assetID string,
	phoneHash, phoneMasked string, phoneCiphertext []byte, lifetime time.Duration, now time.Time) Claim {
	if lifetime <= 0 {
		lifetime = DefaultLifetime
	}
	onchain := NewOnchainID()
	return Claim{ID: core.NewID(core.PrefixClaim), OnchainID: onchain, Environment: env, PaymentID: paymentID,
		SenderTenantID: senderTenantID, PhoneHash: phoneHash, PhoneMasked: phoneMasked, PhoneCiphertext: phoneCiphertext,
		AmountBaseUnits: amount, ChainID: chainID, ChainKey: chainKey, AssetID: assetID,
		MetadataHash: MetadataHash(onchain, paymentID), Status: StatusOpen, ExpiresAt: now.Add(lifetime).UTC(),
		CreatedAt: now, UpdatedAt: now}
}

// NewOnchainID is 32 CSPRNG bytes as 0x + 64 hex: never derived from the phone number.
func NewOnchainID() string {
	b := make([]byte, OnchainIDBytes)
	if _, err := rand.Read(b); err != nil {
		panic("claim: crypto/rand: " + err.Error())
	}
	return "0x" + hex.EncodeToString(b)
}

// MetadataHash is sha256 over the server-generated ids only: the domain, the on-chain claim id
// and the payment id, newline-separated.
func MetadataHash(onchainID, paymentID string) string {
	sum := sha256.Sum256([]byte(MetadataHashDomain + "\n" + strings.ToLower(onchainID) + "\n" + paymentID))
	return "0x" + hex.EncodeToString(sum[:])
}

// Bytes32 decodes a 0x + 64 hex value (on-chain id, metadata or decision hash).
func Bytes32(s string) ([32]byte, error) {
	var out [32]byte
	raw, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil || len(raw) != 32 {
		return out, fmt.Errorf("claim: %q is not 0x + 64 hex", s)
	}
	copy(out[:], raw)
	return out, nil
}

// AmountBig is the amount as the chain holds it.
func (c Claim) AmountBig() *big.Int { return big.NewInt(c.AmountBaseUnits) }

// Expired reports whether the claim's lifetime has passed at now.
func (c Claim) Expired(now time.Time) bool { return !now.Before(c.ExpiresAt) }

// Refundable reports whether expiry makes the claim refundable at now: an unredeemed claim
// from its expiry, a redeemed one (OPEN until its lock is indexed, then LOCKED) only once the
// grace period has also passed — funds win over expiry. Absorbing claims never are.
func (c Claim) Refundable(now time.Time, grace time.Duration) bool {
	switch {
	case c.Status.Absorbing():
		return false
	case c.RedeemedAt != nil:
		return !now.Before(c.ExpiresAt.Add(grace))
	}
	return c.Expired(now)
}

// Apply moves the claim along the table.
func (c *Claim) Apply(t Trigger, now time.Time) error {
	to, err := Next(c.Status, t)
	if err != nil {
		return err
	}
	c.Status, c.UpdatedAt = to, now
	return nil
}

// PublicView is what the claim link shows (docs/api.md: no personal data beyond the masked phone).
type PublicView struct {
	AmountBaseUnits int64
	AssetID         string
	ChainKey        string
	Status          Status
	ExpiresAt       time.Time
	PhoneMasked     string
}

// Public is the claim's public view.
func (c Claim) Public() PublicView {
	return PublicView{AmountBaseUnits: c.AmountBaseUnits, AssetID: c.AssetID, ChainKey: c.ChainKey, Status: c.Status,
		ExpiresAt: c.ExpiresAt, PhoneMasked: c.PhoneMasked}
}

// Link is a claim link: a single-use, expiring token stored only as its sha256.
type Link struct {
	// TenantID is the claim's sender's tenant: a link is stored with its claim.
	TenantID     string
	TokenHash    string
	ClaimID      string
	Environment  core.Environment
	ExpiresAt    time.Time
	UsedAt       *time.Time
	SupersededAt *time.Time
	CreatedAt    time.Time
}

// NewToken returns a fresh link token (32 CSPRNG bytes, base64url) and its hash.
func NewToken() (token, hash string) {
	b := make([]byte, TokenBytes)
	if _, err := rand.Read(b); err != nil {
		panic("claim: crypto/rand: " + err.Error())
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token)
}

// HashToken is the stored form of a link token: sha256, hex.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// WellFormedToken rejects input that cannot be a token before any lookup.
func WellFormedToken(token string) bool {
	if len(token) != base64.RawURLEncoding.EncodedLen(TokenBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil
}

// Usable checks a link for inspection and phone proof: not superseded, not used, not expired.
func (l Link) Usable(now time.Time) error {
	switch {
	case l.SupersededAt != nil:
		return core.E(CodeClaimNotFound, "this claim link is not valid")
	case l.UsedAt != nil:
		return core.E(CodeLinkUsed, "this claim link has already been used")
	case !now.Before(l.ExpiresAt):
		return core.E(CodeLinkExpired, "this claim link has expired")
	}
	return nil
}
