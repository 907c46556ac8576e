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
	"github.com/corridorhq/corridor/core/spend"
)

// GateAgentPayment puts a Safe payment being proposed to the spend guard (kernel.SpendGuard): an
// agent key pays only from its own agent's wallet (INSUFFICIENT_SCOPE with details.reason
// AGENT_WALLET_ONLY), a suspended agent pays nothing (AGENT_SUSPENDED), and a payment from an
// agent's wallet reserves its amount against the agent's windows at once, under the payment
// id, with the agent row locked: parallel proposals are decided one at a time and never
// together exceed a cap (AGENT_LIMIT, 403). The reservation counts while the payment is live
// and stops counting when it fails or is cancelled. When the windows cannot be read the
// payment is refused with AGENT_LIMIT_UNAVAILABLE (fails closed).
//
// It runs inside the proposal's unit of work, in a savepoint: a refusal or a failing read
// rolls back only itself, and the agent's lock holds until the proposal commits.
func (s *Service) GateAgentPayment(ctx context.Context, p auth.Principal, pay safepay.Payment) error {
	req := spend.Request{Principal: p, Source: spend.Source{Kind: spend.SourceWallet, WalletID: pay.SourceWalletID},
		AmountBaseUnits: pay.AmountBaseUnits, Counterparty: pay.DestinationAddress, Reference: pay.ID}
	var refusal error
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		refusal = s.guard.Authorize(ctx, tx, req)
		if kernel.IsSpendRefusal(refusal) {
			return refusal
		}
		err := refusal
		refusal = nil
		return err
	})
	if refusal != nil {
		return refusal
	}
	if err != nil {
		if requestEnded(err) {
			return err
		}
		s.log.Error("agent limits could not be resolved on payment propose", "tenantId", pay.TenantID,
			"walletId", pay.SourceWalletID, "paymentId", pay.ID, "error", err.Error())
		return core.E(agent.CodeLimitUnavailable,
			"the spend limits of the agent owning wallet %s could not be resolved, so the payment was not proposed; retry shortly",
			pay.SourceWalletID).WithDetails(map[string]any{"walletId": pay.SourceWalletID}).Transient(core.RetryDatabase)
	}
	return nil
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
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		decline = ""
		a, err := tx.Agents().LockAgent(ctx, tenantID, env, agentID)
		if err != nil {
			return err
		}
		if _, found, err := tx.Agents().LockCardSpend(ctx, a.TenantID, authorizationID); err != nil || found {
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
func (s *Service) ReleaseAgentCardSpend(ctx context.Context, tenantID, authorizationID string) error {
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		rec, found, err := tx.Agents().LockCardSpend(ctx, tenantID, authorizationID)
		if err != nil || !found || rec.ReleasedAt != nil {
			return err
		}
		return tx.Agents().ReleaseCardSpend(ctx, tenantID, authorizationID, s.clock.Now().UTC())
	})
}

// AdjustAgentCardSpend lowers an authorization's charge to what its capture took: a partial
// capture gives the uncaptured rest back to the windows the authorization was counted in.
// An unknown or released authorization, or a capture of the whole amount, changes nothing. It
// runs inside the caller's unit of work.
func (s *Service) AdjustAgentCardSpend(ctx context.Context, tenantID, authorizationID string, captured int64) error {
	if captured <= 0 {
		return core.E(core.CodeInternal, "agents: a capture takes a positive amount")
	}
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		rec, found, err := tx.Agents().LockCardSpend(ctx, tenantID, authorizationID)
		if err != nil || !found || rec.ReleasedAt != nil || captured >= rec.AmountBaseUnits {
			return err
		}
		return tx.Agents().AdjustCardSpend(ctx, tenantID, authorizationID, captured)
	})
}
