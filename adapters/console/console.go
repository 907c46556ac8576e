// Package console is the tenant console's inbound adapter: server-rendered pages under
// /console/ on the API's Fiber app. It calls the same app services as the API, as the
// signed-in member with the member's role (the principal the API would build from the same
// session token), and renders web/console's templates. It has no store and no SQL of its own.
package console

import (
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/filesystem"

	"github.com/corridorhq/corridor/app/agents"
	"github.com/corridorhq/corridor/app/cards"
	"github.com/corridorhq/corridor/app/checkouts"
	"github.com/corridorhq/corridor/app/claims"
	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/app/offramps"
	"github.com/corridorhq/corridor/app/operations"
	"github.com/corridorhq/corridor/app/requestlogs"
	"github.com/corridorhq/corridor/app/safepayments"
	"github.com/corridorhq/corridor/app/tenancy"
	"github.com/corridorhq/corridor/app/wallets"
	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	webconsole "github.com/corridorhq/corridor/web/console"
)

// Prefix is where the console is mounted.
const Prefix = "/console"

// ContentSecurityPolicy is sent with every console response: scripts, styles and images from
// the console's own origin only, nothing inline, no framing, forms posting only here.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Services are the app services the pages call: the same instances the API's routes hold.
type Services struct {
	Tenancy  *tenancy.Service
	Finance  *finance.Service
	Wallets  *wallets.Service
	SafePay  *safepayments.Service
	Offramp  *offramps.Service
	Claims   *claims.Service
	Agents   *agents.Service
	Cards    *cards.Service
	Webhooks *webhooks.Service
	// Operations lists what waits for an operator across tenants (the operator console).
	Operations *operations.Service
	Checkout   *checkouts.Service
	// Idempotency runs each state-changing form at most once per render, as it runs the API's
	// POSTs once per Idempotency-Key.
	Idempotency *kernel.Idempotency
	// RequestLogs reads the tenant's request log (the Requests page).
	RequestLogs *requestlogs.Service
}

// Config configures the console.
type Config struct {
	// CookieKey seals the session cookie and derives CSRF tokens (at least 32 bytes). Every
	// replica must hold the same key; wiring derives it from the cipher's lookup key.
	CookieKey []byte
	// OperatorToken (OPERATOR_TOKEN) signs an operator in to /console/operator; empty turns
	// the operator console off.
	OperatorToken string
	// SignIn is the OIDC provider's sign-in (IDENTITY_PROVIDER=oidc with OIDC_CLIENT_ID); nil:
	// members paste a session token. SignInIssuer names the provider on the page and
	// SignInRedirectURL (OIDC_REDIRECT_URL) is the callback the provider knows, empty for
	// this request's origin + /console/signin/oidc/callback.
	SignIn            SignInFlow
	SignInIssuer      string
	SignInRedirectURL string
	// SignInsPerMinute bounds the sign-in attempts of one client address per minute on each
	// sign-in form (CONSOLE_SIGNINS_PER_MINUTE); 0 is DefaultSignInsPerMinute.
	SignInsPerMinute int
	// SharedLimits counts the sign-in budget in the database every replica shares; nil counts
	// it in the process (tests of the console alone).
	SharedLimits SharedLimits
	// LocalOwner mints a TEST session for the local owner (`make run` with the sandbox identity
	// provider): the sign-in page then offers one click instead of a token pasted from a
	// terminal. Nil everywhere else, a LIVE deployment above all: there the route does not exist.
	LocalOwner func() (token string, err error)
	// Exports takes a slot of the service's bound on CSV exports in flight (the API's
	// EXPORTS_PER_TENANT, EXPORTS_CONCURRENT) for a download, or refuses it (429 RATE_LIMITED);
	// nil bounds nothing (tests of the console alone).
	Exports func(c *fiber.Ctx, tenant string) (release func(), err error)
}

// Console is the mounted console.
type Console struct {
	svc            Services
	operatorToken  string
	signIn         SignInFlow
	signInName     string
	signInRedirect string
	localOwner     func() (string, error)
	exports        func(*fiber.Ctx, string) (func(), error)
	seal           sealer
	throttle       *signInThrottle
	pages          map[string]*template.Template
	log            *slog.Logger
}

// Mount registers the console's routes on app.
func Mount(app *fiber.App, cfg Config, svc Services, log *slog.Logger) (*Console, error) {
	if len(cfg.CookieKey) < 32 {
		return nil, errors.New("console: the cookie key must be at least 32 bytes")
	}
	if svc.Tenancy == nil || svc.Finance == nil || svc.Wallets == nil || svc.SafePay == nil || svc.Offramp == nil || svc.Claims == nil ||
		svc.Agents == nil || svc.Cards == nil || svc.Webhooks == nil || svc.Checkout == nil || svc.Idempotency == nil || svc.RequestLogs == nil || log == nil {
		return nil, errors.New("console: every service and the logger are required")
	}
	k := &Console{svc: svc, operatorToken: cfg.OperatorToken, seal: sealer{key: cfg.CookieKey}, log: log, throttle: newSignInThrottle(cfg.SignInsPerMinute, cfg.SharedLimits, func(err error) {
		log.Warn("console: the shared sign-in budget could not be read; counting in this process", "error", err.Error())
	}),
		signIn: cfg.SignIn, signInName: providerName(cfg.SignInIssuer), signInRedirect: cfg.SignInRedirectURL, localOwner: cfg.LocalOwner, exports: cfg.Exports}
	var err error
	if k.pages, err = webconsole.Pages(funcs); err != nil {
		return nil, err
	}
	g := app.Group(Prefix, securityHeaders)
	g.Use("/static", filesystem.New(filesystem.Config{Root: http.FS(webconsole.Static()), MaxAge: 3600}))
	g.Get("/signin", k.signinPage)
	g.Post("/signin", k.throttled("member"), k.signin)
	if k.localOwner != nil {
		g.Post("/signin/local", k.throttled("member"), k.signinLocalOwner)
	}
	k.oidcRoutes(g)
	operatorPages{k}.operatorRoutes(g)
	m := g.Group("", k.member, k.csrf)
	m.Post("/signout", k.signout)
	m.Post("/environment", k.switchEnvironment)
	m.Get("/", financePages{k}.home)
	developerPages{k}.developerRoutes(m)
	memberPages{k}.memberRoutes(m)
	requestPages{k}.requestRoutes(m)
	checkoutPages{k}.checkoutRoutes(m)
	moneyPages{k}.moneyRoutes(m)
	k.actionRoutes(m)
	k.objectRoutes(m)
	m.Get("/search", k.search)
	financePages{k}.financeRoutes(m)
	m.All("/*", func(c *fiber.Ctx) error { return k.renderError(c, fiber.StatusNotFound, "No console page here.") })
	return k, nil
}

// securityHeaders: the strict policy, no framing, no caching of pages that show balances.
func securityHeaders(c *fiber.Ctx) error {
	c.Set("Content-Security-Policy", ContentSecurityPolicy)
	c.Set("X-Frame-Options", "DENY")
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("Referrer-Policy", "same-origin")
	if !strings.HasPrefix(c.Path(), Prefix+"/static/") {
		c.Set(fiber.HeaderCacheControl, "no-store")
	}
	return c.Next()
}

const (
	localMember = "consoleMember"
	localNonce  = "consoleNonce"
)

// member resolves the session cookie to the member's principal, through the same use case as
// the API's Authorization: Bearer; no valid session sends the browser to the sign-in page.
func (k *Console) member(c *fiber.Ctx) error {
	st, err := k.seal.open(c.Cookies(sessionCookie))
	if err != nil || st.Token == "" {
		return k.toSignin(c)
	}
	env, ok := parseEnv(st.Env)
	if !ok {
		return k.toSignin(c)
	}
	p, err := k.svc.Tenancy.AuthenticateSession(c.UserContext(), st.Token, env)
	if err != nil {
		if errors.Is(err, core.ErrUnauthenticated) {
			clearCookie(c, sessionCookie)
			return k.toSignin(c)
		}
		return k.fail(c, err)
	}
	c.Locals(localMember, p)
	c.Locals(localNonce, st.Nonce)
	if p.TenantID == "" && c.Method() == fiber.MethodGet {
		return k.render(c, fiber.StatusForbidden, "notenant", "No tenant", "", nil)
	}
	return c.Next()
}

func (k *Console) toSignin(c *fiber.Ctx) error {
	if c.Method() != fiber.MethodGet {
		return k.renderError(c, fiber.StatusUnauthorized, "Your session has ended: sign in again.")
	}
	return c.Redirect(Prefix+"/signin", fiber.StatusSeeOther)
}

// csrf refuses any POST whose form token is not the one tied to this session's cookie.
func (k *Console) csrf(c *fiber.Ctx) error {
	if c.Method() != fiber.MethodPost {
		return c.Next()
	}
	nonce, _ := c.Locals(localNonce).(string)
	if !k.seal.csrfValid(nonce, c.FormValue(csrfField)) {
		return k.renderError(c, fiber.StatusForbidden, "This form has expired or did not come from the console (CSRF token missing or wrong). Reload the page and try again.")
	}
	return c.Next()
}

func principal(c *fiber.Ctx) auth.Principal {
	p, _ := c.Locals(localMember).(auth.Principal)
	return p
}

// view is what every page template receives.
type view struct {
	Title   string
	Section string
	Member  *auth.Principal
	CSRF    string
	Notice  string
	Error   string
	Data    any
	once    func() string
}

// Once is a fresh idempotency token for one state-changing form: each call draws another, so
// every form on every render has its own.
func (v view) Once() string {
	if v.once == nil {
		return ""
	}
	return v.once()
}

func (k *Console) render(c *fiber.Ctx, status int, page, title, notice string, data any) error {
	t, ok := k.pages[page]
	if !ok {
		return errors.New("console: no page " + page)
	}
	v := view{Title: title, Section: page, Notice: notice, Data: data}
	if p, ok := c.Locals(localMember).(auth.Principal); ok {
		v.Member = &p
	}
	if nonce, ok := c.Locals(localNonce).(string); ok {
		v.CSRF = k.seal.csrf(nonce)
		v.once = func() string { return k.seal.once(nonce) }
	}
	if e, ok := c.Locals("consoleError").(string); ok {
		v.Error = e
	}
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, "layout.html", v); err != nil {
		k.log.Error("console: render", "page", page, "error", err.Error())
		return c.Status(fiber.StatusInternalServerError).SendString("internal error")
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.Status(status).SendString(b.String())
}

// exportSlot takes a slot of the service's bound on CSV exports for the signed-in member's
// tenant: a download reads and renders up to 10,000 rows in memory, as the API's exports do,
// and counts against the same limits.
func (k *Console) exportSlot(c *fiber.Ctx) (release func(), err error) {
	if k.exports == nil {
		return func() {}, nil
	}
	return k.exports(c, principal(c).TenantID)
}

// renderError answers an error page with status.
func (k *Console) renderError(c *fiber.Ctx, status int, message string) error {
	c.Locals("consoleError", message)
	return k.render(c, status, "error", "Error", "", nil)
}

// fail renders a use case's refusal with the API's status for its code: a role without the
// scope is 403 with the scope named, another tenant's object 404.
func (k *Console) fail(c *fiber.Ctx, err error) error {
	var de *core.Error
	if !errors.As(err, &de) || de.Code == core.CodeInternal {
		k.log.Error("console: unhandled error", "path", c.Path(), "error", err.Error())
		return k.renderError(c, fiber.StatusInternalServerError, "Something went wrong on our side.")
	}
	msg := de.Message
	if req, ok := de.Details["required"].(string); ok {
		msg = "Your role does not allow this: it needs the " + req + " scope. (" + string(de.Code) + ")"
	} else {
		msg = msg + fieldReasons(de) + " (" + string(de.Code) + ")"
	}
	return k.renderError(c, statusFor(de.Code), msg)
}

// fieldReasons is why each field of a VALIDATION_FAILED error is invalid, as the API's
// details.fields says it ("; amount: must be greater than 0"), sorted by field: the message
// alone ("invalid request: amount") names the field but not what is wrong with it.
func fieldReasons(de *core.Error) string {
	fields, ok := de.Details["fields"].(map[string]any)
	if !ok || len(fields) == 0 {
		return ""
	}
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		if reason, _ := fields[name].(string); reason != "" {
			b.WriteString("; " + name + ": " + reason)
		}
	}
	return b.String()
}
