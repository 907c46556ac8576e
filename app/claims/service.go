package claims

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// Payments is what claims need from the off-ramp payments capability, inside the claim's unit
// of work: a claim is the pending leg of one payment, so it posts under the payment's ledger
// references, voids its reservation, asks the composer for its decision, and hands the payment
// back to the policy check once redeemed. Each method takes of the claim's unit only what the
// payments declare they use there: the ledger, or paymentsTx (their offramps.PaymentTx).
type Payments interface {
	// Post posts a transfer of the payment (its metadata names the payment).
	Post(ctx context.Context, l ports.LedgerRepo, now time.Time, p offramp.Payment, spec ledger.TransferSpec) (ledger.Transfer, error)
	VoidReservation(ctx context.Context, l ports.LedgerRepo, now time.Time, p *offramp.Payment) error
	RunPolicyCheck(ctx context.Context, tx paymentsTx, now time.Time, p *offramp.Payment) error
	// Decide is the full composer's decision on the payment, without applying it.
	Decide(ctx context.Context, tx paymentsTx, p offramp.Payment) (offramp.Decision, error)
	// SavePayment writes the payment and its status event.
	SavePayment(ctx context.Context, tx paymentsTx, p offramp.Payment) error
	// PrepareRedeem asks screening, outside any transaction, about the payment as the
	// redeemer will receive it, for the policy check the redeeming unit of work runs.
	PrepareRedeem(ctx context.Context, paymentID, recipientTenantID string) error
}

// Recipients is what claims need from the recipients capability: the texts of links and codes
// go through its SMS outbox, and a redeemed claim's phone becomes the redeemer's alias.
type Recipients interface {
	// Ready is FEATURE_NOT_AVAILABLE when the cipher or SMS port is not wired.
	Ready() error
	QueueSMS(ctx context.Context, key string, m ports.SMSMessage, now time.Time) error
	AdoptPhone(ctx context.Context, aliases ports.RecipientRepo, p auth.Principal, phoneHash, masked string, e164 []byte, now time.Time) error
}

// Deps are the ports and settings of the pending-claims capability.
type Deps struct {
	Store ports.Store
	Jobs  ports.Jobs
	Clock ports.Clock // nil: the wall clock
	// Chains are the configured chains per environment; the claim escrow indexer runs only
	// where one is configured (docs/decisions/tenancy.md).
	Chains map[core.Environment]ports.Chain
	// Cipher seals the claim's phone number; without it (or without the recipients' SMS)
	// claims answer FEATURE_NOT_AVAILABLE.
	Cipher ports.Cipher
	// Escrows are the claim-escrow contracts per environment; without one, a payment to an
	// unknown phone answers CHAIN_UNAVAILABLE. Lifetime is a pending claim's lifetime
	// (0 = 14 days); LinkBase prefixes the texted link's token.
	Escrows  kernel.ClaimEscrows
	Lifetime time.Duration
	LinkBase string
	// CodesPerIP bounds phone codes per client IP per hour across claims (0 = 20); CodesPerPhone
	// bounds them per phone per hour (0 = claim.MaxCodesPerPhone), and ResendsPerClaim bounds
	// link resends per claim (0 = claim.MaxResends).
	CodesPerIP      int
	CodesPerPhone   int
	ResendsPerClaim int
	// RelayerBudget bounds relayer-paid claim escrow fundings per tenant, environment and day.
	RelayerBudget kernel.RelayerBudget
	// SourceChains name each environment's chain and USDC token.
	SourceChains kernel.SourceChains
	// Logger records escrow transactions the contract refused; nil discards them.
	Logger *slog.Logger
	// Confirmations is the escrow indexer's confirmation depth per environment (0: the head).
	Confirmations map[core.Environment]uint64
	// Payments and Recipients are the capabilities a claim works with.
	Payments   Payments
	Recipients Recipients
	// ClaimNeeded, ClaimCanceled and ClaimSettled are the payments' domain events for their
	// pending claim: claims subscribe at New and react inside the payment's unit of work, so
	// payments never call claims.
	ClaimNeeded   *kernel.Subscribers[offramp.ClaimNeeded]
	ClaimCanceled *kernel.Subscribers[offramp.ClaimCanceled]
	ClaimSettled  *kernel.Subscribers[offramp.ClaimSettled]
}

// Service runs pending claims: a payment to a phone nobody has verified yet waits in an
// on-chain escrow until the phone's owner proves it through a texted link and redeems, or the
// claim expires and the sender is refunded. It holds the claim link, phone challenge, redeem,
// the escrow jobs, the escrow indexer (with its reorg undo) and the expiry pass.
type Service struct {
	store           kernel.Units[txView]
	jobs            ports.Jobs
	clock           ports.Clock
	chains          kernel.Chains
	cipher          ports.Cipher
	escrows         kernel.ClaimEscrows
	lifetime        time.Duration
	linkBase        string
	codesPerIP      int
	codesPerPhone   int
	resendsPerClaim int
	relayerBudget   kernel.RelayerBudget
	sourceChains    kernel.SourceChains
	log             *slog.Logger
	confirmations   map[core.Environment]uint64
	payments        Payments
	recipients      Recipients
}

// New checks the wiring, applies the defaults and fails at start-up when a required port is
// missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("claims", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Jobs", Value: d.Jobs},
		kernel.Port{Name: "Payments", Value: d.Payments}, kernel.Port{Name: "Recipients", Value: d.Recipients},
		kernel.Port{Name: "ClaimNeeded", Value: d.ClaimNeeded}, kernel.Port{Name: "ClaimCanceled", Value: d.ClaimCanceled},
		kernel.Port{Name: "ClaimSettled", Value: d.ClaimSettled}); err != nil {
		return nil, err
	}
	s := &Service{store: kernel.NewUnits(d.Store, narrow), jobs: d.Jobs, clock: kernel.ClockOrSystem(d.Clock), chains: d.Chains, cipher: d.Cipher,
		escrows: d.Escrows, lifetime: d.Lifetime, linkBase: d.LinkBase, codesPerIP: d.CodesPerIP,
		codesPerPhone: d.CodesPerPhone, resendsPerClaim: d.ResendsPerClaim, relayerBudget: d.RelayerBudget,
		sourceChains: d.SourceChains, log: d.Logger, confirmations: d.Confirmations, payments: d.Payments,
		recipients: d.Recipients}
	if s.lifetime <= 0 {
		s.lifetime = claim.DefaultLifetime
	}
	if s.linkBase == "" {
		s.linkBase = DefaultClaimLinkBase
	}
	if s.codesPerIP <= 0 {
		s.codesPerIP = claim.MaxCodesPerIP
	}
	if s.codesPerPhone <= 0 {
		s.codesPerPhone = claim.MaxCodesPerPhone
	}
	if s.resendsPerClaim <= 0 {
		s.resendsPerClaim = claim.MaxResends
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s.subscribe(d)
	return s, nil
}

// subscribe makes claims the reaction to the payments' claim events.
func (s *Service) subscribe(d Deps) {
	kernel.React(d.ClaimNeeded, s.store, func(ctx context.Context, tx txView, e offramp.ClaimNeeded) error {
		return s.openClaim(ctx, tx, e.At, e.Payment, e.Phone)
	})
	kernel.React(d.ClaimCanceled, s.store, func(ctx context.Context, tx txView, e offramp.ClaimCanceled) error {
		return s.cancelPendingClaim(ctx, tx, e.At, e.Payment)
	})
	kernel.React(d.ClaimSettled, s.store, func(ctx context.Context, tx txView, e offramp.ClaimSettled) error {
		p := e.Payment
		if e.Rejected {
			return s.releaseClaimFunds(ctx, tx, e.At, p, ledger.TenantAvailable(p.Environment, kernel.ServiceAsset, p.SenderTenantID), "reject")
		}
		return s.releaseClaimFunds(ctx, tx, e.At, p, ledger.OfframpLocked(p.Environment, kernel.ServiceAsset, p.SenderTenantID, p.ID), "lock")
	})
}

// ready fails closed when the claim's own cipher or the recipients' texts are not wired.
func (s *Service) ready() error {
	if s.cipher == nil {
		return core.E(core.CodeFeatureNotAvailable, "phone aliases and payout destinations are not configured in this deployment")
	}
	return s.recipients.Ready()
}
