// Package agents holds black-box tests of agents over HTTP, on go-ethereum's simulated chain
// for the wallet and payment parts: keys stripped of the forbidden scopes, suspension at the
// authentication layer, limits, the agent's Safe, spend caps on Safe payments, the activity
// timeline, and (at the application level) the card budget seam.
package agents

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// The shared service's store fails the spend read of the agents in unreadable, so a test can
// see the limits fail closed.
func TestMain(m *testing.M) {
	harness.MainWithOptions(m, harness.Options{Chain: true, Modify: func(c *wiring.Config) {
		c.WrapStore = func(s ports.Store) ports.Store { return poisonStore{Store: s} }
	}})
}

var env = harness.Shared

var unreadable sync.Map // agent id → true

type poisonStore struct{ ports.Store }

func (s poisonStore) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	return s.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return fn(ctx, poisonTx{Tx: tx}) })
}

type poisonTx struct{ ports.Tx }

func (t poisonTx) Agents() ports.AgentRepo { return poisonAgents{AgentRepo: t.Tx.Agents()} }

type poisonAgents struct{ ports.AgentRepo }

func (a poisonAgents) SpentInWindows(ctx context.Context, ag agent.Agent, w agent.Windows) (agent.Spent, error) {
	if _, bad := unreadable.Load(ag.ID); bad {
		return agent.Spent{}, errors.New("injected failure reading the spend windows")
	}
	return a.AgentRepo.SpentInWindows(ctx, ag, w)
}
