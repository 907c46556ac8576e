// Package payout holds the payout provider adapters (docs/decisions/offramp.md): Internal pays SERVICE_BALANCE
// destinations on the ledger alone; Onchain pays ONCHAIN_WALLET destinations with a USDC
// transfer on the environment's chain; Mock is the deterministic scripted provider every
// external rail runs in mock mode. Sandbox and live vendor adapters of the app-wallet rails
// are not built yet; configuration refuses those modes rather than running a stub.
package payout

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// Internal is the SERVICE_BALANCE provider: the payout is a ledger move the service itself
// makes on delivery, so it accepts at once and reports terminal success on the first poll.
type Internal struct{}

var _ ports.PayoutProvider = Internal{}

// Name is the provider id.
func (Internal) Name() string { return "internal" }

// Submit accepts the payout; its reference is the idempotency key, so retries agree.
func (Internal) Submit(_ context.Context, r ports.PayoutRequest) (ports.PayoutStatus, error) {
	return ports.PayoutStatus{Reference: "int_" + r.IdempotencyKey, State: ports.PayoutSubmitted}, nil
}

// Poll reports success: nothing leaves the service on this rail.
func (Internal) Poll(_ context.Context, reference string) (ports.PayoutStatus, error) {
	if !strings.HasPrefix(reference, "int_") {
		return ports.PayoutStatus{}, core.E(core.CodeValidationFailed, "unknown internal payout reference")
	}
	return ports.PayoutStatus{Reference: reference, State: ports.PayoutSucceeded, Final: true}, nil
}

// SlowSteps is how many pending reports the "05" script gives before it succeeds.
const SlowSteps = 100

// Script is the mock's outcome for an amount: the states reported after submission, one per
// poll or signed webhook. Keyed by the last two digits of the amount in base units (docs/api.md);
// other pairs behave as "00". "09" is refused at submission (SubmitRevoked), so it has no script.
func Script(amountBaseUnits int64) []ports.PayoutState {
	switch amountBaseUnits % 100 {
	case 3:
		return []ports.PayoutState{ports.PayoutBlocked, ports.PayoutFailed}
	case 7:
		return []ports.PayoutState{ports.PayoutSucceeded, ports.PayoutReturned}
	case 5:
		// A provider slow to finish: pending for SlowSteps reports, then succeeded, so its
		// polls run out before it answers (the exhausted-polls path).
		s := make([]ports.PayoutState, SlowSteps+1)
		for i := range SlowSteps {
			s[i] = ports.PayoutPending
		}
		s[SlowSteps] = ports.PayoutSucceeded
		return s
	}
	return []ports.PayoutState{ports.PayoutPending, ports.PayoutSucceeded}
}

// Mock is the deterministic provider: no timers, no randomness, no vendor calls. Its payouts
// live in Postgres, so every server process on the database agrees on each one's step.
type Mock struct {
	name string
	db   *bun.DB
}

var _ ports.PayoutProvider = (*Mock)(nil)

// NewMock builds a mock provider named name.
func NewMock(name string, db *bun.DB) *Mock {
	if db == nil || name == "" {
		panic("payout: NewMock needs a name and a database")
	}
	return &Mock{name: name, db: db}
}

// Name is the provider id.
func (m *Mock) Name() string { return m.name }

// SubmitRevoked is the last two digits of an amount the mock refuses at submission, reporting
// the recipient's destination revoked at the provider.
const SubmitRevoked = 9

// Submit records the payout once per idempotency key and reports SUBMITTED; an amount ending
// in "09" is refused with DESTINATION_REVOKED, nothing recorded (a retry is refused alike).
func (m *Mock) Submit(ctx context.Context, r ports.PayoutRequest) (ports.PayoutStatus, error) {
	if r.IdempotencyKey == "" || r.AmountBaseUnits <= 0 {
		return ports.PayoutStatus{}, errors.New("payout: a payout needs an idempotency key and a positive amount")
	}
	if r.AmountBaseUnits%100 == SubmitRevoked {
		return ports.PayoutStatus{State: ports.PayoutDestinationRevoked}, nil
	}
	ref := "mock_" + core.RandomToken(12)
	_, err := m.db.NewRaw(`INSERT INTO payout_mock_transfers (provider, reference, idempotency_key, amount_base_units, created_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (provider, idempotency_key) DO NOTHING`,
		m.name, ref, r.IdempotencyKey, r.AmountBaseUnits, time.Now().UTC()).Exec(ctx)
	if err != nil {
		return ports.PayoutStatus{}, err
	}
	var stored string
	if err := m.db.NewRaw("SELECT reference FROM payout_mock_transfers WHERE provider = ? AND idempotency_key = ?",
		m.name, r.IdempotencyKey).Scan(ctx, &stored); err != nil {
		return ports.PayoutStatus{}, err
	}
	return ports.PayoutStatus{Reference: stored, State: ports.PayoutSubmitted}, nil
}

// Poll advances the payout one scripted step (never past the last) and reports it.
func (m *Mock) Poll(ctx context.Context, reference string) (ports.PayoutStatus, error) {
	var row struct {
		Step   int   `bun:"step"`
		Amount int64 `bun:"amount_base_units"`
	}
	err := m.db.NewRaw(`UPDATE payout_mock_transfers
		SET step = LEAST(step + 1, CASE WHEN amount_base_units % 100 = 5 THEN ? ELSE 2 END)
		WHERE provider = ? AND reference = ? RETURNING step, amount_base_units`, SlowSteps+1, m.name, reference).Scan(ctx, &row)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.PayoutStatus{}, core.E(core.CodeValidationFailed, "unknown %s payout reference", m.name)
	}
	if err != nil {
		return ports.PayoutStatus{}, err
	}
	script := Script(row.Amount)
	return ports.PayoutStatus{Reference: reference, State: script[row.Step-1], Final: row.Step == len(script)}, nil
}
