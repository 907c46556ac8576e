package offramps

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

// SpendPolicy applies the spend policy attached to the sender's service balance to an
// off-ramp payment, per the rollout mode, and answers the hold or reject reasons the composer
// adds (none when the policy allows, is off, or only logs). It runs inside the composer's unit
// of work.
type SpendPolicy interface {
	SenderSpendHolds(ctx context.Context, pay offramp.Payment) []offramp.HoldReason
}

// Recipients is what payments need from the recipients capability (app/recipients).
type Recipients interface {
	// Ready is FEATURE_NOT_AVAILABLE when the cipher or SMS port is not wired.
	Ready() error
	// PhoneHash is the lookup hash a verified alias is found by.
	PhoneHash(e164 string) string
	// DestinationIdentifier decrypts a payout destination's identifier.
	DestinationIdentifier(d recipient.Destination) (recipient.Identifier, error)
}

// Deps are the ports and settings of the off-ramp payments capability.
type Deps struct {
	Store ports.Store
	Jobs  ports.Jobs
	Clock ports.Clock // nil: the wall clock
	// Screening is the compliance screening of the composer; nil holds every payment with
	// POLICY_SUBSYSTEM_ERROR (fail closed).
	Screening ports.Screening
	// Payouts are the payout providers by name (docs/decisions/offramp.md); a missing or off provider's payout routes
	// are ineligible.
	Payouts map[string]ports.PayoutRail
	// QuoteLifetime is a route quote's lifetime (0 = 120 s); PollInterval the delay between
	// provider polls (0 = 5 s).
	QuoteLifetime time.Duration
	PollInterval  time.Duration
	// PollWindow is how long a payout is polled without a final answer before it is given up
	// on: ACTION_REQUIRED with hold PROVIDER_UNRESPONSIVE (0 = 72 h).
	PollWindow time.Duration
	// QuoteExpiryInterval is how often the quote-expiry pass runs (0 = 10 s).
	QuoteExpiryInterval time.Duration
	// PhoneReverifyAfter is how long a phone alias's verification holds for payments to it;
	// older, the composer holds PHONE_REVERIFICATION_REQUIRED (0 = 365 days).
	PhoneReverifyAfter time.Duration
	// HoldRecheckInterval is how often the hold recheck pass runs and each held payment's
	// first backoff (0 = 30 s).
	HoldRecheckInterval time.Duration
	// SourceChains name each environment's chain and USDC token (sourceAssetId).
	SourceChains kernel.SourceChains
	// SpendPolicy is the policy capability's verdict on the sender's spend.
	SpendPolicy SpendPolicy
	// Recipients is the capability a payment to a phone works with.
	Recipients Recipients
	// ClaimEscrows are the deployment's claim escrows: a payment to an unknown phone needs its
	// environment's before it waits in PENDING_CLAIM (CHAIN_UNAVAILABLE otherwise).
	ClaimEscrows kernel.ClaimEscrows
	// ClaimNeeded, ClaimCanceled and ClaimSettled are the domain events a payment to a phone
	// raises for its pending claim inside its unit of work; the pending-claims capability
	// reacts (and must: raising one nobody listens to fails the step).
	ClaimNeeded   *kernel.Subscribers[offramp.ClaimNeeded]
	ClaimCanceled *kernel.Subscribers[offramp.ClaimCanceled]
	ClaimSettled  *kernel.Subscribers[offramp.ClaimSettled]
	// RecipientChanged is the recipients' domain event of a change on a recipient's side:
	// payments subscribe to it at New and re-run the composer for the payments held for the
	// recipient, in the unit of work of the change (their screening prepared before it).
	RecipientChanged *kernel.Subscribers[recipient.Changed]
	// Logger records refused submissions and sweep failures; nil discards them.
	Logger *slog.Logger
	// Guard is the spend guard a payment's spend is decided by (nil: the one kernel.SpendGuard
	// on Clock); tests put a double around it.
	Guard kernel.SpendDecider
}

// Service runs the off-ramp payment use cases and jobs: intake, the policy composer and its
// holds, payout route quotes, the recipient's route selection and confirmation, provider
// submission, polling and signed webhooks, operator review, liquidity and the sweeps.
type Service struct {
	store         kernel.Units[txView]
	jobs          ports.Jobs
	clock         ports.Clock
	screening     ports.Screening
	payouts       payoutRails
	quoteLifetime time.Duration
	pollInterval  time.Duration
	pollWindow    time.Duration
	// quoteExpiryInterval is the quote-expiry pass's cadence.
	quoteExpiryInterval time.Duration
	holdRecheckInterval time.Duration
	phoneReverifyAfter  time.Duration
	sourceChains        kernel.SourceChains
	spendPolicy         SpendPolicy
	recipients          Recipients
	claimEscrows        kernel.ClaimEscrows
	claimNeeded         *kernel.Subscribers[offramp.ClaimNeeded]
	claimCanceled       *kernel.Subscribers[offramp.ClaimCanceled]
	claimSettled        *kernel.Subscribers[offramp.ClaimSettled]
	log                 *slog.Logger
	guard               kernel.SpendDecider
}

// New checks the wiring, applies the defaults and fails at start-up when a required port is
// missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("offramp", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Jobs", Value: d.Jobs},
		kernel.Port{Name: "SpendPolicy", Value: d.SpendPolicy},
		kernel.Port{Name: "Recipients", Value: d.Recipients}, kernel.Port{Name: "RecipientChanged", Value: d.RecipientChanged}); err != nil {
		return nil, err
	}
	s := &Service{store: kernel.NewUnits(d.Store, narrow), jobs: d.Jobs, clock: kernel.ClockOrSystem(d.Clock), screening: d.Screening, payouts: d.Payouts,
		quoteLifetime: d.QuoteLifetime, pollInterval: d.PollInterval, pollWindow: d.PollWindow,
		quoteExpiryInterval: d.QuoteExpiryInterval, holdRecheckInterval: d.HoldRecheckInterval,
		phoneReverifyAfter: d.PhoneReverifyAfter, sourceChains: d.SourceChains, spendPolicy: d.SpendPolicy,
		recipients: d.Recipients, claimEscrows: d.ClaimEscrows, claimNeeded: d.ClaimNeeded, claimCanceled: d.ClaimCanceled,
		claimSettled: d.ClaimSettled, log: d.Logger, guard: d.Guard}
	if s.guard == nil {
		s.guard = kernel.NewSpendGuard(s.clock.Now)
	}
	if s.quoteLifetime <= 0 {
		s.quoteLifetime = offramp.DefaultQuoteLifetime
	}
	if s.pollInterval <= 0 {
		s.pollInterval = 5 * time.Second
	}
	if s.quoteExpiryInterval <= 0 {
		s.quoteExpiryInterval = DefaultQuoteExpiryInterval
	}
	if s.phoneReverifyAfter <= 0 {
		s.phoneReverifyAfter = DefaultPhoneReverifyAfter
	}
	if s.holdRecheckInterval <= 0 {
		s.holdRecheckInterval = DefaultHoldRecheckInterval
	}
	if s.pollWindow <= 0 {
		s.pollWindow = DefaultPollWindow
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	kernel.ReactPrepared(d.RecipientChanged, s.store, func(ctx context.Context, e recipient.Changed) error {
		return s.PrepareHeld(ctx, e.Environment, e.TenantID)
	}, func(ctx context.Context, tx txView, e recipient.Changed) error {
		return s.ReevaluateHeld(ctx, tx, e.Environment, e.TenantID)
	})
	return s, nil
}

// SavePayment writes a payment and its status event inside the caller's unit of work (claims
// save the payment a claim belongs to this way).
func (s *Service) SavePayment(ctx context.Context, tx PaymentTx, p offramp.Payment) error {
	return savePayment(ctx, tx, p)
}

// Decide is the full composer's decision on a payment, without applying it: a claim's release
// commits its hash on chain.
func (s *Service) Decide(ctx context.Context, tx PaymentTx, p offramp.Payment) (offramp.Decision, error) {
	c, err := s.compose(ctx, tx, p, nil)
	return c.decision, err
}
