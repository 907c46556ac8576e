package spend

import (
	"errors"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
)

// TestConfine walks the rule row by row: a principal that is not an agent spends from any
// source; an agent spends only from its own wallet.
func TestConfine(t *testing.T) {
	tenantKey := auth.Principal{TenantID: "ten_1"}
	agentKey := auth.Principal{TenantID: "ten_1", AgentID: "agt_1"}
	for _, c := range []struct {
		name      string
		p         auth.Principal
		own       string
		src       Source
		wantAllow bool
	}{
		{"tenant key, service balance", tenantKey, "", Source{Kind: SourceServiceBalance}, true},
		{"tenant key, any wallet", tenantKey, "", Source{Kind: SourceWallet, WalletID: "wal_2"}, true},
		{"agent, own wallet", agentKey, "wal_1", Source{Kind: SourceWallet, WalletID: "wal_1"}, true},
		{"agent, another wallet", agentKey, "wal_1", Source{Kind: SourceWallet, WalletID: "wal_2"}, false},
		{"agent without a wallet, empty wallet id", agentKey, "", Source{Kind: SourceWallet}, false},
		{"agent, service balance", agentKey, "wal_1", Source{Kind: SourceServiceBalance}, false},
		{"agent, card funding", agentKey, "wal_1", Source{Kind: SourceCardFunding}, false},
		{"agent, escrow", agentKey, "wal_1", Source{Kind: SourceEscrow}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Confine(c.p, c.own, c.src)
			if c.wantAllow {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *core.Error
			if !errors.As(err, &e) || e.Code != core.CodeInsufficientScope || e.Details["reason"] != ReasonAgentWalletOnly {
				t.Fatalf("got %v, want INSUFFICIENT_SCOPE with reason AGENT_WALLET_ONLY", err)
			}
		})
	}
}
