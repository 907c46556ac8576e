package fake

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/ramp"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// rampRepo stores sandbox ramps, listed newest first as the Postgres store lists them.
type rampRepo struct{ s *Store }

var _ ports.RampRepo = rampRepo{}

func (r rampRepo) t() *table[ramp.Ramp] { return &r.s.state.ramps }

// CreateRamp refuses a ramp the database's checks would refuse.
func (r rampRepo) CreateRamp(_ context.Context, x ramp.Ramp) error {
	if err := x.Validate(); err != nil {
		return err
	}
	return r.t().insert(x.ID, x)
}

func (r rampRepo) FindRamp(_ context.Context, tenantID string, env core.Environment, id string) (ramp.Ramp, error) {
	x, ok := r.t().rows[id]
	if !ok || x.TenantID != tenantID || x.Environment != env {
		return ramp.Ramp{}, ramp.ErrNotFound
	}
	return x, nil
}

func (r rampRepo) ListRamps(_ context.Context, f ports.RampFilter, p ports.Page) ([]ramp.Ramp, int, error) {
	out, total := page(r.t().filter(func(x ramp.Ramp) bool {
		return x.TenantID == f.TenantID && x.Environment == f.Environment && (f.WalletID == "" || x.WalletID == f.WalletID)
	}, true), p)
	return out, total, nil
}

// LockOnRampCap has nothing to lock: units of work already run one at a time.
func (r rampRepo) LockOnRampCap(context.Context, string, core.Environment) error { return nil }

// OnRampTotalSince sums on-ramps created after since whose drip has not FAILED.
func (r rampRepo) OnRampTotalSince(_ context.Context, tenantID string, env core.Environment, since time.Time) (int64, error) {
	var total int64
	for _, x := range r.t().rows {
		d, ok := r.s.state.drips.rows[x.DripID]
		if x.TenantID == tenantID && x.Environment == env && x.Direction == ramp.DirectionOn && x.CreatedAt.After(since) &&
			ok && d.Status != wallet.DripFailed {
			total += x.AmountBaseUnits
		}
	}
	return total, nil
}
