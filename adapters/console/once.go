package console

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
)

// Every state-changing form (create or revoke a key, add an endpoint, rotate its secret,
// redeliver) carries a fresh idempotency token in onceField, drawn at random on each render
// and tied to the session like the CSRF token. The action runs through the kernel's
// Idempotency, as an API POST with an Idempotency-Key does, under a key derived from the
// member, the form's action and the token: the same rendered form submitted twice (a double
// click, a resent POST) runs once, and the second answer lands on the same page saying it was
// already done, never showing a secret again. A fresh render carries a new token, so a
// deliberate second create works. Sign-in, sign-out and the environment switch carry none:
// they create nothing and repeating them changes nothing.
const (
	onceField = "_once"
	// onceKeyPrefix keeps the console's keys apart from the API's client-chosen ones.
	onceKeyPrefix = "console:"
	// onceWait bounds how long a second submission waits for the first one still running
	// before it shows its outcome.
	onceWait = 15 * time.Second
)

// once is a fresh form token: a random part and its MAC under the session's nonce, so a
// token is only good in the session that rendered it.
func (s sealer) once(nonce string) string {
	r := newNonce()
	return r + "." + base64.RawURLEncoding.EncodeToString(s.mac("once", nonce, r))
}

// onceValid returns the random part of a token rendered for this session.
func (s sealer) onceValid(nonce, presented string) (string, bool) {
	r, sig, ok := strings.Cut(presented, ".")
	if !ok || nonce == "" || r == "" || len(r) > 64 {
		return "", false
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	return r, err == nil && hmac.Equal(got, s.mac("once", nonce, r))
}

// outcome is what an action did: where its result is shown, the flash of that first answer
// (which may carry a secret shown once) and the flash a resubmission gets instead (never a
// secret). Only Location and Again are stored.
type outcome struct {
	Location string
	First    flash
	Again    flash
}

// storedOutcome is the idempotency record's body: no secret rests there.
type storedOutcome struct {
	Location string `json:"location"`
	Again    flash  `json:"again"`
}

// runOnce runs action at most once per rendered form, inside the kernel's runner's unit of work (the
// record commits with the action's effect; a refusal rolls back and stores nothing, so the
// corrected form can be sent again). The answer is a redirect to the outcome's page.
func (k *Console) runOnce(c *fiber.Ctx, action func(ctx context.Context) (outcome, error)) error {
	p := principal(c)
	if err := p.RequireTenant(); err != nil {
		return k.fail(c, err)
	}
	nonce, _ := c.Locals(localNonce).(string)
	token, ok := k.seal.onceValid(nonce, c.FormValue(onceField))
	if !ok {
		return k.renderError(c, fiber.StatusForbidden, "This form has expired or did not come from this session (its one-time token is missing or wrong). Reload the page and try again.")
	}
	req := kernel.IdempotentRequest{
		Scope: "tenant:" + p.TenantID, Environment: p.Environment,
		Key:         onceKey(p.UserID, c.Path(), token),
		Fingerprint: formFingerprint(c),
	}
	var first outcome
	deadline := time.Now().Add(onceWait)
	for {
		out, replayed, err := k.svc.Idempotency.Idempotent(c.UserContext(), req, func(ctx context.Context) (kernel.Outcome, error) {
			o, err := action(ctx)
			if err != nil {
				return kernel.Outcome{}, err
			}
			first = o
			o.Again.Secret = ""
			body, err := json.Marshal(storedOutcome{Location: o.Location, Again: o.Again})
			if err != nil {
				return kernel.Outcome{}, err
			}
			return kernel.Outcome{StatusCode: fiber.StatusSeeOther, Body: body, ContentType: fiber.MIMEApplicationJSON}, nil
		})
		var de *core.Error
		switch {
		case errors.As(err, &de) && de.Code == core.CodeIdempotencyRequestInProgress && time.Now().Before(deadline):
			// The same form is being submitted right now (a double click): wait for its outcome.
			time.Sleep(50 * time.Millisecond)
			continue
		case errors.As(err, &de) && de.Code == core.CodeIdempotencyRequestInProgress:
			return k.renderError(c, fiber.StatusConflict, "This form is still being submitted. Wait a moment, then open the page again to see its outcome.")
		case errors.As(err, &de) && de.Code == core.CodeIdempotencyKeyReused:
			return k.renderError(c, fiber.StatusUnprocessableEntity, "This form was already submitted with other values. Reload the page for a fresh form. ("+string(de.Code)+")")
		case err != nil:
			return k.fail(c, err)
		}
		if !replayed {
			return k.answer(c, first.Location, first.First)
		}
		var stored storedOutcome
		if err := json.Unmarshal(out.Body, &stored); err != nil || !strings.HasPrefix(stored.Location, Prefix+"/") {
			return k.fail(c, errors.New("console: unreadable stored outcome"))
		}
		return k.answer(c, stored.Location, stored.Again)
	}
}

// answer sets the flash (when there is one) and sends the browser to the outcome's page.
func (k *Console) answer(c *fiber.Ctx, location string, f flash) error {
	if f.Kind != "" {
		k.setFlash(c, f)
	}
	return c.Redirect(location, fiber.StatusSeeOther)
}

// onceKey derives the idempotency key from the member, the form's action and the token.
func onceKey(userID, action, token string) string {
	sum := sha256.Sum256([]byte(userID + "\x00" + action + "\x00" + token))
	return onceKeyPrefix + hex.EncodeToString(sum[:])
}

// formFingerprint hashes the action and the form's values (tokens left out, order of fields
// ignored): the same token sent with other values is another request, refused, never a
// replay of this one.
func formFingerprint(c *fiber.Ctx) string {
	values := url.Values{}
	c.Request().PostArgs().VisitAll(func(k, v []byte) { values.Add(string(k), string(v)) })
	if form, err := c.MultipartForm(); err == nil {
		for name, vs := range form.Value {
			values[name] = append(values[name], vs...)
		}
	}
	values.Del(csrfField)
	values.Del(onceField)
	for _, vs := range values {
		sort.Strings(vs)
	}
	h := sha256.New()
	h.Write([]byte(c.Method() + " " + c.Path() + "\n" + values.Encode()))
	return hex.EncodeToString(h.Sum(nil))
}
