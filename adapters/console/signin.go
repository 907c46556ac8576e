package console

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	httpapi "github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/core"
)

// preCookieLifetime bounds how long a sign-in form stays usable.
const preCookieLifetime = time.Hour

func statusFor(code core.Code) int { return httpapi.StatusFor(code) }

type signinData struct {
	Environment string
	// Provider names the OIDC provider the console signs in at; empty without one.
	Provider string
	// LocalOwner offers the one-click TEST sign-in of a local run.
	LocalOwner bool
}

// signinPage explains how to get a session token and takes it. The form's CSRF token is tied
// to a short-lived cookie of its own, so a sign-in cannot be forged from another site either.
func (k *Console) signinPage(c *fiber.Ctx) error {
	nonce := ""
	if st, err := k.seal.open(c.Cookies(preCookie)); err == nil {
		nonce = st.Nonce
	} else {
		nonce = newNonce()
		setCookie(c, preCookie, k.seal.seal(cookieState{Nonce: nonce}), preCookieLifetime)
	}
	c.Locals(localNonce, nonce)
	return k.render(c, fiber.StatusOK, "signin", "Sign in", "", k.signinData("test"))
}

func (k *Console) signin(c *fiber.Ctx) error {
	pre, err := k.seal.open(c.Cookies(preCookie))
	if err != nil || !k.seal.csrfValid(pre.Nonce, c.FormValue(csrfField)) {
		return k.renderError(c, fiber.StatusForbidden, "This sign-in form has expired or did not come from the console (CSRF token missing or wrong). Reload the sign-in page.")
	}
	c.Locals(localNonce, pre.Nonce)
	token := strings.TrimSpace(c.FormValue("token"))
	token = strings.TrimPrefix(token, "Bearer ")
	env, ok := parseEnv(c.FormValue("environment"))
	if token == "" || !ok {
		c.Locals("consoleError", "Paste a session token and choose TEST or LIVE.")
		return k.render(c, fiber.StatusUnprocessableEntity, "signin", "Sign in", "", k.signinData("test"))
	}
	p, err := k.svc.Tenancy.AuthenticateSession(c.UserContext(), token, env)
	if err != nil {
		c.Locals("consoleError", "The identity provider refused this session token: it may have expired. Mint a new one.")
		return k.render(c, fiber.StatusUnauthorized, "signin", "Sign in", "", k.signinData(env.KeyLabel()))
	}
	clearCookie(c, preCookie)
	setCookie(c, sessionCookie, k.seal.seal(cookieState{Token: token, Env: env.KeyLabel(), Nonce: newNonce()}), 0)
	k.log.Info("console: signed in", "user", p.UserID, "tenantId", p.TenantID, "environment", env)
	return c.Redirect(Prefix+"/", fiber.StatusSeeOther)
}

// signinLocalOwner signs the local owner in to TEST with a session minted here (a local run
// only: the route exists only when Config.LocalOwner is set). The form is CSRF-checked like the
// token form, so another site cannot sign a visitor in.
func (k *Console) signinLocalOwner(c *fiber.Ctx) error {
	pre, err := k.seal.open(c.Cookies(preCookie))
	if err != nil || !k.seal.csrfValid(pre.Nonce, c.FormValue(csrfField)) {
		return k.renderError(c, fiber.StatusForbidden, "This sign-in form has expired or did not come from the console (CSRF token missing or wrong). Reload the sign-in page.")
	}
	token, err := k.localOwner()
	if err != nil {
		k.log.Error("console: local owner sign-in", "error", err.Error())
		return k.renderError(c, fiber.StatusInternalServerError, "Could not mint the local owner's session.")
	}
	p, err := k.svc.Tenancy.AuthenticateSession(c.UserContext(), token, core.EnvTest)
	if err != nil {
		return k.fail(c, err)
	}
	clearCookie(c, preCookie)
	setCookie(c, sessionCookie, k.seal.seal(cookieState{Token: token, Env: core.EnvTest.KeyLabel(), Nonce: newNonce()}), 0)
	k.log.Info("console: local owner signed in", "user", p.UserID, "tenantId", p.TenantID)
	return c.Redirect(Prefix+"/", fiber.StatusSeeOther)
}

func (k *Console) signout(c *fiber.Ctx) error {
	clearCookie(c, sessionCookie)
	return c.Redirect(Prefix+"/signin", fiber.StatusSeeOther)
}

// switchEnvironment re-seals the cookie for TEST or LIVE with a fresh nonce (and so a fresh
// CSRF token); the next request derives the role's scopes for that environment.
func (k *Console) switchEnvironment(c *fiber.Ctx) error {
	st, err := k.seal.open(c.Cookies(sessionCookie))
	if err != nil {
		return k.toSignin(c)
	}
	env, ok := parseEnv(c.FormValue("environment"))
	if !ok {
		return k.renderError(c, fiber.StatusUnprocessableEntity, "environment must be test or live")
	}
	st.Env, st.Nonce = env.KeyLabel(), newNonce()
	setCookie(c, sessionCookie, k.seal.seal(st), 0)
	return c.Redirect(Prefix+"/", fiber.StatusSeeOther)
}
