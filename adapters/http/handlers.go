package http

import (
	"context"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/agents"
	"github.com/corridorhq/corridor/app/cards"
	"github.com/corridorhq/corridor/app/checkouts"
	"github.com/corridorhq/corridor/app/claims"
	"github.com/corridorhq/corridor/app/faucet"
	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/app/invoices"
	"github.com/corridorhq/corridor/app/offramps"
	"github.com/corridorhq/corridor/app/operations"
	"github.com/corridorhq/corridor/app/policies"
	"github.com/corridorhq/corridor/app/ramps"
	"github.com/corridorhq/corridor/app/recipients"
	"github.com/corridorhq/corridor/app/safepayments"
	"github.com/corridorhq/corridor/app/tenancy"
	"github.com/corridorhq/corridor/app/treasuries"
	"github.com/corridorhq/corridor/app/twofactors"
	"github.com/corridorhq/corridor/app/wallets"
	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/safepay"
)

// Each capability has a handler type that holds its own service and lists its own endpoints;
// Server keeps what every route shares (middleware, the error table, registration and the
// OpenAPI document). A handler that needs another capability declares the small interface it
// uses, as app packages do.

// tenancyHandlers serve the caller's tenant, its members and its API keys.
type tenancyHandlers struct{ svc *tenancy.Service }

// financeHandlers serve the service balance, the ledger's finance reads, reconciliation and
// the service's status.
type financeHandlers struct{ svc *finance.Service }

// faucetHandlers serve the sandbox faucet: funding a TEST wallet and its drips.
type faucetHandlers struct{ svc *faucet.Service }

// walletsHandlers serve wallets, handles and the secondary wallet surface. A
// secondary send is a Safe payment: payments proposes it.
type walletsHandlers struct {
	svc      *wallets.Service
	payments walletSends
}

// walletSends proposes the Safe payment of a secondary send (POST /v1/wallets/{id}/send).
type walletSends interface {
	ReadProposal(ctx context.Context, p auth.Principal, in safepay.Request) (safepayments.ProposalRead, error)
	Propose(ctx context.Context, p auth.Principal, read safepayments.ProposalRead) (safepay.Payment, error)
}

// safePaymentsHandlers serve Safe payments.
type safePaymentsHandlers struct{ svc *safepayments.Service }

// policyHandlers serve spend policies, their versions and attachments.
type policyHandlers struct{ svc *policies.Service }

// agentsHandlers serve agents, their keys, limits, wallets and cards. now is the clock a new
// agent key's status is read at (the tenancy capability's, as for every key).
type agentsHandlers struct {
	svc          *agents.Service
	cards        agentCards // nil: cards are not in this deployment
	now          func() time.Time
	cardsEnabled bool // POST /v1/agents/{id}/cards is served when cards are
}

// cardsHandlers serve cards, cardholders, authorizations and push-provisioning keys. A wallet
// card issued for an agent follows the agents' rule for it (the cards capability applies it).
type cardsHandlers struct {
	svc           *cards.Service
	ephemeralKeys callerLimiter // per client IP, a rolling minute
}

// agentCards issues an agent's card (POST /v1/agents/{id}/cards): the cards capability does,
// by the agents' rule for it.
type agentCards interface {
	ReadAgentCard(ctx context.Context, p auth.Principal, agentID string, limits card.LimitsPatch) (cards.AgentCardRead, error)
	RecordAgentCard(ctx context.Context, p auth.Principal, read cards.AgentCardRead) (card.Card, error)
}

// treasuryHandlers serve treasury accounts, their rules and sweeps.
type treasuryHandlers struct{ svc *treasuries.Service }

// rampsHandlers serve on- and off-ramps.
type rampsHandlers struct{ svc *ramps.Service }

// twoFactorHandlers serve factors, challenges, two-factor settings and contacts.
type twoFactorHandlers struct{ svc *twofactors.Service }

// webhooksHandlers serve events, webhook endpoints and deliveries.
type webhooksHandlers struct{ svc *webhooks.Service }

// invoicesHandlers serve invoices and bills. The operator's arbiter signature goes through the
// operations capability, which audits it (actor names the operator token); limitAnonymous
// throttles the public invoice read per client IP.
type invoicesHandlers struct {
	svc            *invoices.Service
	arbiter        arbiterSignatures
	actor          operations.Actor
	limitAnonymous func(c *fiber.Ctx) error
}

// arbiterSignatures signs an invoice's settlement as the platform arbiter, audited
// (POST /v1/admin/invoices/{id}/arbiter-sign).
type arbiterSignatures interface {
	ArbiterSign(ctx context.Context, by operations.Actor, id string) (invoice.Invoice, error)
}

// checkoutHandlers serve hosted checkouts and their payment page. pageBaseURL is the configured
// public base of the page (empty: the request's own origin).
type checkoutHandlers struct {
	svc         *checkouts.Service
	pageBaseURL string
	log         *slog.Logger
}

// offrampHandlers serve off-ramp payments, provider webhooks and the operator's off-ramp
// actions. operator names the operator token in the durable record of a top-up; a review's
// approval goes through the operations capability, which audits it as actor.
type offrampHandlers struct {
	svc      *offramps.Service
	operator string
	reviews  reviewApprovals
	actor    operations.Actor
}

// reviewApprovals approves an off-ramp payment's review holds, audited
// (POST /v1/admin/offramp/payments/{id}/approve-review).
type reviewApprovals interface {
	ApproveReview(ctx context.Context, by operations.Actor, id string) (offramp.Payment, error)
}

// claimsHandlers serve pending claims and their public claim links, throttled per client IP.
type claimsHandlers struct {
	svc     *claims.Service
	limiter callerLimiter
}

// recipientsHandlers serve phone aliases, credentials (and the caller's identity, which shows
// them) and payout destinations.
type recipientsHandlers struct{ svc *recipients.Service }

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
		finance:      &financeHandlers{svc: d.Finance},
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
