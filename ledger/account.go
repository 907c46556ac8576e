package ledger

import (
	"strconv"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
)

// Assets the service books. An asset is an upper-case code; the ledger never converts between
// assets, so a transfer touches accounts of exactly one asset.
const (
	AssetUSDC = "USDC"
	AssetUSD  = "USD"
)

// Well-known account kinds. Other packages may book other kinds (any lower-case snake_case
// word passes validation) without editing the ledger; these are the ones docs/architecture.md names.
const (
	KindTenantAvailable      = "tenant_available"
	KindOfframpReserved      = "offramp_reserved"
	KindOfframpLocked        = "offramp_locked"
	KindClaimEscrow          = "claim_escrow"
	KindWalletOnchain        = "wallet_onchain"
	KindTreasuryYield        = "treasury_yield"
	KindProviderClearing     = "provider_clearing"
	KindIssuerClearing       = "issuer_clearing"
	KindCardAuthorized       = "card_authorized"
	KindPlatformFees         = "platform_fees"
	KindPlatformSandboxPool  = "platform_sandbox_pool"
	KindPlatformSandboxYield = "platform_sandbox_yield"
	KindWorld                = "world"
	KindBetweenTenants       = "between_tenants"
)

// Limits on identifiers and labels. They bound row sizes and keep canonical bytes small.
const (
	maxReferenceBytes = 255
	maxKindBytes      = 64
	maxAssetBytes     = 16
	maxTenantIDBytes  = 64
)

// Account is one ledger account. Its (Environment, Asset, Reference) triple is unique; the store
// should enforce that with a unique index. NonNegative accounts may never have Available < 0:
// Apply refuses any transfer that would take them there.
type Account struct {
	ID          string
	Environment core.Environment
	Asset       string
	TenantID    string // "" for platform accounts.
	Kind        string
	Reference   string
	NonNegative bool
	CreatedAt   time.Time
}

// AccountSpec is an account before it exists: everything except its id and creation time.
// The constructors below (TenantAvailable, World, …) build the well-known ones so every caller
// spells a reference and its NonNegative flag the same way.
type AccountSpec struct {
	Environment core.Environment
	Asset       string
	TenantID    string
	Kind        string
	Reference   string
	NonNegative bool
}

// NewAccount checks spec and returns the account. The creation time is kept in UTC at
// microsecond precision, which is what a Postgres timestamptz stores.
func NewAccount(id string, spec AccountSpec, createdAt time.Time) (Account, error) {
	a := Account{
		ID:          id,
		Environment: spec.Environment,
		Asset:       spec.Asset,
		TenantID:    spec.TenantID,
		Kind:        spec.Kind,
		Reference:   spec.Reference,
		NonNegative: spec.NonNegative,
		CreatedAt:   normalizeTime(createdAt),
	}
	if err := a.Validate(); err != nil {
		return Account{}, err
	}
	return a, nil
}

// Spec returns the account's defining fields, for comparing an existing account with a request
// to open the same reference again.
func (a Account) Spec() AccountSpec {
	return AccountSpec{
		Environment: a.Environment, Asset: a.Asset, TenantID: a.TenantID,
		Kind: a.Kind, Reference: a.Reference, NonNegative: a.NonNegative,
	}
}

// Validate checks an account built here or read back from storage, so that a corrupt row is
// refused before any arithmetic relies on it.
func (a Account) Validate() error {
	f := core.FieldErrors{}
	if !core.HasPrefix(a.ID, core.PrefixAccount) {
		f.Add("id", "must be an account id (acc_…)")
	}
	if !a.Environment.Valid() {
		f.Add("environment", "must be TEST or LIVE")
	}
	if !validAsset(a.Asset) {
		f.Add("asset", "must be an upper-case asset code such as USDC")
	}
	if len(a.TenantID) > maxTenantIDBytes || !printable(a.TenantID) {
		f.Add("tenantId", "must be printable and at most 64 bytes")
	}
	if !validKind(a.Kind) {
		f.Add("kind", "must be a lower-case snake_case word of at most 64 bytes")
	}
	if !validReference(a.Reference) {
		f.Add("reference", "must be 1 to 255 printable bytes without spaces")
	}
	if a.Kind == KindPlatformSandboxPool && a.Environment != core.EnvTest {
		f.Add("kind", "the sandbox pool exists only in TEST")
	}
	if a.Kind == KindPlatformSandboxYield && a.Environment != core.EnvTest {
		f.Add("kind", "simulated treasury yield exists only in TEST")
	}
	if a.CreatedAt.IsZero() {
		f.Add("createdAt", "is required")
	}
	return f.Err()
}

// TenantAvailableRef is the reference of a tenant's spendable service balance (docs/decisions/ledger.md).
func TenantAvailableRef(tenantID string) string { return "tenant:" + tenantID + ":available" }

// OfframpReservedRef is the reference of an off-ramp payment's reservation account.
func OfframpReservedRef(paymentID string) string { return "offramp:" + paymentID + ":reserved" }

// OfframpLockedRef is the reference of the account that holds a funded off-ramp payment.
func OfframpLockedRef(paymentID string) string { return "offramp:" + paymentID + ":locked" }

// ClaimEscrowRef is the reference mirroring a pending claim's on-chain escrow lock.
func ClaimEscrowRef(claimID string) string { return "claim:" + claimID + ":escrow" }

// WalletOnchainRef is the reference mirroring a Safe wallet's on-chain balance.
func WalletOnchainRef(walletID string) string { return "wallet:" + walletID + ":onchain" }

// TreasuryYieldRef is the reference of the yield a treasury bucket has accrued.
func TreasuryYieldRef(bucketID string) string { return "treasury:" + bucketID + ":yield" }

// ProviderClearingRef is the reference of money handed to a payout provider, not yet delivered.
func ProviderClearingRef(provider string) string { return "provider:" + provider + ":clearing" }

// IssuerClearingRef is the reference of captured card spend owed to a card issuer and not yet
// settled to it on chain.
func IssuerClearingRef(issuer string) string { return "issuer:" + issuer + ":clearing" }

// CardAuthorizedRef is the reference of a card's approved spend, held until captured.
func CardAuthorizedRef(cardID string) string { return "card:" + cardID + ":authorized" }

// WorldRef is the reference of the outside world on one rail: money leaving the service ends
// there, money entering comes from there, so its balance is usually negative.
func WorldRef(rail string) string { return "world:" + rail }

// ChainRail names the world account of an EVM chain: world:chain:{chainId}.
func ChainRail(chainID int64) string { return "chain:" + strconv.FormatInt(chainID, 10) }

// Platform account references; there is one of each per environment and asset.
const (
	PlatformFeesRef         = "platform:fees"
	PlatformSandboxPoolRef  = "platform:sandbox_pool"
	PlatformSandboxYieldRef = "platform:sandbox_yield"
	BetweenTenantsRef       = "platform:between_tenants"
)

// TenantAvailable is a tenant's service balance. It never goes negative.
func TenantAvailable(env core.Environment, asset, tenantID string) AccountSpec {
	return AccountSpec{env, asset, tenantID, KindTenantAvailable, TenantAvailableRef(tenantID), true}
}

// OfframpReserved is an off-ramp payment's reservation account. It never goes negative.
func OfframpReserved(env core.Environment, asset, tenantID, paymentID string) AccountSpec {
	return AccountSpec{env, asset, tenantID, KindOfframpReserved, OfframpReservedRef(paymentID), true}
}

// OfframpLocked holds a funded off-ramp payment until it leaves. It never goes negative.
func OfframpLocked(env core.Environment, asset, tenantID, paymentID string) AccountSpec {
	return AccountSpec{env, asset, tenantID, KindOfframpLocked, OfframpLockedRef(paymentID), true}
}

// ClaimEscrow mirrors a claim's escrow lock. It never goes negative.
func ClaimEscrow(env core.Environment, asset, tenantID, claimID string) AccountSpec {
	return AccountSpec{env, asset, tenantID, KindClaimEscrow, ClaimEscrowRef(claimID), true}
}

// WalletOnchain mirrors a wallet's on-chain balance, which cannot be negative either.
func WalletOnchain(env core.Environment, asset, tenantID, walletID string) AccountSpec {
	return AccountSpec{env, asset, tenantID, KindWalletOnchain, WalletOnchainRef(walletID), true}
}

// TreasuryYield is a bucket's accrued yield. It never goes negative.
func TreasuryYield(env core.Environment, asset, tenantID, bucketID string) AccountSpec {
	return AccountSpec{env, asset, tenantID, KindTreasuryYield, TreasuryYieldRef(bucketID), true}
}

// ProviderClearing is a platform account per payout provider. It only passes on what it
// received, so it never goes negative; a negative balance would mean a double payout.
func ProviderClearing(env core.Environment, asset, provider string) AccountSpec {
	return AccountSpec{env, asset, "", KindProviderClearing, ProviderClearingRef(provider), true}
}

// IssuerClearing is a platform account per card issuer: a capture credits it from the card
// wallet's on-chain mirror, and the on-chain settlement to the issuer debits it. It never goes
// negative; a negative balance would mean a settlement of spend that was never captured.
func IssuerClearing(env core.Environment, asset, issuer string) AccountSpec {
	return AccountSpec{env, asset, "", KindIssuerClearing, IssuerClearingRef(issuer), true}
}

// CardAuthorized is a card's account of approved spend: an approval's hold moves money into
// it from the card's funding account, a capture passes what was captured on to the issuer's
// clearing account. One per card, so concurrent authorizations of different cards lock no
// shared row. It never goes negative.
func CardAuthorized(env core.Environment, asset, tenantID, cardID string) AccountSpec {
	return AccountSpec{env, asset, tenantID, KindCardAuthorized, CardAuthorizedRef(cardID), true}
}

// PlatformFees collects the platform's fees. It never goes negative.
func PlatformFees(env core.Environment, asset string) AccountSpec {
	return AccountSpec{env, asset, "", KindPlatformFees, PlatformFeesRef, true}
}

// PlatformSandboxPool is the TEST-only source of sandbox deposits (docs/decisions/ledger.md). It issues
// play money, so it goes negative by design.
func PlatformSandboxPool(env core.Environment, asset string) AccountSpec {
	return AccountSpec{env, asset, "", KindPlatformSandboxPool, PlatformSandboxPoolRef, false}
}

// PlatformSandboxYield is the TEST-only source of simulated treasury yield (docs/decisions/treasury.md). It
// pays play money, so it goes negative by design.
func PlatformSandboxYield(env core.Environment, asset string) AccountSpec {
	return AccountSpec{env, asset, "", KindPlatformSandboxYield, PlatformSandboxYieldRef, false}
}

// BetweenTenants carries money from one tenant to another in two single-home transfers
// (docs/ledger.md, "Money between tenants"): the sender's leg credits the sender's share, the
// recipient's leg debits the recipient's share, so each leg touches one tenant's rows and the
// shares sum to the money still between the legs. A recipient's share goes negative by design.
func BetweenTenants(env core.Environment, asset string) AccountSpec {
	return AccountSpec{env, asset, "", KindBetweenTenants, BetweenTenantsRef, false}
}

// World is the outside world on one rail. It goes negative by design.
func World(env core.Environment, asset, rail string) AccountSpec {
	return AccountSpec{env, asset, "", KindWorld, WorldRef(rail), false}
}

func validAsset(s string) bool {
	if len(s) < 2 || len(s) > maxAssetBytes || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func validKind(s string) bool {
	if s == "" || len(s) > maxKindBytes || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '_' {
			return false
		}
	}
	return true
}

// validReference accepts 1 to 255 visible ASCII bytes. Spaces and control characters are
// refused so that a reference printed in a log or a CSV export reads back unambiguously.
func validReference(s string) bool {
	if s == "" || len(s) > maxReferenceBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// normalizeTime keeps times in UTC at microsecond precision, the precision of Postgres
// timestamptz, so a transfer read back from storage hashes exactly as it did when written.
func normalizeTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Microsecond)
}

// ShareSeparator joins a platform account's reference and the tenant of one of its per-tenant
// shares: platform:fees@ten_… is the tenant's share of platform:fees.
const ShareSeparator = "@"

// Share returns the tenant's share of a platform account: the same kind, asset and
// environment, still without a tenant (it is the platform's money, never listed among the
// tenant's accounts), its reference suffixed with @tenant. A transfer of one tenant then
// touches only rows that live with that tenant (its shard group on a distributed database)
// instead of one platform row every tenant's transfers lock; the sweep moves shares into
// the platform account and the reports sum them (docs/scaling.md). A tenant account, or an
// empty tenant, is returned as it is.
func Share(spec AccountSpec, tenantID string) AccountSpec {
	if spec.TenantID != "" || tenantID == "" {
		return spec
	}
	spec.Reference += ShareSeparator + tenantID
	return spec
}

// ShareOf reads a reference as a share: the platform account's reference and the tenant.
// ok is false for any other reference.
func ShareOf(reference string) (base, tenantID string, ok bool) {
	i := strings.LastIndex(reference, ShareSeparator)
	if i <= 0 || i == len(reference)-1 {
		return reference, "", false
	}
	return reference[:i], reference[i+1:], true
}

// Home is the tenant whose rows the account lives with: its own tenant, the tenant of a
// platform share, or "" for a platform account proper.
func (a Account) Home() string {
	if a.TenantID != "" {
		return a.TenantID
	}
	if _, tenant, ok := ShareOf(a.Reference); ok {
		return tenant
	}
	return ""
}

// BaseReference is the reference the account is reported under: a share's platform
// account, any other account's own reference.
func (a Account) BaseReference() string {
	if a.TenantID != "" {
		return a.Reference
	}
	base, _, _ := ShareOf(a.Reference)
	return base
}

// Sweepable reports whether a share's balance may be moved into its platform account at any
// time: the platform's own income and the sources of play and outside money. Clearing
// accounts pass money on and are left where the payment that owns it will look for it.
func Sweepable(kind string) bool {
	switch kind {
	case KindPlatformFees, KindPlatformSandboxPool, KindPlatformSandboxYield, KindWorld, KindBetweenTenants:
		return true
	}
	return false
}
