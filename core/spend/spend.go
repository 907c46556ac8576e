// Package spend is the rule money obeys where it leaves a tenant's control: a debit of a
// tenant-owned account toward another owner or the world, or a custody signature. The rule is
// pure: it sees who acts (an agent included), from which source, how much in USD and to whom,
// and the application's spend guard (kernel.SpendGuard in app/kernel) feeds it what the store knows.
package spend

import (
	"context"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
)

// SourceKind names where money leaves from.
type SourceKind string

const (
	// SourceServiceBalance is the tenant's service balance (the tenant_available account).
	SourceServiceBalance SourceKind = "SERVICE_BALANCE"
	// SourceWallet is one of the tenant's Safes (its on-chain mirror account, its custody key).
	SourceWallet SourceKind = "WALLET"
	// SourceCardFunding is a card drawing on the tenant's service balance (funding_account).
	SourceCardFunding SourceKind = "CARD_FUNDING"
	// SourceEscrow is money the tenant put in escrow (a claim, an invoice).
	SourceEscrow SourceKind = "ESCROW"
)

// Source is where a spend draws from. WalletID names the Safe for SourceWallet (and the
// wallet a card spends from, when it spends from one).
type Source struct {
	Kind     SourceKind
	WalletID string
}

// Request is one spend put to the guard.
type Request struct {
	Principal auth.Principal
	Source    Source
	// AmountBaseUnits is the USD amount in base units (6 decimals, as USDC).
	AmountBaseUnits int64
	// Counterparty is who receives: an address, a phone, a cardholder; "" when not known yet.
	Counterparty string
	// Reference is the business id the spend is recorded under (a payment id): the agent
	// budget it reserves is keyed by it, so deciding it twice reserves once.
	Reference string
}

// ReasonAgentWalletOnly is details.reason of the refusal of an agent moving money outside its
// own wallet.
const ReasonAgentWalletOnly = "AGENT_WALLET_ONLY"

// Confine is agent confinement: a principal that is not an agent passes; an agent spends only
// from its own agent's Safe (its cards spend from that Safe too), never from the tenant's
// service balance, card funding, escrow or another wallet. agentWalletID is the acting agent's
// wallet ("" when it has none yet). The refusal is INSUFFICIENT_SCOPE with details.reason
// AGENT_WALLET_ONLY.
func Confine(p auth.Principal, agentWalletID string, src Source) error {
	if p.AgentID == "" {
		return nil
	}
	if src.Kind == SourceWallet && src.WalletID != "" && src.WalletID == agentWalletID {
		return nil
	}
	details := map[string]any{"reason": ReasonAgentWalletOnly, "agentId": p.AgentID, "source": string(src.Kind)}
	if src.WalletID != "" {
		details["walletId"] = src.WalletID
	}
	own := agentWalletID
	if own == "" {
		own = "none provisioned yet"
	}
	if src.Kind == SourceWallet {
		return core.E(core.CodeInsufficientScope,
			"an agent key moves money only from its agent's wallet (%s); wallet %s belongs to the tenant", own, src.WalletID).
			WithDetails(details)
	}
	return core.E(core.CodeInsufficientScope,
		"an agent key moves money only from its agent's wallet (%s); this spends the tenant's %s", own, describe(src.Kind)).
		WithDetails(details)
}

func describe(k SourceKind) string {
	switch k {
	case SourceServiceBalance:
		return "service balance"
	case SourceCardFunding:
		return "service balance through a funding-account card"
	case SourceEscrow:
		return "escrow"
	}
	return "money"
}

type actorKey struct{}

// WithActor records the authenticated caller of a request in ctx, so the ledger's debit path can
// put every debit it posts on that caller's behalf to the guard, whichever route posted it.
func WithActor(ctx context.Context, p auth.Principal) context.Context {
	return context.WithValue(ctx, actorKey{}, p)
}

// ActorFrom returns the caller recorded by WithActor; ok is false in background work.
func ActorFrom(ctx context.Context) (auth.Principal, bool) {
	p, ok := ctx.Value(actorKey{}).(auth.Principal)
	return p, ok
}
