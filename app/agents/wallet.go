package agents

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// ProvisionWallet creates the agent's one Safe (purpose AGENT) with the owners the body names,
// as POST /v1/wallets would; the CREATE2 address is usable at once and a job deploys it. A
// second call is AGENT_WALLET_EXISTS and a suspended agent AGENT_SUSPENDED (both 409). The
// agent row stays locked while the wallet is created, so two concurrent calls make one Safe.
func (s *Service) ProvisionWallet(ctx context.Context, p auth.Principal, id string, in WalletInput) (wallet.Wallet, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeAgentsManage, auth.ScopeWalletsWrite); err != nil {
		return wallet.Wallet{}, err
	}
	var w wallet.Wallet
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		a, err := tx.Agents().LockAgent(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		if a.WalletID != "" {
			return core.E(agent.CodeWalletExists, "agent %s already has wallet %s", a.ID, a.WalletID).
				WithDetails(map[string]any{"agentId": a.ID, "walletId": a.WalletID})
		}
		if err := a.RequireActive(); err != nil {
			return err
		}
		if strings.TrimSpace(in.Name) == "" {
			in.Name = truncate("Agent "+a.Name, wallet.MaxNameLength)
		}
		if w, err = s.wallets.ProvisionAgentWallet(ctx, p, in); err != nil {
			return err
		}
		a.WalletID, a.UpdatedAt = w.ID, s.clock.Now().UTC()
		return tx.Agents().UpdateAgent(ctx, a)
	})
	return w, err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
