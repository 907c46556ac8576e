package console

import (
	"context"
	"crypto/subtle"
	"html"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// SignInFlow is the identity provider's sign-in for the console (the authorization code flow
// with PKCE): where to send the browser, and the exchange of the code it brings back for the
// tokens that may serve as the session, once the ID token and its nonce are checked.
type SignInFlow interface {
	AuthURL(ctx context.Context, state, nonce, verifier, redirectURI string) (string, error)
	Exchange(ctx context.Context, code, nonce, verifier, redirectURI string) ([]string, error)
}

const (
	// oidcCookie carries one sign-in's state, nonce, PKCE verifier and environment from the redirect
	// to the provider until the provider's redirect back, sealed. It is SameSite=Lax, the one
	// Lax cookie here: the provider's redirect is a cross-site navigation, on which Strict
	// cookies are not sent.
	oidcCookie = "corridor_console_oidc"
	// oidcLifetime bounds the time a person has to sign in at the provider.
	oidcLifetime = 10 * time.Minute
	oidcCallback = "/signin/oidc/callback"
)

func (k *Console) signinData(env string) signinData {
	d := signinData{Environment: env, LocalOwner: k.localOwner != nil}
	if k.signIn != nil {
		d.Provider = k.signInName
	}
	return d
}

// oidcRoutes mount the sign-in with the provider when one is configured.
func (k *Console) oidcRoutes(g fiber.Router) {
	if k.signIn == nil {
		return
	}
	g.Get("/signin/oidc", k.oidcStart)
	g.Get(oidcCallback, k.oidcFinish)
}

// redirectURI is where the provider sends the browser back: the configured URL, else this
// request's own origin.
func (k *Console) redirectURI(c *fiber.Ctx) string {
	if k.signInRedirect != "" {
		return k.signInRedirect
	}
	return c.BaseURL() + Prefix + oidcCallback
}

// oidcStart sends the browser to the provider with a fresh state, nonce and PKCE verifier,
// kept sealed in the sign-in's own cookie.
func (k *Console) oidcStart(c *fiber.Ctx) error {
	env, ok := parseEnv(c.Query("environment"))
	if !ok {
		return k.renderError(c, fiber.StatusUnprocessableEntity, "environment must be test or live")
	}
	state, nonce, verifier := newNonce(), newNonce(), newNonce()+newNonce()
	to, err := k.signIn.AuthURL(c.UserContext(), state, nonce, verifier, k.redirectURI(c))
	if err != nil {
		k.log.Error("console: the identity provider's sign-in is unavailable", "error", err.Error())
		return k.renderError(c, fiber.StatusServiceUnavailable, "The identity provider cannot be reached right now: try again shortly, or paste a session token.")
	}
	st := cookieState{Token: verifier, Nonce: state, IDNonce: nonce, Env: env.KeyLabel(), At: time.Now().Unix()}
	writeCookie(c, oidcCookie, k.seal.seal(st), oidcLifetime, fiber.CookieSameSiteLaxMode)
	return c.Redirect(to, fiber.StatusSeeOther)
}

// oidcFinish takes the provider's redirect back: the state must be the one this browser was
// sent with, the code is exchanged with the verifier, the ID token must carry the nonce, and the first returned token the API's
// verifier accepts becomes the session, as a pasted token would.
func (k *Console) oidcFinish(c *fiber.Ctx) error {
	st, err := k.seal.open(c.Cookies(oidcCookie))
	clearCookie(c, oidcCookie)
	state := c.Query("state")
	if err != nil || state == "" || subtle.ConstantTimeCompare([]byte(state), []byte(st.Nonce)) != 1 ||
		time.Since(time.Unix(st.At, 0)) > oidcLifetime {
		return k.renderError(c, fiber.StatusForbidden, "This sign-in did not start here or took too long (state missing, wrong or expired). Start again from the sign-in page.")
	}
	if e := c.Query("error"); e != "" {
		return k.renderError(c, fiber.StatusUnauthorized, "The identity provider did not sign you in: "+e+" "+c.Query("error_description"))
	}
	env, ok := parseEnv(st.Env)
	code := c.Query("code")
	if !ok || code == "" {
		return k.renderError(c, fiber.StatusUnprocessableEntity, "The identity provider's answer has no code: start again from the sign-in page.")
	}
	tokens, err := k.signIn.Exchange(c.UserContext(), code, st.IDNonce, st.Token, k.redirectURI(c))
	if err != nil {
		k.log.Warn("console: the identity provider refused the code", "error", err.Error())
		return k.renderError(c, fiber.StatusUnauthorized, "The identity provider did not confirm this sign-in: start again from the sign-in page.")
	}
	for _, token := range tokens {
		p, err := k.svc.Tenancy.AuthenticateSession(c.UserContext(), token, env)
		if err != nil {
			continue
		}
		setCookie(c, sessionCookie, k.seal.seal(cookieState{Token: token, Env: env.KeyLabel(), Nonce: newNonce()}), 0)
		k.log.Info("console: signed in with the identity provider", "user", p.UserID, "tenantId", p.TenantID, "environment", env)
		return continueTo(c, Prefix+"/")
	}
	return k.renderError(c, fiber.StatusUnauthorized, "The identity provider signed you in, but none of its tokens is one this service accepts (check OIDC_AUDIENCE and OIDC_CLIENT_ID).")
}

// continueTo answers a page that moves on to path by itself. A redirect would carry on the
// provider's cross-site navigation, on which the new SameSite=Strict session cookie is not
// sent; a navigation from this page is same-site.
func continueTo(c *fiber.Ctx, path string) error {
	u := html.EscapeString((&url.URL{Path: path}).String())
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.Status(fiber.StatusOK).SendString(`<!doctype html><html lang="en"><head><meta charset="utf-8">` +
		`<meta http-equiv="refresh" content="0;url=` + u + `"><title>Signed in</title></head>` +
		`<body><p id="signed-in">Signed in. <a href="` + u + `">Continue to the console</a>.</p></body></html>`)
}

// providerName is the provider's host, as the sign-in page names it.
func providerName(issuer string) string {
	if u, err := url.Parse(issuer); err == nil && u.Host != "" {
		return u.Host
	}
	return strings.TrimSpace(issuer)
}
