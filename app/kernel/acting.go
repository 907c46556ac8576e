package kernel

import (
	"context"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ports"
)

// Acting is the principal a capability acts as when it asks another capability to do a step on
// its caller's behalf (a ramp proposing its Safe payment, a bill's acceptance proposing the
// payment): the caller's tenant, environment and identity, with exactly the scope that step
// needs. The identity travels whole, so an agent stays an agent on every composite route: its
// wallet guard and limits apply, and its activity timeline sees the proposal.
func Acting(p auth.Principal, scope auth.Scope) auth.Principal {
	return auth.Principal{
		Kind: p.Kind, TenantID: p.TenantID, Environment: p.Environment, Scopes: []auth.Scope{scope},
		KeyID: p.KeyID, KeyPubID: p.KeyPubID, KeyExpiresAt: p.KeyExpiresAt,
		UserID: p.UserID, Email: p.Email, Role: p.Role, MemberID: p.MemberID, AgentID: p.AgentID,
	}
}

// System is the principal a background pass acts as for a tenant (a rule runner's sweep, an
// invoice's automatic settlement): no caller, no agent, exactly the scope the step needs.
func System(tenantID string, env core.Environment, scope auth.Scope) auth.Principal {
	return auth.Principal{Kind: auth.KindAPIKey, TenantID: tenantID, Environment: env, Scopes: []auth.Scope{scope}}
}

// ReasonAgentWalletOnly is details.reason of the refusal of an agent moving money outside its
// own wallet.
const ReasonAgentWalletOnly = "AGENT_WALLET_ONLY"

// RequireAgentWallet is the one guard that keeps an agent inside its own wallet on every money
// route (docs/decisions/tenancy.md): a principal that is not an agent passes; an agent passes only when walletID is
// its agent's Safe. walletID "" names a route that moves the tenant's money without a wallet
// (a checkout refund from the service balance): an agent never may. The refusal is
// INSUFFICIENT_SCOPE with details.reason AGENT_WALLET_ONLY.
func RequireAgentWallet(ctx context.Context, agents ports.AgentRepo, p auth.Principal, walletID string) error {
	if p.AgentID == "" {
		return nil
	}
	own, err := agents.FindAgent(ctx, p.TenantID, p.Environment, p.AgentID)
	if err != nil {
		return err
	}
	if walletID != "" && own.WalletID == walletID {
		return nil
	}
	details := map[string]any{"reason": ReasonAgentWalletOnly, "agentId": own.ID}
	if walletID == "" {
		return core.E(core.CodeInsufficientScope,
			"an agent key moves money only from its agent's wallet (%s); this route moves the tenant's money", orNone(own.WalletID)).
			WithDetails(details)
	}
	details["walletId"] = walletID
	return core.E(core.CodeInsufficientScope,
		"an agent key moves money only from its agent's wallet (%s); wallet %s belongs to the tenant", orNone(own.WalletID), walletID).
		WithDetails(details)
}

// orNone names a wallet id, or says the agent has none yet.
func orNone(walletID string) string {
	if walletID == "" {
		return "none provisioned yet"
	}
	return walletID
}
