package ports

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
)

// AgentRepo stores agents, the card budget their authorizations consume, and reads the spend
// and activity the agents capability judges and shows.
type AgentRepo interface {
	CreateAgent(ctx context.Context, a agent.Agent) error
	// FindAgent returns an agent of the tenant and environment, or AGENT_NOT_FOUND.
	FindAgent(ctx context.Context, tenantID string, env core.Environment, id string) (agent.Agent, error)
	// LockAgent is FindAgent that locks the row until the transaction ends: it serializes
	// the changes and card authorizations of one agent.
	LockAgent(ctx context.Context, tenantID string, env core.Environment, id string) (agent.Agent, error)
	// FindAgentByWallet returns the agent whose Safe walletID is; found is false for any other
	// wallet.
	FindAgentByWallet(ctx context.Context, tenantID string, env core.Environment, walletID string) (a agent.Agent, found bool, err error)
	ListAgents(ctx context.Context, tenantID string, env core.Environment, page Page) ([]agent.Agent, int, error)
	// UpdateAgent writes status, limits, wallet and times.
	UpdateAgent(ctx context.Context, a agent.Agent) error
	// SpentInWindows sums the agent's counted spend in each window: COMPLETED Safe payments
	// from its wallet (by the time they completed) plus the card budget its authorizations
	// consumed and did not release, counted in the windows recorded at consumption.
	SpentInWindows(ctx context.Context, a agent.Agent, w agent.Windows) (agent.Spent, error)
	// CreateCardSpend records the budget an authorization consumed; a second record for one
	// authorization id is refused by the primary key (callers look it up first).
	CreateCardSpend(ctx context.Context, s agent.CardSpend) error
	// LockCardSpend returns the tenant's record of an authorization, locked; found is false
	// when none.
	LockCardSpend(ctx context.Context, tenantID, authorizationID string) (s agent.CardSpend, found bool, err error)
	// AdjustCardSpend lowers a record's amount to what the authorization's capture took.
	AdjustCardSpend(ctx context.Context, tenantID, authorizationID string, amount int64) error
	// FindAgentCard returns the id of the card bound to the agent; found is false when none.
	FindAgentCard(ctx context.Context, a agent.Agent) (cardID string, found bool, err error)
	// ReleaseCardSpend marks a record released at the given time (once).
	ReleaseCardSpend(ctx context.Context, tenantID, authorizationID string, at time.Time) error
	// ListActivity returns up to limit timeline items of the agent strictly before cursor
	// (nil: from the newest), newest first.
	ListActivity(ctx context.Context, a agent.Agent, before *agent.Cursor, limit int) ([]agent.ActivityItem, error)
}
