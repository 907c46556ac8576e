package wiring

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/corridorhq/corridor/adapters/chain"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/app/anchors"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// DefaultLedgerAnchorInterval paces the ledger anchor when LEDGER_ANCHOR_INTERVAL is zero: one
// transaction an hour bounds the window in which a rewrite of the journal goes unproven, at the
// cost of about 22,000 gas each.
const DefaultLedgerAnchorInterval = time.Hour

// newLedgerAnchoring picks the chain that carries the anchors: LIVE's when LIVE is served (the
// chain whose history finance relies on), else TEST's, when it is the go-ethereum adapter (the
// one with a relayer); nil when there is none. A negative
// interval schedules no pass (AnchorLedger still runs one).
func newLedgerAnchoring(store ports.LedgerAnchorStore, adapters map[core.Environment]ports.Chain, interval time.Duration, log *slog.Logger) *anchors.Service {
	if interval == 0 {
		interval = DefaultLedgerAnchorInterval
	}
	for _, env := range []core.Environment{core.EnvLive, core.EnvTest} {
		if c, ok := adapters[env].(*chain.Adapter); ok {
			return anchors.New(store, c, env, interval, log)
		}
	}
	return nil
}

// AnchorLedger runs one anchor pass now, as the periodic job does (tests and operators that
// want an anchor without waiting for the interval). It fails when no chain carries anchors.
func (s *Service) AnchorLedger(ctx context.Context) (postgres.LedgerAnchor, error) {
	if s.anchoring == nil {
		return postgres.LedgerAnchor{}, errors.New("ledger anchoring is off: no chain is configured")
	}
	return s.anchoring.Pass(ctx)
}
