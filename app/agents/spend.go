package agents

import (
	"context"
	"errors"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

// GateAgentPayment applies an agent's limits to a Safe payment being proposed from the agent's
// wallet (any other wallet passes, except that an agent key pays only from its own agent's
// wallet, where its caps apply: INSUFFICIENT_SCOPE with details.reason AGENT_WALLET_ONLY):
// AGENT_LIMIT (403) when the per-transaction cap, or the settled spend of a window plus the
// amount, would exceed a cap. It is a guardrail against
// settled spend (docs/api.md Limits): only COMPLETED payments count (and the card budget the
// agent's authorizations consumed), so payments proposed before any settles can together
// exceed a cap, and settlements outside this service are not seen. An agent key whose agent
// was suspended since it authenticated is AGENT_SUSPENDED. When the windows cannot be read the
// payment is refused with AGENT_LIMIT_UNAVAILABLE (fails closed).
//
// It runs inside the proposal's unit of work; the reads run in a savepoint, so a failing read
// rolls back only itself.
func (s *Service) GateAgentPayment(ctx context.Context, p auth.Principal, pay safepay.Payment) error {
	var refusal error
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		refusal = nil
		// An agent key spends only from its own agent's Safe, where its caps apply.
		if err := kernel.RequireAgentWallet(ctx, tx.Agents(), p, pay.SourceWalletID); err != nil {
			if errors.Is(err, core.ErrInsufficientScope) {
				refusal = err
				return nil
			}
			return err
		}
		a, found, err := tx.Agents().FindAgentByWallet(ctx, pay.TenantID, pay.Environment, pay.SourceWalletID)
		if err != nil || !found {
			return err
		}
		if p.AgentID == a.ID {
			if refusal = requireActive(a); refusal != nil {
				return nil
			}
		}
		spent, err := tx.Agents().SpentInWindows(ctx, a, agent.WindowsAt(s.clock.Now()))
		if err != nil {
			return err
		}
		refusal = agent.CheckSpend(a.Limits, spent, pay.AmountBaseUnits)
		return nil
	})
	if err != nil {
		if requestEnded(err) {
			return err
		}
		s.log.Error("agent limits could not be resolved on payment propose", "tenantId", pay.TenantID,
			"walletId", pay.SourceWalletID, "paymentId", pay.ID, "error", err.Error())
		return core.E(agent.CodeLimitUnavailable,
			"the spend limits of the agent owning wallet %s could not be resolved, so the payment was not proposed; retry shortly",
			pay.SourceWalletID).WithDetails(map[string]any{"walletId": pay.SourceWalletID})
	}
	return refusal
}

// requestEnded tells the request's own deadline or cancellation, which the HTTP adapter answers
// as such, from the windows failing to read.
func requestEnded(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// ConsumeAgentCardSpend decides a card authorization of the agent against its windows and, when
// it fits, consumes the budget at once, recording the windows it was counted in under the
// authorization id. It runs inside the caller's unit of work (the context carries the
// transaction) and locks the agent row, so the authorizations of one agent are decided one at
// a time and never together exceed a cap. decline is "" on approval, AGENT_SUSPENDED or
// AGENT_LIMIT on a decline (nothing is consumed); err is for the caller to decline with
// AGENT_LIMIT_UNAVAILABLE (fail closed). Consuming an authorization id twice answers the first
// decision without consuming again.
func (s *Service) ConsumeAgentCardSpend(ctx context.Context, tenantID string, env core.Environment, agentID, authorizationID string, amount int64, at time.Time) (string, error) {
	if authorizationID == "" || amount <= 0 {
		return "", core.E(core.CodeInternal, "agents: card spend needs an authorization id and a positive amount")
	}
	var decline string
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		decline = ""
		a, err := tx.Agents().LockAgent(ctx, tenantID, env, agentID)
		if err != nil {
			return err
		}
		if _, found, err := tx.Agents().LockCardSpend(ctx, authorizationID); err != nil || found {
			return err
		}
		if a.Status == agent.StatusSuspended {
			decline = string(agent.CodeSuspended)
			return nil
		}
		windows := agent.WindowsAt(at)
		spent, err := tx.Agents().SpentInWindows(ctx, a, windows)
		if err != nil {
			return err
		}
		if err := agent.CheckSpend(a.Limits, spent, amount); err != nil {
			decline = string(agent.CodeLimit)
			return nil
		}
		return tx.Agents().CreateCardSpend(ctx, agent.CardSpend{AuthorizationID: authorizationID, AgentID: a.ID,
			TenantID: a.TenantID, Environment: a.Environment, AmountBaseUnits: amount, Windows: windows, ConsumedAt: at.UTC()})
	})
	return decline, err
}

// ReleaseAgentCardSpend credits back the budget an authorization consumed (a reversal or an
// expired hold), in the windows it was counted in, not the windows of now. Releasing an
// unknown or released authorization changes nothing. It runs inside the caller's unit of work.
func (s *Service) ReleaseAgentCardSpend(ctx context.Context, authorizationID string) error {
	return s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		rec, found, err := tx.Agents().LockCardSpend(ctx, authorizationID)
		if err != nil || !found || rec.ReleasedAt != nil {
			return err
		}
		return tx.Agents().ReleaseCardSpend(ctx, authorizationID, s.clock.Now().UTC())
	})
}

// AdjustAgentCardSpend lowers an authorization's charge to what its capture took: a partial
// capture gives the uncaptured rest back to the windows the authorization was counted in.
// An unknown or released authorization, or a capture of the whole amount, changes nothing. It
// runs inside the caller's unit of work.
func (s *Service) AdjustAgentCardSpend(ctx context.Context, authorizationID string, captured int64) error {
	if captured <= 0 {
		return core.E(core.CodeInternal, "agents: a capture takes a positive amount")
	}
	return s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		rec, found, err := tx.Agents().LockCardSpend(ctx, authorizationID)
		if err != nil || !found || rec.ReleasedAt != nil || captured >= rec.AmountBaseUnits {
			return err
		}
		return tx.Agents().AdjustCardSpend(ctx, authorizationID, captured)
	})
}
