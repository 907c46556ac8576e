package console

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/core"
)

const (
	// sessionCookie holds the signed-in member's identity-provider token and the chosen
	// environment; preCookie holds the nonce the sign-in form's CSRF token is tied to.
	sessionCookie = "corridor_console"
	preCookie     = "corridor_console_signin"
	csrfField     = "_csrf"
)

// cookieState is what the session cookie carries, sealed. The token is verified with the
// identity provider on every request.
type cookieState struct {
	Token string `json:"t,omitempty"`
	Env   string `json:"e,omitempty"`
	Nonce string `json:"n"`
	// At is when an operator signed in (Unix seconds); member sessions end with their token.
	At int64 `json:"a,omitempty"`
	// IDNonce is a sign-in's OIDC nonce, which the provider's ID token must carry back.
	IDNonce string `json:"o,omitempty"`
}

// sealer seals cookies and derives CSRF tokens from one key.
type sealer struct{ key []byte }

func (s sealer) mac(parts ...string) []byte {
	m := hmac.New(sha256.New, s.key)
	for _, p := range parts {
		m.Write([]byte(p))
		m.Write([]byte{0})
	}
	return m.Sum(nil)
}

// seal encrypts and authenticates the cookie (AES-GCM under a key derived from the cookie
// key): the session token it carries is neither readable nor alterable by whoever sees the
// cookie.
func (s sealer) seal(st cookieState) string {
	raw, _ := json.Marshal(st) //nolint:gosec // sealed with AES-GCM below
	g := s.aead("cookie")
	nonce := make([]byte, g.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(g.Seal(nonce, nonce, raw, []byte(sessionCookie)))
}

func (s sealer) open(v string) (cookieState, error) {
	sealed, err := base64.RawURLEncoding.DecodeString(v)
	g := s.aead("cookie")
	if err != nil || len(sealed) < g.NonceSize() {
		return cookieState{}, errors.New("malformed cookie")
	}
	raw, err := g.Open(nil, sealed[:g.NonceSize()], sealed[g.NonceSize():], []byte(sessionCookie))
	if err != nil {
		return cookieState{}, errors.New("cookie does not open")
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
	writeCookie(c, name, value, maxAge, fiber.CookieSameSiteStrictMode)
}

// writeCookie writes an HttpOnly cookie scoped to /console with sameSite; Secure on https.
// Only the sign-in's state cookie is Lax: it must come back with the provider's redirect.
func writeCookie(c *fiber.Ctx, name, value string, maxAge time.Duration, sameSite string) {
	ck := &fiber.Cookie{Name: name, Value: value, Path: "/console", HTTPOnly: true, SameSite: sameSite, Secure: c.Protocol() == "https"}
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

// aead is AES-256-GCM under a key derived from the cookie key for one purpose.
func (s sealer) aead(purpose string) cipher.AEAD {
	key := sha256.Sum256(append([]byte("console "+purpose+"\x00"), s.key...))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		panic(err)
	}
	g, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return g
}
