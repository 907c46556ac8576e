package identity

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// codeFlowProvider is a provider for the code flow: discovery, the key set (keys) and a token
// endpoint that answers what the test sets and records the form it was sent.
type codeFlowProvider struct {
	srv    *httptest.Server
	keys   *provider
	status int
	answer map[string]any
	got    url.Values
}

func newCodeFlowProvider(t *testing.T, issuerInDiscovery func(srvURL string) string) *codeFlowProvider {
	t.Helper()
	p := &codeFlowProvider{keys: newProvider(t), status: http.StatusOK}
	mux := http.NewServeMux()
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": issuerInDiscovery(p.srv.URL),
			"authorization_endpoint": p.srv.URL + "/auth?tenant=x", "token_endpoint": p.srv.URL + "/token", "jwks_uri": p.keys.server.URL})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		p.got = r.PostForm
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(p.status)
		_ = json.NewEncoder(w).Encode(p.answer)
	})
	return p
}

// idToken is an ID token for the console's client from this provider, signed with key k1.
func (p *codeFlowProvider) idToken(t *testing.T, mutate func(jwt.MapClaims)) string {
	t.Helper()
	now := time.Now()
	c := jwt.MapClaims{"iss": p.srv.URL, "aud": "console", "sub": "user-1", "nonce": "n-1", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	if mutate != nil {
		mutate(c)
	}
	return sign(t, jwt.SigningMethodRS256, "k1", p.keys.keys["k1"], c)
}

// TestCodeFlow_AuthURL: the endpoints come from the discovery document, and the authorization
// URL carries the client, state, nonce, audience, the openid scope and the S256 challenge of
// the verifier (RFC 7636's own computation, not the library's).
func TestCodeFlow_AuthURL(t *testing.T) {
	p := newCodeFlowProvider(t, func(u string) string { return u })
	f, err := NewCodeFlow(CodeFlowConfig{Issuer: p.srv.URL, ClientID: "console", ClientSecret: "s3cret", Audience: "https://api"})
	if err != nil {
		t.Fatal(err)
	}
	verifier := "verifier-verifier-verifier-verifier-verifier"
	to, err := f.AuthURL(context.Background(), "st", "n-1", verifier, "https://corridor/cb")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(to)
	q := u.Query()
	sum := sha256.Sum256([]byte(verifier))
	if !strings.HasPrefix(to, p.srv.URL+"/auth?tenant=x&") || q.Get("code_challenge") != base64.RawURLEncoding.EncodeToString(sum[:]) ||
		q.Get("code_challenge_method") != "S256" || q.Get("state") != "st" || q.Get("nonce") != "n-1" || q.Get("client_id") != "console" ||
		q.Get("audience") != "https://api" || q.Get("redirect_uri") != "https://corridor/cb" || !strings.Contains(q.Get("scope"), "openid") ||
		q.Get("response_type") != "code" {
		t.Fatalf("authorization URL %s", to)
	}
}

// TestCodeFlow_Exchange: the exchange sends the verifier, client and secret; it returns a signed
// access token first, then the ID token, and refuses an ID token that is missing, carries
// another nonce or audience, or is signed by a key the provider does not publish, as well as
// the provider's refusal.
func TestCodeFlow_Exchange(t *testing.T) {
	p := newCodeFlowProvider(t, func(u string) string { return u })
	p.keys.addRSA("k1")
	f, err := NewCodeFlow(CodeFlowConfig{Issuer: p.srv.URL, ClientID: "console", ClientSecret: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id := p.idToken(t, nil)
	p.answer = map[string]any{"access_token": "opaque", "token_type": "Bearer", "id_token": id}
	tokens, err := f.Exchange(ctx, "code1", "n-1", "v", "https://corridor/cb")
	if err != nil || len(tokens) != 1 || tokens[0] != id {
		t.Fatalf("tokens %v, %v", tokens, err)
	}
	if p.got.Get("code_verifier") != "v" || p.got.Get("client_secret") != "s3cret" || p.got.Get("client_id") != "console" ||
		p.got.Get("grant_type") != "authorization_code" || p.got.Get("code") != "code1" || p.got.Get("redirect_uri") != "https://corridor/cb" {
		t.Fatalf("token request %v", p.got)
	}
	p.answer["access_token"] = "a.b.c"
	if tokens, err := f.Exchange(ctx, "code2", "n-1", "v", "https://corridor/cb"); err != nil || len(tokens) != 2 || tokens[0] != "a.b.c" || tokens[1] != id {
		t.Fatalf("a signed access token is not offered first: %v, %v", tokens, err)
	}
	other := newProvider(t)
	otherKey := other.addRSA("k1")
	refused := map[string]map[string]any{
		"no ID token":    {"access_token": "a.b.c", "token_type": "Bearer"},
		"another nonce":  {"access_token": "a.b.c", "token_type": "Bearer", "id_token": p.idToken(t, func(c jwt.MapClaims) { c["nonce"] = "n-2" })},
		"another client": {"access_token": "a.b.c", "token_type": "Bearer", "id_token": p.idToken(t, func(c jwt.MapClaims) { c["aud"] = "other" })},
		"expired":        {"access_token": "a.b.c", "token_type": "Bearer", "id_token": p.idToken(t, func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Hour).Unix() })},
		"unknown key": {"access_token": "a.b.c", "token_type": "Bearer", "id_token": sign(t, jwt.SigningMethodRS256, "k1", otherKey,
			jwt.MapClaims{"iss": p.srv.URL, "aud": "console", "sub": "user-1", "nonce": "n-1", "exp": time.Now().Add(time.Hour).Unix()})},
	}
	for name, answer := range refused {
		p.answer = answer
		tokens, err := f.Exchange(ctx, "code3", "n-1", "v", "https://corridor/cb")
		t.Logf("%s: %v", name, err)
		if err == nil {
			t.Fatalf("%s: accepted, tokens %v", name, tokens)
		}
	}
	p.status, p.answer = http.StatusBadRequest, map[string]any{"error": "invalid_grant"}
	if _, err := f.Exchange(ctx, "code4", "n-1", "v", "https://corridor/cb"); err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("refused exchange: %v", err)
	}
}

// TestCodeFlow_Configuration: a flow without a client id, an endpoint in clear off loopback and
// a discovery document that names another issuer are refused.
func TestCodeFlow_Configuration(t *testing.T) {
	p := newCodeFlowProvider(t, func(string) string { return "https://impostor.example" })
	if _, err := NewCodeFlow(CodeFlowConfig{Issuer: p.srv.URL}); err == nil {
		t.Fatal("a flow without a client id was accepted")
	}
	if _, err := NewCodeFlow(CodeFlowConfig{Issuer: p.srv.URL, ClientID: "c", TokenURL: "http://id.example/token"}); err == nil {
		t.Fatal("a token endpoint in clear off loopback was accepted")
	}
	f, err := NewCodeFlow(CodeFlowConfig{Issuer: p.srv.URL, ClientID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.AuthURL(context.Background(), "st", "n", "verifier-verifier-verifier-verifier-verifier", "https://corridor/cb"); err == nil {
		t.Fatal("a discovery document naming another issuer was accepted")
	}
}
