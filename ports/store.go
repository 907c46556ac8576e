// Package ports declares what the application needs from the world. Each interface is owned by
// its caller and named for what that caller needs; adapters prove they fit at compile time.
package ports

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/tenant"
)

// Store runs units of work. InTx runs fn in one database transaction and commits when fn returns
// nil. Called inside another InTx (the context carries the transaction) it runs as a nested
// savepoint, so a failing inner step rolls back only itself. The outermost call retries fn a
// bounded number of times on serialization failures and deadlocks, so fn must be re-runnable.
type Store interface {
	InTx(ctx context.Context, fn func(ctx context.Context, tx Tx) error) error
	Ping(ctx context.Context) error
}

// Tx gives the repositories bound to one transaction.
type Tx interface {
	Tenants() TenantRepo
	Members() MemberRepo
	APIKeys() APIKeyRepo
	Idempotency() IdempotencyRepo
	// Ledger posts transfers inside this transaction (see LedgerRepo).
	Ledger() LedgerRepo
	// LedgerReports reads the ledger for finance (see LedgerReports).
	LedgerReports() LedgerReports
	Wallets() WalletRepo
	// RelayerBudget counts relayer-paid transactions per tenant, environment and day.
	RelayerBudget() RelayerBudgetRepo
	Payments() PaymentRepo
	// PaymentHolds stores what Safe payments on their way hold on their wallets' mirrors.
	PaymentHolds() PaymentHoldRepo
	Handles() HandleRepo
	Drips() DripRepo
	// ChainIndex stores the ledger mirror's indexer cursor (see ChainIndexRepo).
	ChainIndex() ChainIndexRepo
	// Policies stores spend policies, versions, attachments and decision logs.
	Policies() PolicyRepo
	// Recipients stores phone aliases, credentials and payout destinations.
	Recipients() RecipientRepo
	// Offramp stores off-ramp payments, quote sets, returns and provider events.
	Offramp() OfframpRepo
	// Claims stores pending claims, claim links, phone challenges and escrow events.
	Claims() ClaimRepo
	// Agents stores agents, their card budget records, and reads their spend and activity.
	Agents() AgentRepo
	// Treasury stores treasury accounts, buckets, rules and sweeps.
	Treasury() TreasuryRepo
	// Cards stores cardholders, cards, card authorizations and card spend windows.
	Cards() CardRepo
	// Ramps stores sandbox ramps.
	Ramps() RampRepo
	// TwoFactor stores contacts, two-factor factors, approval settings and challenges.
	TwoFactor() TwoFactorRepo
	// Invoices stores escrow invoices and verifiable bills.
	Invoices() InvoiceRepo
	// Events stores partner-facing events and webhook endpoints and deliveries.
	Events() EventRepo
	// Checkouts stores hosted-checkout payments and their refunds.
	Checkouts() CheckoutRepo
	// WalletActivity reads Safe payments and mirror lines together (the secondary lists).
	WalletActivity() WalletActivityRepo
}

// TenantRepo stores tenants.
type TenantRepo interface {
	// CreateTenant inserts t; it returns core.ErrInvalidState-coded error "slug taken" as
	// ErrSlugTaken when the slug is already used, so the caller can try the next candidate.
	CreateTenant(ctx context.Context, t tenant.Tenant) error
	FindTenant(ctx context.Context, id string) (tenant.Tenant, error)
	// FindTenantForUser resolves a session user to its tenant: the tenant it owns, else the
	// tenant where it is an ACTIVE member (with that member). Not found: TENANT_NOT_FOUND.
	FindTenantForUser(ctx context.Context, userID string) (tenant.Tenant, *tenant.Member, error)
	// LockUser serialises tenant creation for one identity-provider user.
	LockUser(ctx context.Context, userID string) error
}

// ErrSlugTaken is returned by CreateTenant when the slug exists.
var ErrSlugTaken = core.E(core.CodeInvalidState, "slug taken")

// MemberRepo stores members and invites.
type MemberRepo interface {
	CreateMember(ctx context.Context, m tenant.Member) error
	FindMember(ctx context.Context, tenantID, id string) (tenant.Member, error)
	// FindMemberByInviteHashForUpdate locks the invite's row. Not found: INVITE_NOT_FOUND.
	FindMemberByInviteHashForUpdate(ctx context.Context, tokenHash string) (tenant.Member, error)
	ListMembers(ctx context.Context, tenantID string, page Page) ([]tenant.Member, int, error)
	UpdateMember(ctx context.Context, m tenant.Member) error
}

// APIKeyRepo stores API keys.
type APIKeyRepo interface {
	CreateAPIKey(ctx context.Context, k tenant.APIKey) error
	FindAPIKeyByPubID(ctx context.Context, pubID string) (tenant.APIKey, error)
	FindAPIKey(ctx context.Context, tenantID string, env core.Environment, id string) (tenant.APIKey, error)
	ListAPIKeys(ctx context.Context, tenantID string, env core.Environment, page Page) ([]tenant.APIKey, int, error)
	RevokeAPIKey(ctx context.Context, tenantID string, env core.Environment, id string, at time.Time) error
	// RevokeKeysCreatedByMember revokes, in both environments, every key the member created
	// and every key those keys minted in turn; it returns how many it revoked now.
	RevokeKeysCreatedByMember(ctx context.Context, tenantID, memberID string, at time.Time) (int, error)
}

// Page is skip/take paging (docs/architecture.md: take at most 100).
type Page struct {
	Skip int
	Take int
}

// MaxTake bounds any list.
const MaxTake = 100

// MaxSkip bounds how far into a list a page may start: an OFFSET makes the database read and
// discard every row before it, so an unbounded skip is a cheap way to make it scan a tenant's
// whole history. Beyond it, a client narrows the list (a time window, a filter) instead.
const MaxSkip = 10_000

// IdempotencyRecord is a stored POST outcome, keyed by (scope, environment, key) per docs/decisions/api.md.
type IdempotencyRecord struct {
	Scope       string // "tenant:{id}" or "user:{sub}" for sessions without a tenant
	Environment core.Environment
	Key         string
	Fingerprint string // sha256 over method, route and body
	StatusCode  int
	Body        []byte
	ContentType string
	CreatedAt   time.Time
	ExpiresAt   time.Time
}

// IdempotencyRepo stores idempotency records.
type IdempotencyRepo interface {
	// TryLock takes a transaction-scoped lock on the key and reports whether it was free;
	// a held lock means another request with the same key is in flight.
	TryLock(ctx context.Context, scope string, env core.Environment, key string) (bool, error)
	// Find returns the live (unexpired at now) record, or ok=false.
	Find(ctx context.Context, scope string, env core.Environment, key string, now time.Time) (IdempotencyRecord, bool, error)
	// Claim is Find, then (when nothing is stored) TryLock and Find again, in one call:
	// stored reports a live record (rec), claimed that this transaction now holds the key's
	// lock; neither means another request with the key is in flight.
	Claim(ctx context.Context, scope string, env core.Environment, key string, now time.Time) (rec IdempotencyRecord, stored, claimed bool, err error)
	Save(ctx context.Context, r IdempotencyRecord) error
	DeleteExpired(ctx context.Context, now time.Time, limit int) (int, error)
}

// RelayerBudgetRepo counts relayer-paid transactions per tenant, environment and UTC day.
type RelayerBudgetRepo interface {
	// Charge adds one to the day's count unless it already reached limit; charged is false
	// (and nothing changes) when it had.
	Charge(ctx context.Context, tenantID string, env core.Environment, day time.Time, limit int) (charged bool, err error)
}
