package console

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/operations"
)

const (
	// operatorCookie holds the operator token, sealed, and the nonce of the page's CSRF token.
	operatorCookie = "corridor_operator"
	// operatorLifetime bounds an operator's console session; the server checks it from the
	// cookie's own sign-in time, whatever the browser keeps.
	operatorLifetime = 8 * time.Hour
	operatorPrefix   = Prefix + "/operator"
)

// operatorRoutes mount the operator console: a sign-in with the operator token (docs/decisions/operations.md) and the
// overview of what waits for a person across tenants. They sit outside the member group: no
// tenant session reaches them, and the operator token reaches nothing else.
// operatorPages are the operator console's pages and actions (docs/decisions/operations.md): they share the console's
// rendering and sealing, and reach only the operations use cases and the actions they audit.
type operatorPages struct{ *Console }

func (k operatorPages) operatorRoutes(g fiber.Router) {
	g.Get("/operator/signin", k.operatorSigninPage)
	g.Post("/operator/signin", k.throttled("operator"), k.operatorSignin)
	g.Get("/operator", k.operator, k.operatorOverview)
	g.Post("/operator/signout", k.operator, k.operatorSignout)
	g.Post("/operator/payments/:id/approve-review", k.operator, k.operatorApproveReview)
	g.Post("/operator/jobs/:id/retry", k.operator, k.operatorRetryJob)
	g.Post("/operator/invoices/:id/arbiter-sign", k.operator, k.operatorArbiterSign)
	g.Post("/operator/endpoints/:id/redeliver", k.operator, k.operatorRedeliver)
}

// operatorConfigured answers 503 while OPERATOR_TOKEN is unset, as the admin API does.
func (k operatorPages) operatorConfigured(c *fiber.Ctx) bool {
	return k.operatorToken != "" && k.svc.Operations != nil
}

func (k operatorPages) operatorSigninPage(c *fiber.Ctx) error {
	if !k.operatorConfigured(c) {
		return k.renderError(c, fiber.StatusServiceUnavailable, "The operator console is off: OPERATOR_TOKEN is not configured.")
	}
	nonce := newNonce()
	if st, err := k.seal.open(c.Cookies(preCookie)); err == nil {
		nonce = st.Nonce
	} else {
		setCookie(c, preCookie, k.seal.seal(cookieState{Nonce: nonce}), preCookieLifetime)
	}
	c.Locals(localNonce, nonce)
	return k.render(c, fiber.StatusOK, "operatorsignin", "Operator sign in", "", nil)
}

// operatorSignin checks the pasted token against OPERATOR_TOKEN in constant time and keeps it,
// sealed, in the operator's cookie (checked again on every page, so rotating the token signs
// every operator out).
func (k operatorPages) operatorSignin(c *fiber.Ctx) error {
	if !k.operatorConfigured(c) {
		return k.renderError(c, fiber.StatusServiceUnavailable, "The operator console is off: OPERATOR_TOKEN is not configured.")
	}
	pre, err := k.seal.open(c.Cookies(preCookie))
	if err != nil || !k.seal.csrfValid(pre.Nonce, c.FormValue(csrfField)) {
		return k.renderError(c, fiber.StatusForbidden, "This sign-in form has expired or did not come from the console (CSRF token missing or wrong). Reload the sign-in page.")
	}
	c.Locals(localNonce, pre.Nonce)
	token := strings.TrimSpace(c.FormValue("token"))
	if !k.isOperatorToken(token) {
		k.log.Warn("console: operator sign-in refused", "ip", c.IP())
		c.Locals("consoleError", "That is not the operator token.")
		return k.render(c, fiber.StatusUnauthorized, "operatorsignin", "Operator sign in", "", nil)
	}
	clearCookie(c, preCookie)
	st := cookieState{Token: token, Nonce: newNonce(), At: time.Now().Unix()}
	setCookie(c, operatorCookie, k.seal.seal(st), operatorLifetime)
	k.log.Info("console: operator signed in", "ip", c.IP())
	return c.Redirect(operatorPrefix, fiber.StatusSeeOther)
}

func (k operatorPages) isOperatorToken(token string) bool {
	got, want := sha256.Sum256([]byte(token)), sha256.Sum256([]byte(k.operatorToken))
	return token != "" && subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// operator admits a request whose cookie holds the current operator token, signed in less
// than operatorLifetime ago, and checks the CSRF token of its POSTs.
func (k operatorPages) operator(c *fiber.Ctx) error {
	if !k.operatorConfigured(c) {
		return k.renderError(c, fiber.StatusServiceUnavailable, "The operator console is off: OPERATOR_TOKEN is not configured.")
	}
	st, err := k.seal.open(c.Cookies(operatorCookie))
	if err != nil || !k.isOperatorToken(st.Token) || time.Since(time.Unix(st.At, 0)) > operatorLifetime {
		clearCookie(c, operatorCookie)
		if c.Method() != fiber.MethodGet {
			return k.renderError(c, fiber.StatusUnauthorized, "Your operator session has ended: sign in again.")
		}
		return c.Redirect(operatorPrefix+"/signin", fiber.StatusSeeOther)
	}
	if c.Method() == fiber.MethodPost && !k.seal.csrfValid(st.Nonce, c.FormValue(csrfField)) {
		return k.renderError(c, fiber.StatusForbidden, "This form has expired or did not come from the console (CSRF token missing or wrong). Reload the page and try again.")
	}
	c.Locals(localNonce, st.Nonce)
	return c.Next()
}

func (k operatorPages) operatorOverview(c *fiber.Ctx) error {
	overview, err := k.svc.Operations.Overview(c.UserContext())
	if err != nil {
		return k.fail(c, err)
	}
	notice := ""
	for _, n := range []struct{ query, text string }{
		{"approved", "Review approved for %s: the payment's checks ran again."},
		{"retried", "Job %s is available again: a worker takes it now."},
		{"signed", "The platform arbiter signed the settlement of invoice %s."},
		{"redelivered", "Endpoint %s is enabled again and its failed deliveries were sent again."},
	} {
		if id := c.Query(n.query); id != "" {
			notice = strings.Replace(n.text, "%s", id, 1)
		}
	}
	return k.render(c, fiber.StatusOK, "operator", "Operator", notice, operatorView{Overview: overview,
		Limit: operations.ListLimit, Recent: operations.RecentActions, Arbiter: k.svc.Operations.HasArbiter()})
}

// confirmed reports whether the operator ticked the action's confirmation; without it the page
// says nothing was changed.
func (k operatorPages) confirmed(c *fiber.Ctx, what string) (bool, error) {
	if c.FormValue("confirm") == "yes" {
		return true, nil
	}
	return false, k.renderError(c, fiber.StatusUnprocessableEntity, "Tick the confirmation to "+what+": nothing was changed.")
}

// operatorApproveReview approves a held payment's review, as POST
// /v1/admin/offramp/payments/{id}/approve-review does, once the operator ticked the confirmation;
// the operations use case writes the audit entry.
func (k operatorPages) operatorApproveReview(c *fiber.Ctx) error {
	id := strings.TrimSpace(c.Params("id"))
	if ok, err := k.confirmed(c, "approve the review of "+id); !ok {
		return err
	}
	pay, err := k.svc.Operations.ApproveReview(c.UserContext(), k.actor(), id)
	if err != nil {
		return k.fail(c, err)
	}
	return c.Redirect(operatorPrefix+"?approved="+pay.ID, fiber.StatusSeeOther)
}

// operatorArbiterSign signs an invoice's pending release or refund as the platform arbiter, as
// POST /v1/admin/invoices/{id}/arbiter-sign does, once confirmed.
func (k operatorPages) operatorArbiterSign(c *fiber.Ctx) error {
	id := strings.TrimSpace(c.Params("id"))
	if ok, err := k.confirmed(c, "sign invoice "+id+" as the arbiter"); !ok {
		return err
	}
	inv, err := k.svc.Operations.ArbiterSign(c.UserContext(), k.actor(), id)
	if err != nil {
		return k.fail(c, err)
	}
	return c.Redirect(operatorPrefix+"?signed="+inv.ID, fiber.StatusSeeOther)
}

// operatorRedeliver enables a disabled webhook endpoint and redelivers what failed, once
// confirmed.
func (k operatorPages) operatorRedeliver(c *fiber.Ctx) error {
	id := strings.TrimSpace(c.Params("id"))
	if ok, err := k.confirmed(c, "enable endpoint "+id+" and redeliver"); !ok {
		return err
	}
	if _, err := k.svc.Operations.Redeliver(c.UserContext(), k.actor(), id); err != nil {
		return k.fail(c, err)
	}
	return c.Redirect(operatorPrefix+"?redelivered="+id, fiber.StatusSeeOther)
}

// operatorRetryJob makes a failed job available again once the operator ticked the
// confirmation.
func (k operatorPages) operatorRetryJob(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(strings.TrimSpace(c.Params("id")), 10, 64)
	if err != nil || id <= 0 {
		return k.renderError(c, fiber.StatusNotFound, "No such job.")
	}
	if ok, err := k.confirmed(c, "retry job "+strconv.FormatInt(id, 10)); !ok {
		return err
	}
	if err := k.svc.Operations.RetryJob(c.UserContext(), k.actor(), id); err != nil {
		return k.fail(c, err)
	}
	return c.Redirect(operatorPrefix+"?retried="+strconv.FormatInt(id, 10), fiber.StatusSeeOther)
}

// actor is the signed-in operator, as the audit trail names them.
func (k operatorPages) actor() operations.Actor {
	return operations.Actor{Operator: OperatorName(k.operatorToken), Via: "console"}
}

// OperatorName names the operator in approval records and the audit trail as the admin API
// does: a fingerprint of the token, never the token.
func OperatorName(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "operator-token:" + hex.EncodeToString(sum[:6])
}

func (k operatorPages) operatorSignout(c *fiber.Ctx) error {
	clearCookie(c, operatorCookie)
	return c.Redirect(operatorPrefix+"/signin", fiber.StatusSeeOther)
}

// operatorView is the overview page's data.
type operatorView struct {
	operations.Overview
	Limit, Recent int
	Arbiter       bool // a platform arbiter is configured
}
