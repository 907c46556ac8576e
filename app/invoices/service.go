package invoices

import (
	"context"
	"crypto/ecdsa"
	"io"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// sandboxMessage is the refusal of a LIVE caller: invoices is sandbox only (docs/decisions/tenancy.md).
const sandboxMessage = "invoices and bills are sandbox only: use a TEST key"

// HoldWallet is what an invoice's hold Safe is made of: payer, payee and arbiter, 2 of 3.
type HoldWallet struct {
	Name      string
	Owners    []wallet.OwnerInput
	Threshold int
	ChainID   int64
}

// HoldWallets provisions hold Safes (wallets of purpose ESCROW). It joins the caller's unit of
// work, so an invoice is sent with its Safe or not at all.
type HoldWallets interface {
	CreateHoldWallet(ctx context.Context, p auth.Principal, in HoldWallet) (wallet.Wallet, error)
}

// PaymentRead is a Safe payment the payments capability prepared outside any transaction (the
// chain read, the destination screened): called inside the caller's unit of work, it records
// the payment (or the signature) there. A typed step, so no capability hands another an untyped value to cast.
type PaymentRead func(ctx context.Context, p auth.Principal) (safepay.Payment, error)

// Payments proposes and signs the Safe payments invoices and bills link to. The Read methods
// prepare outside any unit of work; the PaymentRead each returns records inside one.
type Payments interface {
	ReadPayment(ctx context.Context, p auth.Principal, in safepay.Request) (PaymentRead, error)
	ReadSignature(ctx context.Context, p auth.Principal, paymentID, signature string) (PaymentRead, error)
}

// Deps are the ports of the invoices capability.
type Deps struct {
	Store ports.Store
	Jobs  ports.Jobs
	Clock ports.Clock // nil: the wall clock
	// Chains are the configured chains per environment (docs/decisions/tenancy.md).
	Chains   map[core.Environment]ports.Chain
	Wallets  HoldWallets
	Payments Payments
	// ArbiterKey is the platform arbiter's key (INVOICE_ARBITER_KEY): the default third owner of
	// every hold Safe, which signs through the operator route. Nil: no platform arbiter; an
	// invoice then needs an arbiterAddress and arbiter-sign answers 503.
	ArbiterKey *ecdsa.PrivateKey
	// PollInterval is how often the balance poller runs (default 5 s).
	PollInterval time.Duration
	Logger       *slog.Logger
}

// Service runs the invoice and bill use cases and the balance poller.
type Service struct {
	store        kernel.Units[txView]
	jobs         ports.Jobs
	clock        ports.Clock
	chains       kernel.Chains
	wallets      HoldWallets
	payments     Payments
	arbiterKey   *ecdsa.PrivateKey
	arbiter      string
	pollInterval time.Duration
	log          *slog.Logger
}

// Bounds of the capability.
const (
	// balanceReadTimeout bounds one hold Safe balance read; a slow read is unreadable, never 0.
	balanceReadTimeout = 5 * time.Second
	// pollBatch bounds the invoices one poller page reads.
	pollBatch = 100
	// pollMaxPages bounds one poller pass.
	pollMaxPages = 50
	// holdThreshold is the hold Safe's threshold: two of payer, payee and arbiter.
	holdThreshold = 2
	// DefaultPollInterval is the balance poller's default period.
	DefaultPollInterval = 5 * time.Second
)

// New checks the wiring and fails at start-up when a required port is missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("invoices", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Jobs", Value: d.Jobs},
		kernel.Port{Name: "Wallets", Value: d.Wallets}, kernel.Port{Name: "Payments", Value: d.Payments}); err != nil {
		return nil, err
	}
	log := d.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Service{store: kernel.NewUnits(d.Store, narrow), jobs: d.Jobs, clock: kernel.ClockOrSystem(d.Clock), chains: d.Chains, wallets: d.Wallets, payments: d.Payments,
		arbiterKey: d.ArbiterKey, pollInterval: d.PollInterval, log: log}
	if s.pollInterval <= 0 {
		s.pollInterval = DefaultPollInterval
	}
	if d.ArbiterKey != nil {
		s.arbiter = crypto.PubkeyToAddress(d.ArbiterKey.PublicKey).Hex()
	}
	return s, nil
}

// ArbiterAddress is the platform arbiter's address ("" when none is configured).
func (s *Service) ArbiterAddress() string { return s.arbiter }
