package ports

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/treasury"
)

// TreasuryRepo stores treasury accounts with their buckets, rules and sweeps. Accounts read
// back carry their buckets in position order with each bucket wallet's address and status.
type TreasuryRepo interface {
	// CreateAccount inserts the account and its buckets (their wallets exist already).
	CreateAccount(ctx context.Context, a treasury.Account) error
	// FindAccount returns a tenant's account in env, or TREASURY_ACCOUNT_NOT_FOUND.
	FindAccount(ctx context.Context, tenantID string, env core.Environment, id string) (treasury.Account, error)
	// FindAccountIDByWallet is the id of the tenant's account in env one of whose buckets is
	// walletID; found is false for any other wallet.
	FindAccountIDByWallet(ctx context.Context, tenantID string, env core.Environment, walletID string) (id string, found bool, err error)
	// LockAccount loads a tenant's account by id and locks its row (the clock helper, jobs).
	LockAccount(ctx context.Context, tenantID, id string) (treasury.Account, error)
	ListAccounts(ctx context.Context, tenantID string, env core.Environment, page Page) ([]treasury.Account, int, error)
	// ListYieldAccounts lists accounts of env with at least one bucket earning simulated
	// yield, ids above afterID in id order, at most limit.
	ListYieldAccounts(ctx context.Context, env core.Environment, afterID string, limit int) ([]treasury.Account, error)
	SetClockOffset(ctx context.Context, tenantID, accountID string, days int) error

	CreateRule(ctx context.Context, r treasury.Rule) error
	// FindRule returns a tenant's rule in env that is not deleted, or TREASURY_RULE_NOT_FOUND.
	FindRule(ctx context.Context, tenantID string, env core.Environment, id string) (treasury.Rule, error)
	// LockRule loads a tenant's rule by id (deleted ones too) and locks its row.
	LockRule(ctx context.Context, tenantID, id string) (treasury.Rule, error)
	UpdateRule(ctx context.Context, r treasury.Rule) error
	ListRules(ctx context.Context, tenantID, accountID string, page Page) ([]treasury.Rule, int, error)
	CountRules(ctx context.Context, tenantID, accountID string) (int, error)
	// ListDueRules lists enabled, undeleted rules of env whose interval has passed at wall
	// time now moved by their account's clock offset (optionally of one account), longest
	// overdue first, at most limit.
	ListDueRules(ctx context.Context, env core.Environment, accountID string, now time.Time, limit int) ([]treasury.Rule, error)

	CreateSweep(ctx context.Context, s treasury.Sweep) error
	ListSweeps(ctx context.Context, tenantID, accountID string, page Page) ([]treasury.Sweep, int, error)
	// LatestRuleSweep is the newest sweep a rule proposed, ok=false when none.
	LatestRuleSweep(ctx context.Context, tenantID, ruleID string) (s treasury.Sweep, ok bool, err error)
	// PendingSweepOutflows sums, per source bucket, the sweeps of an account whose payment can
	// still move money (not COMPLETED, FAILED or CANCELLED); walletIDs are the account's bucket
	// wallets, the payments' sources.
	PendingSweepOutflows(ctx context.Context, tenantID, accountID string, walletIDs []string) (map[string]int64, error)
	// FindSweepByPayment is the sweep whose payment is paymentID, ok=false when the payment is
	// not a sweep's.
	FindSweepByPayment(ctx context.Context, tenantID, paymentID string) (s treasury.Sweep, ok bool, err error)
}
