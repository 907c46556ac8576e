package ports

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/ramp"
)

// RampFilter selects ramps of one tenant and environment, optionally of one wallet.
type RampFilter struct {
	TenantID    string
	Environment core.Environment
	WalletID    string // "" = every wallet
}

// RampRepo stores sandbox ramps.
type RampRepo interface {
	CreateRamp(ctx context.Context, r ramp.Ramp) error
	// FindRamp is scoped by tenant and environment; another tenant's ramp is RAMP_NOT_FOUND.
	FindRamp(ctx context.Context, tenantID string, env core.Environment, id string) (ramp.Ramp, error)
	// ListRamps lists newest first.
	ListRamps(ctx context.Context, f RampFilter, page Page) ([]ramp.Ramp, int, error)
	// LockOnRampCap takes a transaction-scoped lock of the tenant's on-ramp cap, so counting the
	// window and inserting a ramp are one step for parallel requests.
	LockOnRampCap(ctx context.Context, tenantID string, env core.Environment) error
	// OnRampTotalSince sums the tenant's on-ramps created after since whose credit has not
	// FAILED, in USD base units.
	OnRampTotalSince(ctx context.Context, tenantID string, env core.Environment, since time.Time) (int64, error)
}
