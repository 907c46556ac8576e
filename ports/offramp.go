package ports

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/recipient"
)

// RecipientRepo stores what makes a tenant a payable recipient: phone aliases, the
// BUSINESS_IDENTITY credential and payout destinations.
type RecipientRepo interface {
	CreateAlias(ctx context.Context, a recipient.Alias) error
	// LockAlias locks a tenant's alias row. Not found: PHONE_ALIAS_NOT_FOUND.
	LockAlias(ctx context.Context, tenantID string, env core.Environment, id string) (recipient.Alias, error)
	// UpdateAlias saves an alias; a second VERIFIED alias for one number in one environment is
	// PHONE_ALIAS_TAKEN (a unique index decides races).
	UpdateAlias(ctx context.Context, a recipient.Alias) error
	ListAliases(ctx context.Context, tenantID string, env core.Environment, page Page) ([]recipient.Alias, int, error)
	// FindVerifiedAlias resolves a phone hash to the VERIFIED alias of its one tenant, or
	// PHONE_ALIAS_NOT_FOUND.
	FindVerifiedAlias(ctx context.Context, env core.Environment, phoneHash string) (recipient.Alias, error)
	// RecordAliasAttempt counts a code sent or a wrong code against the alias budgets.
	RecordAliasAttempt(ctx context.Context, a AliasAttempt) error
	// CountAliasAttempts counts the attempts of one scope since a time, and the oldest of them
	// (when the budget frees up again); exactly one of the scope's fields must be set.
	CountAliasAttempts(ctx context.Context, scope AliasAttemptScope, since time.Time) (n int, oldest time.Time, err error)
	// LockAliasBudgets serialises, until the transaction ends, every request counted against
	// one of these scopes, so concurrent requests cannot all pass the same count. Callers lock
	// in one order (phone, tenant, IP).
	LockAliasBudgets(ctx context.Context, scopes ...AliasAttemptScope) error
	// CountPendingAliases counts a tenant's aliases still waiting for a code that has not expired.
	CountPendingAliases(ctx context.Context, tenantID string, env core.Environment, now time.Time) (int, error)

	// FindCredential returns the tenant's credential, ok=false when it has none.
	FindCredential(ctx context.Context, tenantID string, env core.Environment) (recipient.Credential, bool, error)
	PutCredential(ctx context.Context, c recipient.Credential) error

	CreateDestination(ctx context.Context, d recipient.Destination) error
	// FindDestination returns a tenant's destination. Not found: PAYOUT_DESTINATION_NOT_FOUND.
	FindDestination(ctx context.Context, tenantID string, env core.Environment, id string) (recipient.Destination, error)
	ListDestinations(ctx context.Context, tenantID string, env core.Environment, page Page) ([]recipient.Destination, int, error)
	// SetDestinationStatus changes a tenant's destination's status. Not found:
	// PAYOUT_DESTINATION_NOT_FOUND.
	SetDestinationStatus(ctx context.Context, tenantID string, env core.Environment, id string, status recipient.DestinationStatus) error
}

// OfframpFilter selects payments a tenant takes part in.
type OfframpFilter struct {
	Environment core.Environment
	TenantID    string // as sender or as recipient
}

// OfframpRepo stores off-ramp payments, their quote sets, returns and provider events.
type OfframpRepo interface {
	CreatePayment(ctx context.Context, p offramp.Payment) error
	// CreatePayment stores a payment with its SENDER's tenant (its key, and its shard on Citus).
	// FindPayment returns a payment the tenant sends or receives; else OFFRAMP_PAYMENT_NOT_FOUND.
	FindPayment(ctx context.Context, env core.Environment, tenantID, id string) (offramp.Payment, error)
	// LockPayment locks a payment's row by id alone (jobs and webhooks): the adapter finds the
	// sender's tenant through the id's lookup row.
	LockPayment(ctx context.Context, id string) (offramp.Payment, error)
	// LockPaymentByProviderReference locks the payment of a provider's reference.
	LockPaymentByProviderReference(ctx context.Context, provider, reference string) (offramp.Payment, error)
	UpdatePayment(ctx context.Context, p offramp.Payment) error
	ListPayments(ctx context.Context, f OfframpFilter, page Page) ([]offramp.Payment, int, error)
	// HeldPaymentIDs lists a recipient's payments in PAYOUT_SELECTION_REQUIRED or COMPLIANCE_HOLD.
	HeldPaymentIDs(ctx context.Context, env core.Environment, recipientTenantID string, limit int) ([]string, error)
	// ExpiredQuotePaymentIDs lists payments awaiting confirmation with an ACTIVE quote past its
	// expiry time.
	ExpiredQuotePaymentIDs(ctx context.Context, now time.Time, limit int) ([]string, error)
	// RecheckDueHeldPaymentIDs lists payments in PAYOUT_SELECTION_REQUIRED or COMPLIANCE_HOLD
	// held on one of reasons whose recheck backoff has passed (or never started), oldest
	// recheck first.
	RecheckDueHeldPaymentIDs(ctx context.Context, now time.Time, reasons []offramp.HoldReason, limit int) ([]string, error)
	// BackOffHoldRecheck counts one more recheck that found the payment still held and sets
	// the next at now + first·2^(attempts−1), at most max. ClearHoldRecheck forgets it.
	// Both take the payment's sender's tenant, as every per-payment row below does.
	BackOffHoldRecheck(ctx context.Context, tenantID, paymentID string, now time.Time, first, max time.Duration) error
	ClearHoldRecheck(ctx context.Context, tenantID, paymentID string) error
	// ResetHoldRechecks forgets the backoff of every payment held on reason, so the next
	// recheck pass looks at them at once.
	ResetHoldRechecks(ctx context.Context, reason offramp.HoldReason) error
	// TopUpLiquidity records an operator's top-up once per (env, provider, reference); added
	// is false when the reference was already recorded. LiquidityTopUps sums a provider's.
	TopUpLiquidity(ctx context.Context, env core.Environment, provider, reference string, amountBaseUnits int64, operator string, now time.Time) (added bool, err error)
	LiquidityTopUps(ctx context.Context, env core.Environment, provider string) (int64, error)
	// SenderSpend sums the source amounts of the sender's payments created in each window,
	// counting those that hold or have moved money (every status but CANCELED and REFUNDED)
	// and leaving out excludePaymentID, the payment being evaluated. A sum beyond int64
	// saturates at its maximum.
	SenderSpend(ctx context.Context, env core.Environment, senderTenantID, excludePaymentID string, w policy.Windows) (policy.Spend, error)

	// InsertQuotes stores a new set; SupersedeQuotes marks every ACTIVE quote of a payment.
	// tenantID is the payment's sender's tenant.
	InsertQuotes(ctx context.Context, tenantID string, qs []offramp.Quote) error
	SupersedeQuotes(ctx context.Context, tenantID, paymentID string, status offramp.QuoteStatus) error
	// ActiveQuotes returns the payment's current set (status ACTIVE), in its order.
	ActiveQuotes(ctx context.Context, tenantID, paymentID string) ([]offramp.Quote, error)
	// FindQuote returns one quote of the payment. Not found: ROUTE_QUOTE_NOT_FOUND.
	FindQuote(ctx context.Context, tenantID, paymentID, quoteID string) (offramp.Quote, error)

	// RecordReturn records a post-delivery return once per payment (false when already recorded).
	RecordReturn(ctx context.Context, tenantID, paymentID, transferID string, amountBaseUnits int64, at time.Time) (bool, error)
	// RecordProviderEvent stores a webhook event id once (false on a replay).
	RecordProviderEvent(ctx context.Context, provider, eventID string, at time.Time) (bool, error)

	// ApproveReview records an operator's approval of review hold reasons (docs/decisions/operations.md), adding them
	// to any earlier approval of the payment (the first approver and time are kept).
	ApproveReview(ctx context.Context, tenantID, paymentID, operator string, reasons []offramp.HoldReason, at time.Time) error
	// ApprovedReviewReasons returns the review reasons an operator approved (none: nil).
	ApprovedReviewReasons(ctx context.Context, tenantID, paymentID string) ([]offramp.HoldReason, error)
}

// AliasAttemptKind says what an alias budget counts.
type AliasAttemptKind string

// Alias budgets count codes sent and wrong codes alike.
const (
	AliasCodeSent   AliasAttemptKind = "CODE_SENT"
	AliasCodeFailed AliasAttemptKind = "CODE_FAILED"
)

// AliasAttempt is one code sent, or one wrong code, for a phone alias.
type AliasAttempt struct {
	Environment core.Environment
	Kind        AliasAttemptKind
	PhoneHash   string
	TenantID    string
	IPHash      string
	At          time.Time
}

// AliasAttemptScope selects what one alias budget counts: a phone in an environment, a tenant
// in an environment, or a client IP hash (across environments).
type AliasAttemptScope struct {
	Environment core.Environment
	PhoneHash   string
	TenantID    string
	IPHash      string
	Kind        AliasAttemptKind // empty: codes sent and wrong codes alike
}

// SMSMessage is one text to a phone. The number travels encrypted; ToMasked is what a sandbox
// outbox may show.
type SMSMessage struct {
	// IdempotencyKey is derived from the business object the text is about (an alias's code,
	// a claim challenge, a claim link): a gateway sends one text per key, so a retried job
	// never texts twice.
	IdempotencyKey string
	TenantID       string
	Environment    core.Environment
	ToHash         string
	ToMasked       string
	ToCiphertext   []byte
	Body           string
	Purpose        string
}

// SMS sends texts. It leaves the process, so it is called only from the SMS outbox job after
// the unit of work that decided the text committed (docs/decisions/reliability.md), never inside one. The
// sandbox adapter stores the text in the outbox TEST callers read.
type SMS interface {
	Send(ctx context.Context, m SMSMessage, now time.Time) error
}

// SentSMS is an outbox entry.
type SentSMS struct {
	ID       string
	ToMasked string
	Body     string
	Purpose  string
	SentAt   time.Time
}

// SMSOutbox reads the sandbox outbox (GET /v1/sandbox/sms-messages).
type SMSOutbox interface {
	ListSMS(ctx context.Context, tenantID string, env core.Environment, page Page) ([]SentSMS, int, error)
	// PurgeSMS deletes at most limit messages sent before a time and says how many it deleted.
	PurgeSMS(ctx context.Context, before time.Time, limit int) (int, error)
}

// Cipher protects identifiers at rest (docs/architecture.md): AES-GCM encryption bound to a context
// string, and a keyed hash for equality lookups that reveals nothing without the key.
type Cipher interface {
	Encrypt(plaintext []byte, context string) ([]byte, error)
	Decrypt(ciphertext []byte, context string) ([]byte, error)
	LookupHash(purpose, value string) string
}

// ProviderMode is a payout provider's mode (docs/decisions/offramp.md). Unset means off.
type ProviderMode string

const (
	ModeOff     ProviderMode = "off"
	ModeMock    ProviderMode = "mock"
	ModeSandbox ProviderMode = "sandbox"
	ModeLive    ProviderMode = "live"
)

// PayoutState is what a provider reports about one payout.
type PayoutState string

const (
	PayoutSubmitted PayoutState = "SUBMITTED"
	PayoutPending   PayoutState = "PENDING"
	PayoutSucceeded PayoutState = "SUCCEEDED"
	PayoutBlocked   PayoutState = "BLOCKED"
	PayoutFailed    PayoutState = "FAILED"
	PayoutReturned  PayoutState = "RETURNED"
	// PayoutDestinationRevoked: the provider refuses the payout because the recipient's
	// destination is revoked at the provider; nothing was accepted and no money moved.
	PayoutDestinationRevoked PayoutState = "DESTINATION_REVOKED"
)

// PayoutRequest is one payout attempt.
type PayoutRequest struct {
	IdempotencyKey  string
	PaymentID       string
	Environment     core.Environment
	AmountBaseUnits int64
	// DeliverBaseUnits is what reaches the recipient (the confirmed quote's amount less its
	// fees): what a USDC rail transfers.
	DeliverBaseUnits       int64
	DestinationAmountMinor int64
	DestinationCurrency    string
	DestinationType        recipient.DestinationType
	Destination            recipient.Identifier
}

// PayoutStatus is a provider's answer. Final says no later change will be reported.
type PayoutStatus struct {
	Reference string
	State     PayoutState
	Final     bool
}

// PayoutProvider pays out on one rail. Submit is idempotent by the request's key; Poll reads
// (and, for the mock, advances by one scripted step) the payout's status.
type PayoutProvider interface {
	Name() string
	Submit(ctx context.Context, r PayoutRequest) (PayoutStatus, error)
	Poll(ctx context.Context, reference string) (PayoutStatus, error)
}

// NetworkPayout is implemented by a provider that pays ONCHAIN_WALLET destinations on a chain
// that moves real value in every mode it runs: Network is the destination network it pays on
// in env (eip155:{chainId}), false where it cannot pay out. Its routes are eligible only for
// destinations on that network.
type NetworkPayout interface {
	Network(env core.Environment) (string, bool)
}

// PayoutRail is one configured provider: its rail, mode, terms and webhook secret.
type PayoutRail struct {
	Rail          recipient.DestinationType
	Mode          ProviderMode
	Terms         offramp.Terms
	WebhookSecret []byte
	Provider      PayoutProvider
}

// ScreeningInput is what screening looks at.
type ScreeningInput struct {
	Environment       core.Environment
	PaymentID         string
	SenderTenantID    string
	RecipientTenantID string
	AmountBaseUnits   int64
	// DestinationAddress is the on-chain address paid, when there is one (a Safe payment).
	DestinationAddress string
}

// Screening runs transaction monitoring and sanctions screening. It returns the hold or
// reject reasons it finds (none when clear); an error makes the composer hold with
// POLICY_SUBSYSTEM_ERROR, failing closed.
type Screening interface {
	Screen(ctx context.Context, in ScreeningInput) ([]offramp.HoldReason, error)
}
