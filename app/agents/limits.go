package agents

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/auth"
)

// CapInput is one field of a PUT of limits as sent: Set false when the body omitted it,
// Value nil for an explicit null (clears the cap), else a decimal USD string.
type CapInput struct {
	Set   bool
	Value *string
}

// LimitsInput is the body of PUT /v1/agents/{id}/limits.
type LimitsInput struct {
	PerTransactionUSD, DailyUSD, WeeklyUSD, MonthlyUSD CapInput
}

// GetLimits returns the agent's caps.
func (s *Service) GetLimits(ctx context.Context, p auth.Principal, id string) (agent.Agent, error) {
	return s.GetAgent(ctx, p, id)
}

// PutLimits changes only the caps the body sends; null clears one. Every value must be a
// positive decimal string: zero and negative caps are VALIDATION_FAILED naming the field (use
// suspend to stop an agent), and nothing changes when any field is bad.
func (s *Service) PutLimits(ctx context.Context, p auth.Principal, id string, in LimitsInput) (agent.Agent, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeAgentsManage); err != nil {
		return agent.Agent{}, err
	}
	patch, err := parseLimits(in)
	if err != nil {
		return agent.Agent{}, err
	}
	var a agent.Agent
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		locked, err := tx.Agents().LockAgent(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		a = locked
		a.Limits = patch.Apply(locked.Limits)
		a.UpdatedAt = s.clock.Now().UTC()
		if err := tx.Agents().UpdateAgent(ctx, a); err != nil {
			return err
		}
		l := a.Limits
		return kernel.RecordChangeEvent(ctx, tx, a.TenantID, a.Environment, "agent", a.ID, "LIMITS_UPDATED", string(a.Status), a.UpdatedAt,
			map[string]any{"limits": map[string]any{"perTransactionUsd": kernel.USDOrNil(l.PerTransaction), "dailyUsd": kernel.USDOrNil(l.Daily),
				"weeklyUsd": kernel.USDOrNil(l.Weekly), "monthlyUsd": kernel.USDOrNil(l.Monthly)}})
	})
	return a, err
}

func parseLimits(in LimitsInput) (agent.LimitsPatch, error) {
	errs := core.FieldErrors{}
	parse := func(field string, c CapInput) agent.CapPatch {
		if !c.Set || c.Value == nil {
			return agent.CapPatch{Set: c.Set}
		}
		units, err := core.ParseUSD(field, *c.Value)
		switch {
		case err != nil:
			errs.Add(field, kernel.FieldReason(err, field))
		case units <= 0:
			errs.Add(field, "must be a positive amount: zero caps are not allowed; suspend the agent to stop it")
		}
		return agent.CapPatch{Set: true, Value: &units}
	}
	patch := agent.LimitsPatch{
		PerTransaction: parse("perTransactionUsd", in.PerTransactionUSD),
		Daily:          parse("dailyUsd", in.DailyUSD),
		Weekly:         parse("weeklyUsd", in.WeeklyUSD),
		Monthly:        parse("monthlyUsd", in.MonthlyUSD),
	}
	return patch, errs.Err()
}
