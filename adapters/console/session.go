package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"corridor/core"
)

const (
	// sessionCookie holds the signed-in member's identity-provider token and the chosen
	// environment; preCookie holds the nonce the sign-in form's CSRF token is tied to.
	sessionCookie = "corridor_console"
	preCookie     = "corridor_console_signin"
	csrfField     = "_csrf"
)

// cookieState is what the session cookie carries. The token is verified with the identity
// provider on every request; the MAC only keeps the environment and nonce honest.
type cookieState struct {
	Token string `json:"t,omitempty"`
	Env   string `json:"e,omitempty"`
	Nonce string `json:"n"`
}

// sealer signs cookies and derives CSRF tokens with one key.
type sealer struct{ key []byte }

func (s sealer) mac(parts ...string) []byte {
	m := hmac.New(sha256.New, s.key)
	for _, p := range parts {
		m.Write([]byte(p))
		m.Write([]byte{0})
	}
	return m.Sum(nil)
}

func (s sealer) seal(st cookieState) string {
	raw, _ := json.Marshal(st)
	body := base64.RawURLEncoding.EncodeToString(raw)
	return body + "." + base64.RawURLEncoding.EncodeToString(s.mac("cookie", body))
}

func (s sealer) open(v string) (cookieState, error) {
	body, sig, ok := strings.Cut(v, ".")
	if !ok {
		return cookieState{}, errors.New("malformed cookie")
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.mac("cookie", body)) {
		return cookieState{}, errors.New("cookie signature")
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return cookieState{}, err
	}
	var st cookieState
	if err := json.Unmarshal(raw, &st); err != nil || st.Nonce == "" {
		return cookieState{}, errors.New("cookie body")
	}
	return st, nil
}

// csrf is the form token of a cookie's nonce: it changes with every sign-in, and a page of
// another origin can neither read it nor the cookie it is tied to.
func (s sealer) csrf(nonce string) string {
	return base64.RawURLEncoding.EncodeToString(s.mac("csrf", nonce))
}

func (s sealer) csrfValid(nonce, presented string) bool {
	got, err := base64.RawURLEncoding.DecodeString(presented)
	return err == nil && nonce != "" && hmac.Equal(got, s.mac("csrf", nonce))
}

func newNonce() string {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// setCookie writes an HttpOnly, SameSite=Strict cookie scoped to /console; Secure on https.
func setCookie(c *fiber.Ctx, name, value string, maxAge time.Duration) {
	ck := &fiber.Cookie{Name: name, Value: value, Path: "/console", HTTPOnly: true, SameSite: fiber.CookieSameSiteStrictMode, Secure: c.Protocol() == "https"}
	if maxAge > 0 {
		ck.MaxAge = int(maxAge.Seconds())
	}
	if maxAge < 0 {
		ck.Expires = time.Unix(1, 0)
		ck.MaxAge = -1
	}
	c.Cookie(ck)
}

func clearCookie(c *fiber.Ctx, name string) { setCookie(c, name, "", -1) }

func parseEnv(s string) (core.Environment, bool) {
	if s == "" {
		return core.EnvTest, true
	}
	return core.ParseEnvironment(s)
}
