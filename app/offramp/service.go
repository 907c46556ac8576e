package offramp

import (
	"context"
	"io"
	"log/slog"
	"time"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/claim"
	"corridor/core/offramp"
	"corridor/ports"
)

// SpendPolicy applies the spend policy attached to the sender's service balance to an
// off-ramp payment, per the rollout mode, and answers the hold or reject reasons the composer
// adds (none when the policy allows, is off, or only logs). It runs inside the composer's unit
// of work.
type SpendPolicy interface {
	SenderSpendHolds(ctx context.Context, pay offramp.Payment) []offramp.HoldReason
}

// Deps are the ports and settings of the off-ramp capability.
type Deps struct {
	Store ports.Store
	Jobs  ports.Jobs
	Clock ports.Clock // nil: the wall clock
	// Chains are the configured chains per environment; the claim escrow indexer runs only
	// where one is configured (D1).
	Chains map[core.Environment]ports.Chain
	// Cipher and SMS serve phone aliases, payout destinations and claims. Without them those
	// use cases answer FEATURE_NOT_AVAILABLE rather than refuse to start: a deployment may
	// serve wallets and Safe payments without off-ramp.
	Cipher    ports.Cipher
	SMS       ports.SMS
	SMSOutbox ports.SMSOutbox // the sandbox outbox (TEST); nil: the outbox route answers FEATURE_NOT_AVAILABLE
	// Screening is the compliance screening of the composer; nil holds every payment with
	// POLICY_SUBSYSTEM_ERROR (fail closed).
	Screening ports.Screening
	// Payouts are the payout providers by name (D9); a missing or off provider's payout routes
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
	// ClaimEscrows are the claim-escrow contracts per environment; without one, a payment to an
	// unknown phone answers CHAIN_UNAVAILABLE. ClaimLifetime is a pending claim's lifetime
	// (0 = 14 days); ClaimLinkBase prefixes the texted link's token.
	ClaimEscrows  map[core.Environment]ports.ClaimEscrow
	ClaimLifetime time.Duration
	ClaimLinkBase string
	// ClaimCodesPerIP bounds phone codes per client IP per hour across claims (0 = 20);
	// ClaimCodesPerPhone bounds them per phone per hour (0 = claim.MaxCodesPerPhone), and
	// ClaimResendsPerClaim bounds link resends per claim (0 = claim.MaxResends).
	ClaimCodesPerIP int
	// RelayerBudget bounds relayer-paid claim escrow fundings per tenant, environment and day.
	RelayerBudget        kernel.RelayerBudget
	ClaimCodesPerPhone   int
	ClaimResendsPerClaim int
	// AliasBudget bounds phone-alias codes sent and wrong codes per phone, tenant and client
	// IP, and pending aliases per tenant; zero fields take the recipient package's defaults.
	AliasBudget AliasBudget
	// SMSOutboxRetention is how long the sandbox outbox keeps a message (0 = 7 days).
	SMSOutboxRetention time.Duration
	// SourceChains name each environment's chain and USDC token (sourceAssetId, claims).
	SourceChains kernel.SourceChains
	// SpendPolicy is the policy capability's verdict on the sender's spend.
	SpendPolicy SpendPolicy
	// Logger records escrow transactions the contract refused; nil discards them.
	Logger *slog.Logger
	// Confirmations is the escrow indexer's confirmation depth per environment (0: the head).
	Confirmations map[core.Environment]uint64
}

// Service runs the off-ramp use cases and jobs: phone aliases, credentials, payout
// destinations, off-ramp payments, provider webhooks, operator review and pending claims.
type Service struct {
	store         ports.Store
	jobs          ports.Jobs
	clock         ports.Clock
	chains        kernel.Chains
	cipher        ports.Cipher
	sms           ports.SMS
	smsOutbox     ports.SMSOutbox
	screening     ports.Screening
	payouts       map[string]ports.PayoutRail
	quoteLifetime time.Duration
	pollInterval  time.Duration
	pollWindow    time.Duration
	// quoteExpiryInterval is the quote-expiry pass's cadence.
	quoteExpiryInterval time.Duration
	holdRecheckInterval time.Duration
	phoneReverifyAfter  time.Duration
	escrows             map[core.Environment]ports.ClaimEscrow
	claimLifetime       time.Duration
	claimLinkBase       string
	// claimCodesPerIP bounds claim phone codes per client IP per hour.
	claimCodesPerIP int
	relayerBudget   kernel.RelayerBudget
	// claimCodesPerPhone bounds claim phone codes per phone per hour.
	claimCodesPerPhone int
	// claimResendsPerClaim bounds how often a sender may resend one claim's link.
	claimResendsPerClaim int
	aliasBudget          AliasBudget
	smsOutboxRetention   time.Duration
	sourceChains         kernel.SourceChains
	spendPolicy          SpendPolicy
	log                  *slog.Logger
	confirmations        map[core.Environment]uint64
}

// New checks the wiring, applies the defaults and fails at start-up when a required port is
// missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("offramp", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Jobs", Value: d.Jobs},
		kernel.Port{Name: "SpendPolicy", Value: d.SpendPolicy}); err != nil {
		return nil, err
	}
	s := &Service{store: d.Store, jobs: d.Jobs, clock: kernel.ClockOrSystem(d.Clock), chains: d.Chains,
		cipher: d.Cipher, sms: d.SMS, smsOutbox: d.SMSOutbox, screening: d.Screening, payouts: d.Payouts,
		quoteLifetime: d.QuoteLifetime, pollInterval: d.PollInterval, pollWindow: d.PollWindow,
		quoteExpiryInterval: d.QuoteExpiryInterval, holdRecheckInterval: d.HoldRecheckInterval,
		phoneReverifyAfter: d.PhoneReverifyAfter,
		escrows:            d.ClaimEscrows, claimLifetime: d.ClaimLifetime, claimLinkBase: d.ClaimLinkBase, claimCodesPerIP: d.ClaimCodesPerIP,
		relayerBudget:      d.RelayerBudget,
		claimCodesPerPhone: d.ClaimCodesPerPhone, claimResendsPerClaim: d.ClaimResendsPerClaim,
		aliasBudget: d.AliasBudget.withDefaults(), smsOutboxRetention: d.SMSOutboxRetention,
		sourceChains: d.SourceChains, spendPolicy: d.SpendPolicy, log: d.Logger, confirmations: d.Confirmations}
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
	if s.claimCodesPerIP <= 0 {
		s.claimCodesPerIP = claim.MaxCodesPerIP
	}
	if s.claimCodesPerPhone <= 0 {
		s.claimCodesPerPhone = claim.MaxCodesPerPhone
	}
	if s.claimResendsPerClaim <= 0 {
		s.claimResendsPerClaim = claim.MaxResends
	}
	if s.smsOutboxRetention <= 0 {
		s.smsOutboxRetention = DefaultSMSOutboxRetention
	}
	if s.claimLifetime <= 0 {
		s.claimLifetime = claim.DefaultLifetime
	}
	if s.claimLinkBase == "" {
		s.claimLinkBase = DefaultClaimLinkBase
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return s, nil
}
