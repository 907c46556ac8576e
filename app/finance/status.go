package finance

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ports"
)

// Health values of the status report.
const (
	HealthOK            = "ok"
	HealthDegraded      = "degraded"
	HealthUnavailable   = "unavailable"
	HealthNotConfigured = "not_configured"
)

// Bounds of the status report.
const (
	// statusReadTimeout bounds each check (the database ping, each chain read): a slower
	// answer is reported as unavailable, never waited for.
	statusReadTimeout = 3 * time.Second
	// MaxMirrorLagBlocks is how far the ledger mirror's cursor may trail the chain's head
	// before the environment is reported degraded (about 20 minutes of 2-second blocks).
	MaxMirrorLagBlocks = 600
)

// ChainHealth is one environment's chain as the status report sees it. Pointers are nil when
// the value could not be read.
type ChainHealth struct {
	Environment         core.Environment
	Status              string
	ChainID             *int64
	LatestBlock         *uint64
	IndexedThroughBlock *uint64
	MirrorLagBlocks     *uint64
	Problem             string
}

// DependencyHealth is one outside dependency (a payout provider, the SMS gateway, the card
// issuer) as its recent calls saw it: unavailable after calls in a row got no answer. Only the
// routes and jobs that call it are affected; readiness never is.
type DependencyHealth struct {
	Name    string
	Kind    string
	Status  string // HealthOK or HealthUnavailable
	Since   *time.Time
	Problem string
}

// StatusReport is the service's health (GET /v1/status).
type StatusReport struct {
	Status       string // ok when every part is; degraded otherwise
	Database     string
	Chains       []ChainHealth
	Dependencies []DependencyHealth
	CheckedAt    time.Time
}

// Status reports the database's, each environment's chain and each outside dependency's health. It never fails because a
// part is down: that part is reported unavailable and the whole degraded.
func (s *Service) Status(ctx context.Context, p auth.Principal) (StatusReport, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeStatusRead); err != nil {
		return StatusReport{}, err
	}
	rep := StatusReport{Status: HealthOK, Database: HealthOK, CheckedAt: s.clock.Now().UTC()}
	pingCtx, cancel := context.WithTimeout(ctx, statusReadTimeout)
	defer cancel()
	if err := s.ping(pingCtx); err != nil {
		rep.Database, rep.Status = HealthUnavailable, HealthDegraded
	}
	for _, env := range []core.Environment{core.EnvTest, core.EnvLive} {
		h := s.chainHealth(ctx, env, rep.Database == HealthOK)
		if h.Status == HealthDegraded || h.Status == HealthUnavailable {
			rep.Status = HealthDegraded
		}
		rep.Chains = append(rep.Chains, h)
	}
	rep.Dependencies = []DependencyHealth{}
	if s.deps != nil {
		rep.Dependencies = s.deps()
	}
	for _, d := range rep.Dependencies {
		if d.Status != HealthOK {
			rep.Status = HealthDegraded
		}
	}
	return rep, nil
}

// chainHealth reads the head and the mirror's cursor of env's chain. The platform relayer
// (its address, its gas balance) is not a tenant's business: operators read it from the
// metrics listener (corridor_relayer_balance_eth).
func (s *Service) chainHealth(ctx context.Context, env core.Environment, dbUp bool) ChainHealth {
	h := ChainHealth{Environment: env, Status: HealthOK}
	c, err := s.chains.Chain(env)
	if err != nil {
		h.Status = HealthNotConfigured
		return h
	}
	id := c.ChainID()
	h.ChainID = &id
	readCtx, cancel := context.WithTimeout(ctx, statusReadTimeout)
	defer cancel()
	latest, err := c.LatestBlock(readCtx)
	if err != nil {
		h.Status, h.Problem = HealthUnavailable, "the chain's node could not be read"
		if dbUp {
			// Where the mirror stands is the database's to say, node or not.
			s.mirrorLag(ctx, &h, env, id, nil)
		}
		return h
	}
	h.LatestBlock = &latest
	if dbUp {
		s.mirrorLag(ctx, &h, env, id, &latest)
	}
	return h
}

// mirrorLag reads the ledger mirror's cursor and how far it trails the head; with no head
// (the node could not be read) only where the mirror stands, the status left as it is.
func (s *Service) mirrorLag(ctx context.Context, h *ChainHealth, env core.Environment, chainID int64, head *uint64) {
	var cur ports.ChainCursor
	var found bool
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		cur, found, err = tx.ChainIndex().FindCursor(ctx, env, chainID)
		return err
	})
	if err != nil {
		if head != nil {
			h.Status, h.Problem = HealthDegraded, "the ledger mirror's cursor could not be read"
		}
		return
	}
	through, ok := cur.IndexedThrough()
	if !found || !ok {
		return // the mirror has not run yet: nothing trails
	}
	if head == nil {
		h.IndexedThroughBlock = &through
		return
	}
	latest := *head
	lag := uint64(0)
	if latest > through {
		lag = latest - through
	}
	h.IndexedThroughBlock, h.MirrorLagBlocks = &through, &lag
	if lag > MaxMirrorLagBlocks {
		h.Status, h.Problem = HealthDegraded, "the ledger mirror trails the chain's head"
	}
}
