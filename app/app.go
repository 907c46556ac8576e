// Package app holds Corridor's use cases. Each is one unit of work: it loads aggregates, asks
// core for the transition, saves, and (in later capabilities) posts ledger transfers and
// enqueues jobs in the same transaction. It never sees HTTP or SQL.
package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/offramp"
	"corridor/ports"
)

// Deps are the ports the use cases need.
type Deps struct {
	Store ports.Store
	Jobs  ports.Jobs
	Clock ports.Clock
	// Chains are the configured chains per environment; a missing environment answers
	// CHAIN_UNAVAILABLE on the operations that need it (D1).
	Chains map[core.Environment]ports.Chain
	// Off-ramp recipients and payments (issue 6). Without Cipher and SMS those use cases
	// answer FEATURE_NOT_AVAILABLE.
	Cipher    ports.Cipher
	SMS       ports.SMS
	SMSOutbox ports.SMSOutbox
	Screening ports.Screening
	// Payouts are the payout providers by name (D9); a missing or off provider's routes are
	// ineligible.
	Payouts map[string]ports.PayoutRail
	// QuoteLifetime is a route quote's lifetime (0 = 120 s); OfframpPollInterval the delay
	// between provider polls (0 = 5 s).
	QuoteLifetime       time.Duration
	OfframpPollInterval time.Duration
	// ClaimEscrows are the claim-escrow contracts per environment (issue 7); without one, a
	// payment to an unknown phone answers CHAIN_UNAVAILABLE. ClaimLifetime is a pending
	// claim's lifetime (0 = 14 days); ClaimLinkBase prefixes the texted link's token.
	ClaimEscrows  map[core.Environment]ports.ClaimEscrow
	ClaimLifetime time.Duration
	ClaimLinkBase string
	// ClaimCodesPerIP bounds phone codes per client IP per hour across claims (0 = 20).
	ClaimCodesPerIP int
	// SpendPolicy decides an off-ramp payment's spend policy.
	SpendPolicy interface {
		SenderSpendHolds(ctx context.Context, pay offramp.Payment) []offramp.HoldReason
	}
	// Logger records would-be declines and policy subsystem errors; nil discards them.
	Logger *slog.Logger
}

// App is the set of use cases.
type App struct {
	store       ports.Store
	jobs        ports.Jobs
	clock       ports.Clock
	chains      kernel.Chains
	offramp     offrampDeps
	claims      claimDeps
	spendPolicy interface {
		SenderSpendHolds(ctx context.Context, pay offramp.Payment) []offramp.HoldReason
	}
	log *slog.Logger
}

// New checks the wiring and fails at start-up when a dependency is missing.
func New(d Deps) (*App, error) {
	switch {
	case d.Store == nil:
		return nil, errors.New("app: Store is required")
	case d.Jobs == nil:
		return nil, errors.New("app: Jobs is required")
	}
	d.Clock = kernel.ClockOrSystem(d.Clock)
	return &App{store: d.Store, jobs: d.Jobs, clock: d.Clock, chains: d.Chains,
		offramp: newOfframpDeps(d), claims: newClaimDeps(d), spendPolicy: d.SpendPolicy, log: d.Logger}, nil
}
