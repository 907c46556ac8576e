package identity

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestCodeFlow: the endpoints come from the discovery document, the authorization URL carries
// the S256 challenge of the verifier, the exchange sends the verifier and the secret, keeps
// only signed tokens (access token first), and a refusal or a response without one is an error.
func TestCodeFlow(t *testing.T) {
	var answer map[string]any
	status := http.StatusOK
	var got url.Values
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"authorization_endpoint": srv.URL + "/auth?tenant=x", "token_endpoint": srv.URL + "/token"})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		got = r.PostForm
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(answer)
	})
	f, err := NewCodeFlow(CodeFlowConfig{Issuer: srv.URL, ClientID: "console", ClientSecret: "s3cret", Audience: "https://api"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	to, err := f.AuthURL(ctx, "st", "verifier-verifier-verifier-verifier-verifier", "https://corridor/cb")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(to)
	q := u.Query()
	if !strings.HasPrefix(to, srv.URL+"/auth?tenant=x&") || q.Get("code_challenge") != Challenge("verifier-verifier-verifier-verifier-verifier") ||
		q.Get("code_challenge_method") != "S256" || q.Get("state") != "st" || q.Get("client_id") != "console" || q.Get("audience") != "https://api" {
		t.Fatalf("authorization URL %s", to)
	}
	answer = map[string]any{"access_token": "opaque", "id_token": "a.b.c"}
	tokens, err := f.Exchange(ctx, "code1", "v", "https://corridor/cb")
	if err != nil || len(tokens) != 1 || tokens[0] != "a.b.c" {
		t.Fatalf("tokens %v, %v", tokens, err)
	}
	if got.Get("code_verifier") != "v" || got.Get("client_secret") != "s3cret" || got.Get("grant_type") != "authorization_code" || got.Get("code") != "code1" {
		t.Fatalf("token request %v", got)
	}
	answer = map[string]any{"access_token": "opaque"}
	if _, err := f.Exchange(ctx, "code2", "v", "https://corridor/cb"); err == nil {
		t.Fatal("a response without a signed token was accepted")
	}
	status, answer = http.StatusBadRequest, map[string]any{"error": "invalid_grant"}
	if _, err := f.Exchange(ctx, "code3", "v", "https://corridor/cb"); err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("refused exchange: %v", err)
	}
	if _, err := NewCodeFlow(CodeFlowConfig{Issuer: srv.URL}); err == nil {
		t.Fatal("a flow without a client id was accepted")
	}
	if _, err := NewCodeFlow(CodeFlowConfig{Issuer: srv.URL, ClientID: "c", TokenURL: "http://id.example/token"}); err == nil {
		t.Fatal("a token endpoint in clear off loopback was accepted")
	}
}
