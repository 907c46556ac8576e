package console

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	operationsapp "corridor/app/operations"
)

const (
	// operatorCookie holds the operator token, sealed, and the nonce of the page's CSRF token.
	operatorCookie = "corridor_operator"
	// operatorLifetime bounds an operator's console session; the server checks it from the
	// cookie's own sign-in time, whatever the browser keeps.
	operatorLifetime = 8 * time.Hour
	operatorPrefix   = Prefix + "/operator"
)

// operatorConsole is the operator's side of the console (/console/operator): its own pages
// and sign-in over the tenant console's rendering, session sealing and services.
type operatorConsole struct{ k *Console }

// operatorRoutes mount the operator console: a sign-in with the operator token (D11) and the
// overview of what waits for a person across tenants. They sit outside the member group: no
// tenant session reaches them, and the operator token reaches nothing else.
func (o operatorConsole) operatorRoutes(g fiber.Router) {
	g.Get("/operator/signin", o.operatorSigninPage)
	g.Post("/operator/signin", o.operatorSignin)
	g.Get("/operator", o.operator, o.operatorOverview)
	g.Post("/operator/signout", o.operator, o.operatorSignout)
	g.Post("/operator/payments/:id/approve-review", o.operator, o.operatorApproveReview)
	g.Post("/operator/jobs/:id/retry", o.operator, o.operatorRetryJob)
}

// operatorConfigured answers 503 while OPERATOR_TOKEN is unset, as the admin API does.
func (o operatorConsole) operatorConfigured(c *fiber.Ctx) bool {
	return o.k.operatorToken != "" && o.k.svc.Operations != nil
}

func (o operatorConsole) operatorSigninPage(c *fiber.Ctx) error {
	if !o.operatorConfigured(c) {
		return o.k.renderError(c, fiber.StatusServiceUnavailable, "The operator console is off: OPERATOR_TOKEN is not configured.")
	}
	nonce := newNonce()
	if st, err := o.k.seal.open(c.Cookies(preCookie)); err == nil {
		nonce = st.Nonce
	} else {
		setCookie(c, preCookie, o.k.seal.seal(cookieState{Nonce: nonce}), preCookieLifetime)
	}
	c.Locals(localNonce, nonce)
	return o.k.render(c, fiber.StatusOK, "operatorsignin", "Operator sign in", "", nil)
}

// operatorSignin checks the pasted token against OPERATOR_TOKEN in constant time and keeps it,
// sealed, in the operator's cookie (checked again on every page, so rotating the token signs
// every operator out).
func (o operatorConsole) operatorSignin(c *fiber.Ctx) error {
	if !o.operatorConfigured(c) {
		return o.k.renderError(c, fiber.StatusServiceUnavailable, "The operator console is off: OPERATOR_TOKEN is not configured.")
	}
	pre, err := o.k.seal.open(c.Cookies(preCookie))
	if err != nil || !o.k.seal.csrfValid(pre.Nonce, c.FormValue(csrfField)) {
		return o.k.renderError(c, fiber.StatusForbidden, "This sign-in form has expired or did not come from the console (CSRF token missing or wrong). Reload the sign-in page.")
	}
	c.Locals(localNonce, pre.Nonce)
	token := strings.TrimSpace(c.FormValue("token"))
	if !o.isOperatorToken(token) {
		o.k.log.Warn("console: operator sign-in refused", "ip", c.IP())
		c.Locals("consoleError", "That is not the operator token.")
		return o.k.render(c, fiber.StatusUnauthorized, "operatorsignin", "Operator sign in", "", nil)
	}
	clearCookie(c, preCookie)
	st := cookieState{Token: token, Nonce: newNonce(), At: time.Now().Unix()}
	setCookie(c, operatorCookie, o.k.seal.seal(st), operatorLifetime)
	o.k.log.Info("console: operator signed in", "ip", c.IP())
	return c.Redirect(operatorPrefix, fiber.StatusSeeOther)
}

func (o operatorConsole) isOperatorToken(token string) bool {
	got, want := sha256.Sum256([]byte(token)), sha256.Sum256([]byte(o.k.operatorToken))
	return token != "" && subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// operator admits a request whose cookie holds the current operator token, signed in less
// than operatorLifetime ago, and checks the CSRF token of its POSTs.
func (o operatorConsole) operator(c *fiber.Ctx) error {
	if !o.operatorConfigured(c) {
		return o.k.renderError(c, fiber.StatusServiceUnavailable, "The operator console is off: OPERATOR_TOKEN is not configured.")
	}
	st, err := o.k.seal.open(c.Cookies(operatorCookie))
	if err != nil || !o.isOperatorToken(st.Token) || time.Since(time.Unix(st.At, 0)) > operatorLifetime {
		clearCookie(c, operatorCookie)
		if c.Method() != fiber.MethodGet {
			return o.k.renderError(c, fiber.StatusUnauthorized, "Your operator session has ended: sign in again.")
		}
		return c.Redirect(operatorPrefix+"/signin", fiber.StatusSeeOther)
	}
	if c.Method() == fiber.MethodPost && !o.k.seal.csrfValid(st.Nonce, c.FormValue(csrfField)) {
		return o.k.renderError(c, fiber.StatusForbidden, "This form has expired or did not come from the console (CSRF token missing or wrong). Reload the page and try again.")
	}
	c.Locals(localNonce, st.Nonce)
	return c.Next()
}

func (o operatorConsole) operatorOverview(c *fiber.Ctx) error {
	overview, err := o.k.svc.Operations.Overview(c.UserContext())
	if err != nil {
		return o.k.fail(c, err)
	}
	notice := ""
	if id := c.Query("approved"); id != "" {
		notice = "Review approved for " + id + ": the payment's checks ran again."
	}
	if id := c.Query("retried"); id != "" {
		notice = "Job " + id + " is available again: a worker takes it now."
	}
	return o.k.render(c, fiber.StatusOK, "operator", "Operator", notice, operatorView{Overview: overview, Limit: operationsapp.ListLimit})
}

// operatorApproveReview approves a held payment's review, as POST
// /v1/admin/offramp/payments/{id}/approve-review does, once the operator ticked the confirmation.
// The approval is recorded with the operator's name and time by the use case, and logged.
func (o operatorConsole) operatorApproveReview(c *fiber.Ctx) error {
	id := strings.TrimSpace(c.Params("id"))
	if c.FormValue("confirm") != "yes" {
		return o.k.renderError(c, fiber.StatusUnprocessableEntity, "Tick the confirmation to approve the review of "+id+": nothing was changed.")
	}
	pay, err := o.k.svc.Offramp.ApproveReview(c.UserContext(), o.operatorName(), id)
	if err != nil {
		return o.k.fail(c, err)
	}
	o.k.log.Info("console: operator approved a review", "operator", o.operatorName(), "paymentId", pay.ID, "status", string(pay.Status), "ip", c.IP())
	return c.Redirect(operatorPrefix+"?approved="+pay.ID, fiber.StatusSeeOther)
}

// operatorRetryJob makes a failed job available again once the operator ticked the
// confirmation; the use case logs who retried which job.
func (o operatorConsole) operatorRetryJob(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(strings.TrimSpace(c.Params("id")), 10, 64)
	if err != nil || id <= 0 {
		return o.k.renderError(c, fiber.StatusNotFound, "No such job.")
	}
	if c.FormValue("confirm") != "yes" {
		return o.k.renderError(c, fiber.StatusUnprocessableEntity, "Tick the confirmation to retry job "+strconv.FormatInt(id, 10)+": nothing was changed.")
	}
	if err := o.k.svc.Operations.RetryJob(c.UserContext(), o.operatorName(), id); err != nil {
		return o.k.fail(c, err)
	}
	return c.Redirect(operatorPrefix+"?retried="+strconv.FormatInt(id, 10), fiber.StatusSeeOther)
}

// operatorName names the operator in approval records as the admin API does: a fingerprint of
// the token, never the token.
func (o operatorConsole) operatorName() string {
	sum := sha256.Sum256([]byte(o.k.operatorToken))
	return "operator-token:" + hex.EncodeToString(sum[:6])
}

func (o operatorConsole) operatorSignout(c *fiber.Ctx) error {
	clearCookie(c, operatorCookie)
	return c.Redirect(operatorPrefix+"/signin", fiber.StatusSeeOther)
}

// operatorView is the overview page's data.
type operatorView struct {
	operationsapp.Overview
	Limit int
}
