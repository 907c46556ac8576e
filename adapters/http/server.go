// Package http is the inbound Fiber adapter: routes, middleware, DTOs, the error envelope and
// the OpenAPI document, which is built from the same endpoint table that registers the handlers.
package http

import (
	"context"
	"errors"
	"github.com/corridorhq/corridor/app/requestlogs"
	"log/slog"
	"net/netip"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corridorhq/corridor/app/agents"
	"github.com/corridorhq/corridor/app/cards"
	"github.com/corridorhq/corridor/app/checkouts"
	"github.com/corridorhq/corridor/app/claims"
	"github.com/corridorhq/corridor/app/faucet"
	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/app/invoices"
	"github.com/corridorhq/corridor/app/kernel"
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
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/timestamp"
	"github.com/corridorhq/corridor/ports"
)

// Config is the HTTP adapter's configuration.
type Config struct {
	BodyLimitBytes int
	RateLimit      RateLimit // PerSecond 0 disables the limit
	Capabilities   CapabilitiesConfig
	// Version is the build's version (GET /v1/capabilities build.version, the document's
	// info.version) and Commit its VCS commit, empty when unknown.
	Version string
	Commit  string
	Store   ports.Store // for /readyz
	// Readiness are the checks /readyz runs besides the database's (each configured chain,
	// the job workers).
	Readiness []ReadinessCheck
	// Metrics receives the HTTP layer's collectors; the separate metrics listener serves it
	// (METRICS_ADDR). Nil: the counters are kept and served nowhere.
	Metrics prometheus.Registerer
	// OperatorToken (OPERATOR_TOKEN, at least 32 characters) authenticates /v1/admin/...
	// (docs/decisions/operations.md). Empty: admin routes answer 503 SERVICE_UNAVAILABLE.
	OperatorToken string
	// ClaimLinkRateLimit throttles the public claim-link routes per client IP; zero is the
	// default of 30 requests a minute.
	ClaimLinkRateLimit RateLimit
	// SharedLimits keeps the general, claim-link and ephemeral-key limits where every replica
	// counts against the same figure (RATE_LIMIT_STORE=postgres). Nil: each process counts
	// its own, for a single replica.
	SharedLimits SharedLimits
	// SharedLimitTimeout bounds one shared limit decision before the request is judged by this
	// process's own count instead (0: 250 ms).
	SharedLimitTimeout time.Duration
	// Timeouts bound reading a request, writing a response and keeping an idle connection;
	// zero fields take DefaultTimeouts.
	Timeouts Timeouts
	// TrustedProxies are the networks whose X-Forwarded-For is believed (TRUSTED_PROXIES).
	// Empty: the socket's peer is the client, whatever the headers say.
	TrustedProxies []netip.Prefix
	// Exports bound the CSV exports running at once, per tenant and in all (zero fields:
	// DefaultExportLimits).
	Exports ExportLimits
	// CheckoutPageBase is the public base URL of the hosted payment page (payment_url is it
	// plus /pay/{id}); empty: the request's own scheme and host.
	CheckoutPageBase string
}

// Timeouts are the server's connection time-outs and the deadline of one request's work.
type Timeouts struct {
	Read, Write, Idle time.Duration
	// Request is the deadline of the context every handler runs with (REQUEST_TIMEOUT): the
	// database statements and chain calls of a request end by then, answering 503.
	Request time.Duration
}

// DefaultTimeouts: a request is read within 15 s, its work ends within 25 s and it is answered
// within 30 s; an idle keep-alive connection is closed after 90 s.
var DefaultTimeouts = Timeouts{Read: 15 * time.Second, Write: 30 * time.Second, Idle: 90 * time.Second, Request: 25 * time.Second}

// withDefaults fills unset time-outs from DefaultTimeouts.
func (t Timeouts) withDefaults() Timeouts {
	if t.Read <= 0 {
		t.Read = DefaultTimeouts.Read
	}
	if t.Write <= 0 {
		t.Write = DefaultTimeouts.Write
	}
	if t.Idle <= 0 {
		t.Idle = DefaultTimeouts.Idle
	}
	if t.Request <= 0 {
		t.Request = DefaultTimeouts.Request
	}
	return t
}

// authMode says how a route authenticates.
type authMode int

const (
	authNone     authMode = iota // public: no credentials read
	authOptional                 // credentials used when present
	authRequired                 // API key or session
	authOperator                 // the operator token of docs/decisions/operations.md (X-Operator-Token), never tenant keys
)

// Param documents a path or query parameter.
type Param struct {
	Name, In, Description string
	Integer               bool
}

// Endpoint is one entry of the endpoint table (an HTTP method and path; not a payout route):
// it registers the handler and documents it.
type Endpoint struct {
	Method, Path, Summary, Tag string
	Auth                       authMode
	Scopes                     []auth.Scope
	Params                     []Param
	Request                    any         // zero value of the body DTO, nil for none
	Responses                  map[int]any // status → zero value of the response DTO (a Content for non-JSON bodies)
	// SecretFields name top-level response fields shown once (a key's plaintext, an invite
	// token): an idempotent replay returns them as null.
	SecretFields []string
	// Public says why a route declares no scope (a public page, a token-authorized call, the
	// operator's token); every other route declares Scopes, and a test holds the table to it.
	Public string
	// Grants names what the route creates when it creates a principal or a credential
	// ("api_key", "agent_key", "agent", "member_invite", "member_accept"). Every such route
	// goes through the grant rule (auth.AuthorizeGrant), and the privilege-graph test walks them
	// from the document's x-corridor-grants.
	Grants string
	// SandboxOnly routes answer LIVE callers 403 SANDBOX_ONLY (docs/decisions/tenancy.md); every /v1/sandbox/ route is
	// one whatever this says. The document marks them x-corridor-sandbox-only.
	SandboxOnly bool
	Handler     fiber.Handler
	// Prepare, instead of Handler, is a POST whose use case needs something from outside the
	// database (a chain read, screening, a webhook host's address): it runs outside any
	// transaction and returns the step that applies inside the kernel runner's one unit of
	// work (kernel.Idempotency.Run), so no pooled connection waits on a vendor.
	Prepare prepare
	// AgentSuspendedConflict marks a provisioning route (an agent's wallet or card): a
	// suspended agent, or a suspended agent's key, is answered 409 AGENT_SUSPENDED there
	// instead of the 403 of every other route (docs/api.md Errors).
	AgentSuspendedConflict bool
	// SecondaryErrors answers every error of the route in the secondary error shape
	// ({error: {code, message, details}}, docs/api.md "Secondary surface").
	SecondaryErrors bool
	// SecondaryBody, on a path shared by both surfaces, selects the secondary surface (and its
	// error shape) for a request whose body it recognises as the secondary shape.
	SecondaryBody func(body []byte) bool
	// SecondaryByID, on a path shared by both surfaces, selects the secondary surface for a
	// request whose path names a checkout id (chk_…): markSecondary marks it.
	SecondaryByID bool
	// Committed runs after the route's unit of work has committed a first (not replayed)
	// success, outside any transaction, and may replace the body with the resource as it now
	// stands (an on-ramp waits there for its mint). The effect is committed, so it never turns
	// the answer into an error; a replay returns the answer the unit stored.
	Committed fiber.Handler
}

// Deps are what the server is built from: each capability's service, which its handler type
// holds (and no other), and what the middleware authenticates and replays with. The service
// registry is the composition root's (wiring); the adapter only receives.
type Deps struct {
	Tenancy    *tenancy.Service
	Finance    *finance.Service
	Wallets    *wallets.Service
	Faucet     *faucet.Service // sandbox drips, served on the wallets routes
	SafePay    *safepayments.Service
	Policy     *policies.Service
	Offramp    *offramps.Service   // off-ramp payments
	Claims     *claims.Service     // pending claims and claim links
	Recipients *recipients.Service // phone aliases, credentials, payout destinations
	Agents     *agents.Service
	Treasury   *treasuries.Service
	Cards      *cards.Service
	Ramps      *ramps.Service
	TwoFactor  *twofactors.Service
	Invoices   *invoices.Service
	Webhooks   *webhooks.Service
	Checkout   *checkouts.Service
	// Operations runs the operator's actions of /v1/admin (approve review, arbiter sign) and
	// writes each to the operator audit trail.
	Operations *operations.Service
	// Idempotency is the Idempotency-Key store that wraps every POST.
	Idempotency *kernel.Idempotency
	// RequestLogs reads the tenant's request log; Recorder writes it, off the request path.
	RequestLogs *requestlogs.Service
	Recorder    RequestRecorder
}

// missing names the dependencies that are nil, so a wiring mistake fails at start-up.
func (d Deps) missing() []string {
	var out []string
	for _, c := range []struct {
		name   string
		absent bool
	}{
		{"Tenancy", d.Tenancy == nil}, {"Finance", d.Finance == nil}, {"Wallets", d.Wallets == nil}, {"Faucet", d.Faucet == nil},
		{"SafePay", d.SafePay == nil}, {"Policy", d.Policy == nil}, {"Offramp", d.Offramp == nil},
		{"Claims", d.Claims == nil}, {"Recipients", d.Recipients == nil},
		{"Agents", d.Agents == nil}, {"Treasury", d.Treasury == nil}, {"Cards", d.Cards == nil}, {"Ramps", d.Ramps == nil},
		{"TwoFactor", d.TwoFactor == nil}, {"Invoices", d.Invoices == nil}, {"Webhooks", d.Webhooks == nil},
		{"Checkout", d.Checkout == nil}, {"Operations", d.Operations == nil}, {"Idempotency", d.Idempotency == nil},
		{"RequestLogs", d.RequestLogs == nil}, {"Recorder", d.Recorder == nil},
	} {
		if c.absent {
			out = append(out, c.name)
		}
	}
	return out
}

// authenticator turns an API key or a session token into the caller's principal (the tenancy
// capability).
type authenticator interface {
	AuthenticateKey(ctx context.Context, raw string) (auth.Principal, error)
	AuthenticateSession(ctx context.Context, token string, env core.Environment) (auth.Principal, error)
}

// MaxHeaderBytes bounds a request's line and headers together (fasthttp's read buffer): more
// answers 431 HEADERS_TOO_LARGE (docs/api.md, Limits). 8 KiB, as common web servers allow.
const MaxHeaderBytes = 8 << 10

// Server is the Fiber application with its endpoint table.
type Server struct {
	cfg Config
	// authn authenticates keys and sessions; idempotency stores and replays POST outcomes.
	authn       authenticator
	idempotency *kernel.Idempotency
	log         *slog.Logger
	metrics     *metrics
	// limiter is the general per-credential limit (nil: off); claimLimiter and
	// ephemeralKeyLimiter are handed to the claims and cards handlers (per client IP).
	limiter             callerLimiter
	claimLimiter        callerLimiter
	ephemeralKeyLimiter callerLimiter
	fiber               *fiber.App
	endpoints           []Endpoint
	// secondaryRoutes are the method and path segments of the SecondaryErrors routes, so a
	// refusal before the route's own chain (a bad query string, a deadline) takes their shape.
	secondaryRoutes []secondaryRoute
	// recorder takes each finished request of a tenant's credential for the request log.
	recorder RequestRecorder
	// exports counts the CSV exports in flight, the API's and the console's (AcquireExport).
	exports *exportSlots
}

// New builds the server, each capability's handler type from deps, and registers every route.
func New(cfg Config, deps Deps, log *slog.Logger) (*Server, error) {
	if missing := deps.missing(); len(missing) > 0 {
		return nil, errors.New("http: missing services: " + strings.Join(missing, ", "))
	}
	if log == nil || cfg.Store == nil {
		return nil, errors.New("http: logger and store are required")
	}
	if cfg.OperatorToken != "" && len(cfg.OperatorToken) < MinOperatorTokenLength {
		return nil, errors.New("http: the operator token must be at least 32 characters")
	}
	if cfg.BodyLimitBytes <= 0 {
		cfg.BodyLimitBytes = 1 << 20
	}
	if cfg.ClaimLinkRateLimit.PerSecond <= 0 || cfg.ClaimLinkRateLimit.Burst <= 0 {
		cfg.ClaimLinkRateLimit = claimLimit
	}
	m, err := newMetrics(cfg.Metrics)
	if err != nil {
		return nil, err
	}
	if cfg.RateLimit.PerSecond > 0 && cfg.RateLimit.Burst <= 0 {
		cfg.RateLimit.Burst = max(int(cfg.RateLimit.PerSecond), 1)
	}
	s := &Server{cfg: cfg, authn: deps.Tenancy, idempotency: deps.Idempotency, log: log, metrics: m, recorder: deps.Recorder,
		exports: newExportSlots(cfg.Exports)}
	s.limiter, s.claimLimiter, s.ephemeralKeyLimiter = newLimiters(cfg, log)
	timeouts := cfg.Timeouts.withDefaults()
	s.fiber = fiber.New(fiber.Config{
		AppName: "corridor", Immutable: true, BodyLimit: cfg.BodyLimitBytes, DisableStartupMessage: true,
		JSONEncoder: encodeJSON, ReadBufferSize: MaxHeaderBytes,
		ReadTimeout: timeouts.Read, WriteTimeout: timeouts.Write, IdleTimeout: timeouts.Idle,
		ErrorHandler: func(c *fiber.Ctx, err error) error { return s.renderError(c, err) },
	})
	s.fiber.Use(resolveClientAddress(cfg.TrustedProxies), withRequestID, s.markSecondary, s.traceRequest, s.observe, s.recoverPanics, withDeadline(timeouts.Request), checkQuery)
	s.endpoints = s.endpointTable(s.newHandlers(deps))
	for _, r := range s.endpoints {
		s.register(r)
		if r.SecondaryErrors {
			s.secondaryRoutes = append(s.secondaryRoutes, secondaryRoute{method: r.Method, segments: strings.Split(r.Path, "/")})
		}
	}
	return s, nil
}

func (s *Server) register(r Endpoint) {
	route := r.Path
	conflict := r.AgentSuspendedConflict
	secondary, secondaryBody := r.SecondaryErrors, r.SecondaryBody
	lagging := laggingReadRoutes[r.Method+" "+r.Path]
	chain := []fiber.Handler{func(c *fiber.Ctx) error {
		c.Locals(localEndpoint, route)
		if lagging {
			c.SetUserContext(ports.WithLaggingReads(c.UserContext()))
		}
		if conflict {
			c.Locals(localAgentConflict, true)
		}
		if secondary || (secondaryBody != nil && secondaryBody(requestBody(c))) {
			c.Locals(localSecondary, true)
		}
		return c.Next()
	}}
	switch r.Auth {
	case authRequired:
		chain = append(chain, s.authenticate(true), s.rateLimit)
	case authOptional:
		chain = append(chain, s.authenticate(false), s.rateLimit)
	case authOperator:
		chain = append(chain, s.authenticateOperator)
	}
	if len(r.Scopes) > 0 {
		chain = append(chain, requireScopes(r.Scopes))
	}
	if refuse := refuseUnknownQuery(r); refuse != nil {
		chain = append(chain, refuse)
	}
	handler := r.Handler
	// Every POST but an operator's runs in the use-case shape: prepared outside, applied in the
	// runner's one unit of work. Operator actions are idempotent by themselves; they have no
	// tenant to scope a key to, and their use cases open their own units.
	if r.Method == fiber.MethodPost && r.Auth != authOperator {
		first := r.Prepare
		if first == nil {
			first = applied(r.Handler)
		}
		handler = s.runUnit(r.SecretFields, first)
	}
	if r.Committed != nil {
		handler = afterCommit(handler, r.Committed)
	}
	chain = append(chain, handler)
	s.fiber.Add(r.Method, toFiberPath(r.Path), chain...)
}

// afterCommit runs then once handler (the runner's unit of work) has answered a first success. The
// unit may have bound a transaction to the request's context; then gets the context as it was
// before.
func afterCommit(handler, then fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		outer := c.UserContext()
		if err := handler(c); err != nil {
			return err
		}
		c.SetUserContext(outer)
		if c.Response().StatusCode() >= fiber.StatusMultipleChoices || c.GetRespHeader(headerReplayed) != "" {
			return nil
		}
		return then(c)
	}
}

// Fiber exposes the Fiber app (tests drive it with app.Test).
func (s *Server) Fiber() *fiber.App { return s.fiber }

// Endpoints returns the endpoint table, for the OpenAPI parity test.
func (s *Server) Endpoints() []Endpoint { return s.endpoints }

// Shutdown stops accepting connections and waits for in-flight requests up to ctx's deadline.
func (s *Server) Shutdown(ctx context.Context) error { return s.fiber.ShutdownWithContext(ctx) }

// requireScopes enforces a route's declared scopes before its handler runs (docs/decisions/tenancy.md): the caller
// must act for a tenant and hold every scope. The use case checks again, as a second line, so
// a route that forgets its declaration is still closed.
func requireScopes(scopes []auth.Scope) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, ok := principalOf(c)
		if !ok {
			return core.E(core.CodeUnauthenticated, "missing credentials: send X-Service-Api-Key or Authorization: Bearer <session token>")
		}
		if err := p.RequireTenant(); err != nil {
			return err
		}
		if err := p.Require(scopes...); err != nil {
			return err
		}
		return c.Next()
	}
}

// principal returns the authenticated caller; routes with authRequired always have one.
func principal(c *fiber.Ctx) auth.Principal {
	p, _ := principalOf(c)
	return p
}

// toFiberPath turns OpenAPI-style "{id}" into Fiber's ":id".
func toFiberPath(p string) string {
	out := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '{':
			out = append(out, ':')
		case '}':
		default:
			out = append(out, p[i])
		}
	}
	return string(out)
}

// encodeJSON is every JSON body's encoder: encoding/json's rules, with each time.Time written
// in the API's one form by its type (core/timestamp: UTC, six-digit fraction), so string order
// is time order for a partner.
func encodeJSON(v any) ([]byte, error) { return timestamp.Marshal(v) }
