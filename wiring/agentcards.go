package wiring

import (
	"context"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
)

// agentCards issues an agent's card through the cards capability, read from the services at
// call time: cards is built after agents, since it takes the agents' card budget.
type agentCards struct{ services *registry }

func (a agentCards) PrepareAgentCard(ctx context.Context, p auth.Principal, walletID, agentID string,
	limits card.LimitsPatch) (func(ctx context.Context, base card.Limits) (card.Card, error), error) {
	if a.services.Cards == nil {
		return nil, core.E(core.CodeFeatureNotAvailable, "cards are not available in this deployment")
	}
	return a.services.Cards.PrepareAgentCard(ctx, p, walletID, agentID, limits)
}
