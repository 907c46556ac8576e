package finance

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// VolumeDays is how many UTC days the console's volume chart covers, today included.
const VolumeDays = 30

// VolumeView is the service asset's posted movements on the tenant's service balance, one
// entry per UTC day of the window, oldest first, days without movement included as zero.
type VolumeView struct {
	Asset string
	Days  []ports.DayVolume
}

// Volume is the money that came into and went out of the tenant's service balance (the
// available accounts of Balances) per UTC day over the last VolumeDays days.
func (s *Service) Volume(ctx context.Context, p auth.Principal) (VolumeView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsRead); err != nil {
		return VolumeView{}, err
	}
	now := s.clock.Now().UTC()
	first := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, -(VolumeDays - 1))
	var rows []ports.DayVolume
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		rows, err = tx.LedgerReports().DailyVolume(ctx, p.Environment, p.TenantID, ledger.KindTenantAvailable, first)
		return err
	})
	if err != nil {
		return VolumeView{}, err
	}
	return dailySeries(kernel.ServiceAsset, first, rows), nil
}

// dailySeries lays the asset's rows out on every day from first, VolumeDays of them.
func dailySeries(asset string, first time.Time, rows []ports.DayVolume) VolumeView {
	v := VolumeView{Asset: asset, Days: make([]ports.DayVolume, VolumeDays)}
	for i := range v.Days {
		v.Days[i] = ports.DayVolume{Day: first.AddDate(0, 0, i), Asset: asset}
	}
	for _, r := range rows {
		i := int(r.Day.Sub(first).Hours() / 24)
		if r.Asset == asset && i >= 0 && i < VolumeDays {
			v.Days[i] = r
		}
	}
	return v
}
