package safepayments

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
)

// ReadTransaction validates a transaction proposal (POST /v1/wallets/{id}/transactions) and
// reads the chain for it, as ReadProposal does for a payment; Propose then records it as a
// Safe payment of kind transaction, through the same gates and nonce queue.
//
// A custodial wallet's proposal must be a USDC transfer the gates can state (CUSTODY_CALL_
// REFUSED otherwise); any wallet's transfer calldata is gated as a payment of its real amount
// to its real recipient (Propose, safepay.Payment.Gated).
//
// An agent key cannot propose one: agent limits count the USDC a payment declares, and a
// transaction declares none, so letting an agent compose calls would step around its caps.
func (s *Service) ReadTransaction(ctx context.Context, p auth.Principal, in safepay.TransactionRequest) (ProposalRead, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsCreate); err != nil {
		return ProposalRead{}, err
	}
	if p.AgentID != "" {
		return ProposalRead{}, core.E(core.CodeInsufficientScope,
			"an agent key cannot propose arbitrary Safe transactions (agent limits count USDC payments); use POST /v1/payments").
			WithDetails(map[string]any{"agentId": p.AgentID})
	}
	order, err := safepay.ParseTransactionOrder(in)
	if err != nil {
		return ProposalRead{}, err
	}
	chain, err := s.chains.Chain(p.Environment)
	if err != nil {
		return ProposalRead{}, err
	}
	w, dest, err := s.readSource(ctx, p, &order, true)
	if err != nil {
		return ProposalRead{}, err
	}
	// The custody key signs only what the gates can state as (token, amount, recipient): a
	// USDC transfer. Approvals, transferFrom, allowances, other tokens, native value and
	// unknown selectors are refused for a custodial wallet (no route signs them with its key).
	if w.Custodial() {
		if effect := safepay.DecodeEffect(*order.Call, chain.USDCAddress()); !effect.Stated {
			return ProposalRead{}, safepay.RefuseUnstated(effect)
		}
	}
	return s.readSafe(ctx, chain, p, order, w, dest, in.TwofaChallengeID)
}
