package kernel

import (
	"context"
	"fmt"
	"time"

	"github.com/corridorhq/corridor/core"
)

// RelayerBudget is how many relayer-paid transactions (Safe deployments, Safe payment
// executions, claim escrow fundings) a tenant may cause per environment and UTC day
// (RELAYER_TX_BUDGET). Zero or less: no limit.
type RelayerBudget int

// Charge counts one relayer-paid transaction in the caller's unit of work, which then enqueues
// it. Past the budget it answers 429 RATE_LIMITED with details.scope "relayer" and the seconds
// until the next UTC day, and the unit of work rolls back: nothing is recorded or sent.
func (b RelayerBudget) Charge(ctx context.Context, tx BudgetTx, tenantID string, env core.Environment, now time.Time) error {
	if b <= 0 {
		return nil
	}
	charged, err := tx.RelayerBudget().Charge(ctx, tenantID, env, now, int(b))
	if err != nil || charged {
		return err
	}
	day := now.UTC().Truncate(24 * time.Hour)
	secs := int64(day.Add(24*time.Hour).Sub(now) / time.Second)
	if secs < 1 {
		secs = 1
	}
	return (&core.Error{Code: core.CodeRateLimited,
		Message: fmt.Sprintf("this tenant's relayer budget of %d transactions for %s today (UTC) is spent; retry after %d seconds", b, env, secs)}).
		WithDetails(map[string]any{"scope": "relayer", "limit": int(b), "retryAfterSeconds": fmt.Sprint(secs)})
}
