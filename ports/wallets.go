package ports

import (
	"context"

	"corridor/core"
	"corridor/core/safepay"
	"corridor/core/wallet"
)

// WalletRepo stores wallets. Lookups scoped by tenant and environment answer WALLET_NOT_FOUND
// for another tenant's or environment's wallet.
type WalletRepo interface {
	CreateWallet(ctx context.Context, w wallet.Wallet) error
	FindWallet(ctx context.Context, tenantID string, env core.Environment, id string) (wallet.Wallet, error)
	// LockWallet loads a wallet by id alone (for background jobs) and locks its row.
	LockWallet(ctx context.Context, id string) (wallet.Wallet, error)
	ListWallets(ctx context.Context, tenantID string, env core.Environment, page Page) ([]wallet.Wallet, int, error)
	UpdateWallet(ctx context.Context, w wallet.Wallet) error
	// ListTenantWallets lists every wallet of a tenant in both environments (bounded by limit).
	ListTenantWallets(ctx context.Context, tenantID string, limit int) ([]wallet.Wallet, error)
}

// PaymentRepo stores Safe payments.
type PaymentRepo interface {
	CreatePayment(ctx context.Context, p safepay.Payment) error
	FindPayment(ctx context.Context, tenantID string, env core.Environment, id string) (safepay.Payment, error)
	// LockPayment loads and locks a payment by id alone (for jobs and concurrent sign/execute).
	LockPayment(ctx context.Context, id string) (safepay.Payment, error)
	ListPayments(ctx context.Context, tenantID string, env core.Environment, page Page) ([]safepay.Payment, int, error)
	UpdatePayment(ctx context.Context, p safepay.Payment) error
	// HighestPendingNonce is the largest Safe nonce held by a non-terminal payment of the
	// wallet, or ok=false when none is pending.
	HighestPendingNonce(ctx context.Context, walletID string) (nonce uint64, ok bool, err error)
}
