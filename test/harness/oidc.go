package harness

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// OIDCProvider is an identity provider for tests: a discovery document, a key set, an
// authorization endpoint that signs in whoever SignInAs named without asking (it requires the
// S256 challenge and a nonce), and a token endpoint that checks the code, the client and the
// PKCE verifier before it mints an access token for Audience and an ID token for ClientID that
// carries the sign-in's nonce.
type OIDCProvider struct {
	Srv          *httptest.Server
	Audience     string
	ClientID     string
	ClientSecret string

	key *rsa.PrivateKey
	t   testing.TB

	mu     sync.Mutex
	user   [2]string              // subject and email the next authorization signs in
	codes  map[string]pendingCode // code -> what it was issued for
	denied string                 // when set, /authorize answers this error instead (Deny)
	Calls  map[string]int         // endpoint path -> calls
	Last   map[string]url.Values  // endpoint path -> last request's parameters
}

type pendingCode struct {
	user                             [2]string
	clientID, redirectURI, challenge string
	nonce                            string // the sign-in's nonce, carried back in the ID token
	issuedAt                         time.Time
}

// NewOIDCProvider starts a provider, closed when the test ends.
func NewOIDCProvider(t testing.TB) *OIDCProvider {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &OIDCProvider{Audience: "https://api.corridor.test", ClientID: "corridor-console", ClientSecret: "console-secret",
		key: key, t: t, codes: map[string]pendingCode{}, Calls: map[string]int{}, Last: map[string]url.Values{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("/.well-known/jwks.json", p.jwks)
	mux.HandleFunc("/authorize", p.authorize)
	mux.HandleFunc("/token", p.token)
	p.Srv = httptest.NewServer(mux)
	t.Cleanup(p.Srv.Close)
	return p
}

// Issuer is the provider's issuer URL.
func (p *OIDCProvider) Issuer() string { return p.Srv.URL }

// SignInAs makes the next authorizations sign in subject with a verified email.
func (p *OIDCProvider) SignInAs(subject, email string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.user = [2]string{subject, email}
}

// Deny makes the next authorizations answer error (access_denied, …) instead of a code.
func (p *OIDCProvider) Deny(error string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.denied = error
}

// Token mints an access token for subject, as the provider would for the API.
func (p *OIDCProvider) Token(subject, email string) string {
	return p.mint(subject, email, p.Audience)
}

func (p *OIDCProvider) mint(subject, email, audience string) string {
	return p.mintWith(jwt.MapClaims{"sub": subject, "aud": audience, "email": email})
}

// mintWith signs claims as the provider, with its issuer and an hour's lifetime added.
func (p *OIDCProvider) mintWith(claims jwt.MapClaims) string {
	now := time.Now()
	claims["iss"], claims["email_verified"], claims["iat"], claims["exp"] = p.Issuer(), true, now.Unix(), now.Add(time.Hour).Unix()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = "test-key"
	s, err := tok.SignedString(p.key)
	if err != nil {
		p.t.Fatal(err)
	}
	return s
}

func (p *OIDCProvider) record(r *http.Request) url.Values {
	_ = r.ParseForm()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Calls[r.URL.Path]++
	p.Last[r.URL.Path] = r.Form
	return r.Form
}

func (p *OIDCProvider) discovery(w http.ResponseWriter, r *http.Request) {
	p.record(r)
	writeJSON(w, http.StatusOK, map[string]any{"issuer": p.Issuer(), "authorization_endpoint": p.Issuer() + "/authorize",
		"token_endpoint": p.Issuer() + "/token", "jwks_uri": p.Issuer() + "/.well-known/jwks.json"})
}

func (p *OIDCProvider) jwks(w http.ResponseWriter, r *http.Request) {
	p.record(r)
	enc := base64.RawURLEncoding
	writeJSON(w, http.StatusOK, map[string]any{"keys": []map[string]any{{"kty": "RSA", "kid": "test-key", "use": "sig", "alg": "RS256",
		"n": enc.EncodeToString(p.key.N.Bytes()), "e": enc.EncodeToString(big.NewInt(int64(p.key.E)).Bytes())}}})
}

// authorize signs the configured user in at once and sends the browser back with a code.
func (p *OIDCProvider) authorize(w http.ResponseWriter, r *http.Request) {
	q := p.record(r)
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("client_id") != p.ClientID ||
		q.Get("nonce") == "" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	denied := p.denied
	code := rand.Text()
	p.codes[code] = pendingCode{user: p.user, clientID: q.Get("client_id"), redirectURI: q.Get("redirect_uri"),
		challenge: q.Get("code_challenge"), nonce: q.Get("nonce"), issuedAt: time.Now()}
	p.mu.Unlock()
	v := url.Values{"state": {q.Get("state")}}
	if denied != "" {
		v.Set("error", denied)
	} else {
		v.Set("code", code)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// token exchanges a code once, for the client it was issued to, with the verifier of its
// challenge and the same redirect URI.
func (p *OIDCProvider) token(w http.ResponseWriter, r *http.Request) {
	f := p.record(r)
	p.mu.Lock()
	pc, ok := p.codes[f.Get("code")]
	delete(p.codes, f.Get("code"))
	p.mu.Unlock()
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	switch {
	case r.Method != http.MethodPost || f.Get("grant_type") != "authorization_code" || !ok:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant"})
	case f.Get("client_id") != pc.clientID || f.Get("client_secret") != p.ClientSecret:
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client"})
	case f.Get("redirect_uri") != pc.redirectURI || base64.RawURLEncoding.EncodeToString(sum[:]) != pc.challenge:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "verifier or redirect_uri"})
	default:
		writeJSON(w, http.StatusOK, map[string]any{"token_type": "Bearer", "expires_in": 3600,
			"access_token": p.mint(pc.user[0], pc.user[1], p.Audience), "id_token": p.mintWith(jwt.MapClaims{"sub": pc.user[0], "aud": p.ClientID, "email": pc.user[1], "nonce": pc.nonce})})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
