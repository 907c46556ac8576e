package agents

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/auth"
)

// ActivityPage is one page of an agent's timeline and the cursor of the next ("" at the end).
type ActivityPage struct {
	Items      []agent.ActivityItem
	NextCursor string
}

// DefaultActivityLimit is the page size when the caller names none.
const DefaultActivityLimit = 50

// Activity merges the agent's Safe payments, its card's authorizations and the policy
// decisions about it (subject the agent or its wallet), newest first; (time, id) breaks ties, so the cursor is stable while new
// items arrive at the head.
func (s *Service) Activity(ctx context.Context, p auth.Principal, id string, limit int, cursor string) (ActivityPage, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeAgentsRead); err != nil {
		return ActivityPage{}, err
	}
	if limit <= 0 {
		limit = DefaultActivityLimit
	}
	if limit > agent.MaxActivityLimit {
		return ActivityPage{}, core.Invalid("limit", "must be at most 100")
	}
	var before *agent.Cursor
	if cursor != "" {
		c, err := agent.ParseCursor(cursor)
		if err != nil {
			return ActivityPage{}, err
		}
		before = &c
	}
	var page ActivityPage
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		a, err := tx.Agents().FindAgent(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		// One more than asked tells whether a next page exists.
		items, err := tx.Agents().ListActivity(ctx, a, before, limit+1)
		if err != nil {
			return err
		}
		page = ActivityPage{Items: items}
		if len(items) > limit {
			page.Items = items[:limit]
			last := page.Items[limit-1]
			page.NextCursor = agent.Cursor{At: last.At, ID: last.ID}.Encode()
		}
		return nil
	})
	return page, err
}
