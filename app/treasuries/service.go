package treasuries

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// sandboxMessage is the refusal of a LIVE caller: treasury is sandbox only (docs/decisions/tenancy.md).
const sandboxMessage = "treasury is sandbox only: use a TEST key"

// BucketWallet is what a bucket Safe is made of: the account's owners and threshold.
type BucketWallet struct {
	Name      string
	Owners    []wallet.OwnerInput
	Threshold *int
	ChainID   *int64
}

// BucketWallets provisions bucket Safes (wallets of purpose TREASURY). It joins the caller's
// unit of work, so an account and its buckets are created together or not at all.
type BucketWallets interface {
	CreateBucketWallet(ctx context.Context, p auth.Principal, in BucketWallet) (wallet.Wallet, error)
}

// PaymentRead is a Safe payment the payments capability prepared outside any transaction (the
// chain read, the destination screened): called inside the caller's unit of work, it records
// the payment there. A typed step, so no capability hands another an untyped value to cast.
type PaymentRead func(ctx context.Context, p auth.Principal) (safepay.Payment, error)

// SweepPayments proposes the Safe payments sweeps link to. ReadSweepPayment prepares the
// payment outside any unit of work; the PaymentRead it returns records it inside one.
type SweepPayments interface {
	ReadSweepPayment(ctx context.Context, p auth.Principal, in safepay.Request) (PaymentRead, error)
}

// Deps are the ports of the treasury capability.
type Deps struct {
	Store ports.Store
	Jobs  ports.Jobs
	Clock ports.Clock // nil: the wall clock
	// Chains are the configured chains per environment (docs/decisions/tenancy.md).
	Chains   map[core.Environment]ports.Chain
	Wallets  BucketWallets
	Payments SweepPayments
	// PaymentsFinalized carries the Safe payments capability's final payments: treasury
	// subscribes, so a sweep announces its outcome in its payment's unit of work.
	PaymentsFinalized *kernel.Subscribers[safepay.Finalized]
	// Logger records what the runner and the accrual skipped; nil discards it.
	Logger *slog.Logger
}

// Service runs the treasury use cases and jobs.
type Service struct {
	store    kernel.Units[txView]
	jobs     ports.Jobs
	clock    ports.Clock
	chains   kernel.Chains
	wallets  BucketWallets
	payments SweepPayments
	log      *slog.Logger
}

// Bounds of the capability.
const (
	// balanceReadTimeout bounds one bucket's balance read; a read that takes longer is an
	// unreadable balance, never a zero one.
	balanceReadTimeout = 5 * time.Second
	// viewReadBudget bounds all the chain reads of one account view or one page of accounts.
	viewReadBudget = 10 * time.Second
	// runnerBatch bounds the rules one runner tick evaluates.
	runnerBatch = 100
	// yieldBatch bounds the accounts one accrual tick reads.
	yieldBatch = 100
)

// New checks the wiring and fails at start-up when a required port is missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("treasury", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Jobs", Value: d.Jobs},
		kernel.Port{Name: "Wallets", Value: d.Wallets}, kernel.Port{Name: "Payments", Value: d.Payments}); err != nil {
		return nil, err
	}
	log := d.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Service{store: kernel.NewUnits(d.Store, narrow), jobs: d.Jobs, clock: kernel.ClockOrSystem(d.Clock), chains: d.Chains, wallets: d.Wallets,
		payments: d.Payments, log: log}
	if d.PaymentsFinalized != nil {
		kernel.React(d.PaymentsFinalized, s.store, func(ctx context.Context, tx txView, e safepay.Finalized) error {
			return s.PaymentFinal(ctx, tx, e.Payment)
		})
	}
	return s, nil
}
