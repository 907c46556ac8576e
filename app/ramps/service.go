package ramps

import (
	"context"
	"strings"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/ramp"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// sandboxMessage is the refusal of a LIVE caller: ramps is sandbox only (docs/decisions/tenancy.md).
const sandboxMessage = "ramps are sandbox only: use a TEST key"

// PoolCredits mints test USDC into a wallet's Safe from the platform test pool. It joins the
// caller's unit of work: the drip and its job are recorded with the ramp or not at all.
// RunDrip runs one step of a recorded credit outside any unit of work and says when to look
// again (0: the credit is over, mined or failed); it is safe beside the credit's own job.
type PoolCredits interface {
	CreditFromPool(ctx context.Context, p auth.Principal, walletID string, amountBaseUnits int64) (wallet.Drip, error)
	RunDrip(ctx context.Context, tenantID, dripID string) (time.Duration, error)
}

// PaymentRead is a Safe payment the payments capability prepared outside any transaction (the
// chain read, the destination screened): called inside the caller's unit of work, it records
// the payment there. A typed step, so no capability hands another an untyped value to cast.
type PaymentRead func(ctx context.Context, p auth.Principal) (safepay.Payment, error)

// RampPayments proposes the Safe payments off-ramps link to. ReadRampPayment prepares the
// payment outside any unit of work; the PaymentRead it returns records it inside one.
type RampPayments interface {
	ReadRampPayment(ctx context.Context, p auth.Principal, in safepay.Request) (PaymentRead, error)
}

// Deps are the ports of the ramps capability.
type Deps struct {
	Store    ports.Store
	Clock    ports.Clock // nil: the wall clock
	Credits  PoolCredits
	Payments RampPayments
	// Limits are the on-ramp caps; zero fields take DefaultLimits'.
	Limits ramp.Limits
	// LiquidationAddress is the platform's address off-ramped USDC is paid to (required).
	LiquidationAddress string
}

// DefaultLimits are the caps when configuration leaves them unset: 10,000 USD per on-ramp and
// 50,000 USD per tenant per 24 hours.
var DefaultLimits = ramp.Limits{PerTransaction: 10_000_000_000, PerTenantDaily: 50_000_000_000}

// Service runs the ramp use cases.
type Service struct {
	store       kernel.Units[txView]
	clock       ports.Clock
	credits     PoolCredits
	payments    RampPayments
	limits      ramp.Limits
	liquidation string
}

// New checks the wiring and fails at start-up when a required port is missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("ramps", kernel.Port{Name: "Store", Value: d.Store},
		kernel.Port{Name: "Credits", Value: d.Credits}, kernel.Port{Name: "Payments", Value: d.Payments}); err != nil {
		return nil, err
	}
	addr := strings.TrimSpace(d.LiquidationAddress)
	if !core.IsEVMAddress(addr) {
		return nil, core.E(core.CodeInternal, "ramps: the liquidation address %q is not an EVM address", d.LiquidationAddress)
	}
	limits := d.Limits
	if limits.PerTransaction <= 0 {
		limits.PerTransaction = DefaultLimits.PerTransaction
	}
	if limits.PerTenantDaily <= 0 {
		limits.PerTenantDaily = DefaultLimits.PerTenantDaily
	}
	return &Service{store: kernel.NewUnits(d.Store, narrow), clock: kernel.ClockOrSystem(d.Clock), credits: d.Credits, payments: d.Payments,
		limits: limits, liquidation: addr}, nil
}
