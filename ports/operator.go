package ports

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
)

// OperatorReports are the cross-tenant lists of the operator console (docs/decisions/operations.md): work that
// waits for a person. Every list is bounded by limit and puts the longest-waiting item first.
type OperatorReports interface {
	// PaymentsAwaitingOperator are off-ramp payments in ACTION_REQUIRED or COMPLIANCE_HOLD.
	PaymentsAwaitingOperator(ctx context.Context, limit int) ([]OperatorPayment, error)
	// FailedJobs are background jobs whose last attempt failed: retryable (River tries again)
	// and discarded (out of attempts: their work did not happen).
	FailedJobs(ctx context.Context, limit int) ([]FailedJob, error)
	// StuckRelayerTransactions are relayer nonces sent and still unmined after olderThan.
	StuckRelayerTransactions(ctx context.Context, olderThan time.Duration, limit int) ([]StuckRelayerTransaction, error)
	// DisabledEndpoints are webhook endpoints the service disabled after failing for the retry
	// window (not those a tenant switched off).
	DisabledEndpoints(ctx context.Context, limit int) ([]DisabledEndpoint, error)
	// FindDisabledEndpoint is one endpoint of DisabledEndpoints by id; one that is enabled,
	// deleted or unknown is WEBHOOK_ENDPOINT_NOT_FOUND.
	FindDisabledEndpoint(ctx context.Context, id string) (DisabledEndpoint, error)
	// InvoicesAwaitingArbiter are invoices whose arbiter is arbiter (the platform's address)
	// with a release or refund payment still waiting for signatures (docs/decisions/invoices.md).
	InvoicesAwaitingArbiter(ctx context.Context, arbiter string, limit int) ([]ArbiterInvoice, error)
	// FindTenants looks tenants up by id or slug (exactly) or by a member's email (exactly, in
	// any case), each tenant once, oldest first.
	FindTenants(ctx context.Context, q string, limit int) ([]TenantMatch, error)
	// RecentOperatorActions are the newest entries of the operator audit trail.
	RecentOperatorActions(ctx context.Context, limit int) ([]OperatorAction, error)
}

// OperatorAudit keeps the operator audit trail: every operator action, done or refused, with
// who, what, on which object and tenant, and when. Entries are only ever added.
type OperatorAudit interface {
	RecordOperatorAction(ctx context.Context, a OperatorAction) error
}

// OperatorAction is one entry of the operator audit trail.
type OperatorAction struct {
	ID          int64
	At          time.Time
	Operator    string // the operator's name: a fingerprint of the token, never the token
	Action      string // approve-review, arbiter-sign, redeliver, retry-job
	ObjectID    string // the payment, invoice, endpoint or job acted on
	TenantID    string // empty when the object belongs to no tenant (a job)
	Environment core.Environment
	Outcome     string // "done", or "refused" with the code and message in Detail
	Detail      string
	Via         string // console or api
}

// ArbiterInvoice is an invoice whose settlement payment waits for the platform arbiter.
type ArbiterInvoice struct {
	ID            string
	TenantID      string
	Environment   core.Environment
	Status        string
	Settlement    string // release or refund
	PaymentID     string
	PaymentStatus string
	Amount        int64 // USD base units
	UpdatedAt     time.Time
}

// JobRetrier makes a failed background job available again, for an operator who fixed what
// made it fail. Only a retryable or discarded job is retried; a job that is not is refused
// with INVALID_STATE, an unknown one with JOB_NOT_FOUND.
type JobRetrier interface {
	RetryJob(ctx context.Context, id int64) error
}

// OperatorPayment is an off-ramp payment waiting for an operator.
type OperatorPayment struct {
	ID          string
	TenantID    string
	Environment core.Environment
	Status      string
	HoldReasons []string
	Provider    string
	UpdatedAt   time.Time
}

// FailedJob is a background job whose last attempt failed.
type FailedJob struct {
	ID          int64
	Kind        string
	State       string // retryable or discarded
	Args        string // the job's arguments (JSON), at most 200 characters: the business object it names
	Attempt     int
	MaxAttempts int
	LastError   string // the last attempt's error, at most 300 characters
	At          time.Time
}

// DisabledEndpoint is a webhook endpoint disabled after failing for the whole retry window.
type DisabledEndpoint struct {
	ID           string
	TenantID     string
	Environment  core.Environment
	URL          string
	Reason       string
	FailingSince *time.Time
	UpdatedAt    time.Time
}

// StuckRelayerTransaction is one relayer nonce whose transactions (the first send and its fee
// bumps) are all still unmined.
type StuckRelayerTransaction struct {
	ChainID      int64
	Address      string
	Nonce        int64
	FirstSentAt  time.Time
	Sends        int    // the first send and every replacement
	LatestTxHash string // the newest replacement's hash, the one to look up
}

// TenantMatch is a tenant found by an operator's lookup, and what matched.
type TenantMatch struct {
	ID        string
	Slug      string
	Name      string
	CreatedAt time.Time
	MatchedBy string // id, slug or email
	Members   int    // active and pending members
}
