package http

import (
	"github.com/corridorhq/corridor/app/operations"
)

// Each capability has a handler type that holds its own service and lists its own endpoints;
// Server keeps what every route shares (middleware, the error table, registration and the
// OpenAPI document). A handler that needs another capability declares the small interface it
// uses, as app packages do.

// handlers are the server's handler types, one per capability.
type handlers struct {
	tenancy      *tenancyHandlers
	finance      *financeHandlers
	wallets      *walletsHandlers
	faucet       *faucetHandlers
	safePayments *safePaymentsHandlers
	policy       *policyHandlers
	agents       *agentsHandlers
	cards        *cardsHandlers
	treasury     *treasuryHandlers
	ramps        *rampsHandlers
	twoFactor    *twoFactorHandlers
	webhooks     *webhooksHandlers
	invoices     *invoicesHandlers
	checkout     *checkoutHandlers
	offramp      *offrampHandlers
	claims       *claimsHandlers
	recipients   *recipientsHandlers
	operator     *operatorHandlers
	requestLogs  *requestLogsHandlers
}

// newHandlers gives each handler type its service from deps, and what it takes from the
// server's configuration.
func (s *Server) newHandlers(d Deps) handlers {
	operator := operatorName(s.cfg.OperatorToken)
	actor := operations.Actor{Operator: operator, Via: "api"}
	var walletPayments walletSends
	if d.SafePay != nil {
		walletPayments = d.SafePay
	}
	var agentCardIssuer agentCards
	if d.Cards != nil {
		agentCardIssuer = d.Cards
	}
	return handlers{
		tenancy:      &tenancyHandlers{svc: d.Tenancy},
		finance:      &financeHandlers{svc: d.Finance, exports: s.exportSlots()},
		wallets:      &walletsHandlers{svc: d.Wallets, payments: walletPayments},
		faucet:       &faucetHandlers{svc: d.Faucet},
		safePayments: &safePaymentsHandlers{svc: d.SafePay},
		policy:       &policyHandlers{svc: d.Policy},
		agents:       &agentsHandlers{svc: d.Agents, cards: agentCardIssuer, now: d.Tenancy.Now, cardsEnabled: s.cfg.Capabilities.Features["cards"]},
		cards:        &cardsHandlers{svc: d.Cards, ephemeralKeys: s.ephemeralKeyLimiter},
		treasury:     &treasuryHandlers{svc: d.Treasury},
		ramps:        &rampsHandlers{svc: d.Ramps},
		twoFactor:    &twoFactorHandlers{svc: d.TwoFactor},
		webhooks:     &webhooksHandlers{svc: d.Webhooks},
		invoices:     &invoicesHandlers{svc: d.Invoices, arbiter: d.Operations, actor: actor, limitAnonymous: s.limitAnonymous},
		checkout:     &checkoutHandlers{svc: d.Checkout, pageBaseURL: s.cfg.CheckoutPageBase, log: s.log},
		offramp:      &offrampHandlers{svc: d.Offramp, operator: operator, reviews: d.Operations, actor: actor},
		claims:       &claimsHandlers{svc: d.Claims, limiter: s.claimLimiter},
		recipients:   &recipientsHandlers{svc: d.Recipients},
		operator:     &operatorHandlers{svc: d.Operations, actor: actor},
		requestLogs:  &requestLogsHandlers{svc: d.RequestLogs},
	}
}
