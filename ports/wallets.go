package ports

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
)

// WalletRepo stores wallets. Lookups scoped by tenant and environment answer WALLET_NOT_FOUND
// for another tenant's or environment's wallet.
type WalletRepo interface {
	CreateWallet(ctx context.Context, w wallet.Wallet) error
	FindWallet(ctx context.Context, tenantID string, env core.Environment, id string) (wallet.Wallet, error)
	// LockWallet loads a tenant's wallet by id (for background jobs) and locks its row. An empty
	// tenantID (a job enqueued before jobs carried the tenant) finds the wallet by id alone.
	LockWallet(ctx context.Context, tenantID, id string) (wallet.Wallet, error)
	ListWallets(ctx context.Context, tenantID string, env core.Environment, page Page) ([]wallet.Wallet, int, error)
	UpdateWallet(ctx context.Context, w wallet.Wallet) error
	// CountWalletsLocked counts a tenant's wallets in env under a transaction-scoped lock on the
	// tenant's wallet creation, so a quota check and the insert that follows cannot race.
	CountWalletsLocked(ctx context.Context, tenantID string, env core.Environment) (int, error)
	// ListTenantWallets lists a tenant's wallets of one environment, oldest id first (bounded by limit).
	ListTenantWallets(ctx context.Context, tenantID string, env core.Environment, limit int) ([]wallet.Wallet, error)
}

// PaymentRepo stores Safe payments.
type PaymentRepo interface {
	CreatePayment(ctx context.Context, p safepay.Payment) error
	FindPayment(ctx context.Context, tenantID string, env core.Environment, id string) (safepay.Payment, error)
	// LockPayment loads and locks a tenant's payment by id (for jobs and concurrent
	// sign/execute). An empty tenantID (a job enqueued before jobs carried the tenant) finds the
	// payment by id alone.
	LockPayment(ctx context.Context, tenantID, id string) (safepay.Payment, error)
	ListPayments(ctx context.Context, tenantID string, env core.Environment, page Page) ([]safepay.Payment, int, error)
	UpdatePayment(ctx context.Context, p safepay.Payment) error
	// HighestNonceInUse is the largest Safe nonce held by a non-terminal or COMPLETED payment
	// of the wallet (cancelled and failed payments gave theirs up), or ok=false when none.
	HighestNonceInUse(ctx context.Context, tenantID, walletID string) (nonce uint64, ok bool, err error)
	// ListQueuedPayments lists the wallet's non-terminal payments with a Safe nonce above
	// afterNonce, lowest nonce first, at most limit.
	ListQueuedPayments(ctx context.Context, tenantID, walletID string, afterNonce uint64, limit int) ([]safepay.Payment, error)
	// ListStalePayments lists payments of every tenant in status whose last change is before
	// updatedBefore, oldest first, at most limit (the stuck-execution reaper).
	ListStalePayments(ctx context.Context, status safepay.Status, updatedBefore time.Time, limit int) ([]safepay.Payment, error)
}

// PaymentHold is a Safe payment's hold on its wallet's ledger mirror while the payment is on its
// way (docs/chain.md, "A payment on its way holds its USDC"): TransferID is the ledger's PENDING
// transfer debiting wallet:{WalletID}:onchain, and Recipient (0x-hex) and AmountBaseUnits are the
// USDC Transfer log the mirror matches to it.
type PaymentHold struct {
	TenantID        string
	PaymentID       string
	WalletID        string
	SafeNonce       uint64
	AmountBaseUnits int64
	Recipient       string
	TransferID      string
	CreatedAt       time.Time
}

// PaymentHoldRepo stores the open holds of Safe payments, one per payment.
type PaymentHoldRepo interface {
	InsertPaymentHold(ctx context.Context, h PaymentHold) error
	// LockPaymentHold locks a payment's hold; ok is false when it has none.
	LockPaymentHold(ctx context.Context, tenantID, paymentID string) (h PaymentHold, ok bool, err error)
	// LockWalletPaymentHolds locks a wallet's holds, lowest Safe nonce first, at most limit.
	LockWalletPaymentHolds(ctx context.Context, tenantID, walletID string, limit int) ([]PaymentHold, error)
	DeletePaymentHold(ctx context.Context, tenantID, paymentID string) error
	// WalletPaymentHeld is the sum of a wallet's open holds (0 when none).
	WalletPaymentHeld(ctx context.Context, tenantID, walletID string) (int64, error)
}

// Handle names a wallet in the directory (HandleInfo of docs/api.md).
type Handle struct {
	Environment core.Environment
	Handle      string
	TenantID    string
	WalletID    string
	DisplayName string
	Verified    bool
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// HandleRepo stores directory handles. Handles are global per environment: another tenant's
// wallet may be a payment destination by handle.
type HandleRepo interface {
	// PutHandle creates the handle or, when the caller's tenant already holds it, points it at
	// another wallet. A handle held by another tenant is HANDLE_TAKEN.
	PutHandle(ctx context.Context, h Handle) (Handle, error)
	// FindHandle resolves a handle; unknown: HANDLE_NOT_FOUND.
	FindHandle(ctx context.Context, env core.Environment, handle string) (Handle, error)
}

// DripFilter selects faucet drips of one tenant and environment, optionally of one wallet.
type DripFilter struct {
	TenantID    string
	Environment core.Environment
	WalletID    string // "" = every wallet
}

// DripRepo stores faucet drips.
type DripRepo interface {
	CreateDrip(ctx context.Context, d wallet.Drip) error
	// FindDrip is scoped by tenant and environment; another tenant's drip is DRIP_NOT_FOUND.
	FindDrip(ctx context.Context, tenantID string, env core.Environment, id string) (wallet.Drip, error)
	// LockDrip loads a tenant's drip by id (for the faucet job) and locks its row; an empty
	// tenantID (a job enqueued before jobs carried the tenant) finds it by id alone.
	LockDrip(ctx context.Context, tenantID, id string) (wallet.Drip, error)
	UpdateDrip(ctx context.Context, d wallet.Drip) error
	// ListDrips lists newest first.
	ListDrips(ctx context.Context, f DripFilter, page Page) ([]wallet.Drip, int, error)
	// LockFaucet serialises faucet requests of one tenant for the rest of the transaction, so
	// counting a window and inserting a drip are atomic.
	LockFaucet(ctx context.Context, tenantID string) error
	// NthNewestDripSince is the creation time of the n-th newest drip created after since
	// (matching f), or ok=false when there are fewer than n.
	NthNewestDripSince(ctx context.Context, f DripFilter, since time.Time, n int) (at time.Time, ok bool, err error)
	// DripTxHashUsed reports whether a drip of the tenant on chainID already recorded txHash
	// (a faucet transfer pays one wallet, so only its tenant's drips can claim it).
	DripTxHashUsed(ctx context.Context, tenantID string, chainID int64, txHash string) (bool, error)
}
