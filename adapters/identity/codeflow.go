package identity

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// DefaultCodeFlowTimeout bounds one call to the provider's discovery or token endpoint.
const DefaultCodeFlowTimeout = 10 * time.Second

// maxProviderBody bounds a discovery document or token response read from the provider.
const maxProviderBody = 1 << 20

// CodeFlowConfig configures the console's sign-in with the OIDC provider: the authorization
// code flow with PKCE (RFC 7636, S256), as a web application registered at the provider.
type CodeFlowConfig struct {
	// Issuer is the provider's issuer URL (OIDC_ISSUER); its discovery document names the
	// endpoints below when they are not set.
	Issuer string
	// ClientID and ClientSecret are the console's registration at the provider
	// (OIDC_CLIENT_ID, OIDC_CLIENT_SECRET); the secret is empty for a public client, which PKCE
	// alone protects.
	ClientID, ClientSecret string
	// AuthorizationURL and TokenURL override the discovery document's endpoints.
	AuthorizationURL, TokenURL string
	// Audience, when set, is sent as the audience parameter: providers that mint access tokens
	// for an API (Auth0 and others) need it to mint one this service accepts.
	Audience string
	// Timeout bounds each call to the provider (0: DefaultCodeFlowTimeout).
	Timeout time.Duration
}

// CodeFlow signs console users in at the provider and exchanges the code for the tokens the
// API's verifier accepts. It holds no session: the console seals state and verifier in its own
// cookie.
type CodeFlow struct {
	cfg    CodeFlowConfig
	client *http.Client

	mu        sync.Mutex
	endpoints *providerEndpoints // discovered once, on first use
}

type providerEndpoints struct {
	Authorization string `json:"authorization_endpoint"`
	Token         string `json:"token_endpoint"`
}

// NewCodeFlow checks the configuration; the discovery document is read on the first sign-in,
// so a provider that is down at start delays sign-ins, not the service.
func NewCodeFlow(cfg CodeFlowConfig) (*CodeFlow, error) {
	if err := CheckProviderURL("OIDC_ISSUER", cfg.Issuer); err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.ClientID) == "" {
		return nil, errors.New("identity: OIDC_CLIENT_ID is required for the console's sign-in")
	}
	for name, u := range map[string]string{"OIDC_AUTHORIZATION_URL": cfg.AuthorizationURL, "OIDC_TOKEN_URL": cfg.TokenURL} {
		if u != "" {
			if err := CheckProviderURL(name, u); err != nil {
				return nil, err
			}
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultCodeFlowTimeout
	}
	f := &CodeFlow{cfg: cfg, client: &http.Client{Timeout: cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if cfg.AuthorizationURL != "" && cfg.TokenURL != "" {
		f.endpoints = &providerEndpoints{Authorization: cfg.AuthorizationURL, Token: cfg.TokenURL}
	}
	return f, nil
}

// Challenge is the S256 code challenge of a verifier.
func Challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// AuthURL is where the browser goes to sign in: the provider's authorization endpoint with the
// console's client, the redirect back, state and the verifier's S256 challenge.
func (f *CodeFlow) AuthURL(ctx context.Context, state, verifier, redirectURI string) (string, error) {
	ep, err := f.discover(ctx)
	if err != nil {
		return "", err
	}
	q := url.Values{"response_type": {"code"}, "client_id": {f.cfg.ClientID}, "redirect_uri": {redirectURI},
		"scope": {"openid email profile"}, "state": {state}, "code_challenge": {Challenge(verifier)}, "code_challenge_method": {"S256"}}
	if f.cfg.Audience != "" {
		q.Set("audience", f.cfg.Audience)
	}
	sep := "?"
	if strings.Contains(ep.Authorization, "?") {
		sep = "&"
	}
	return ep.Authorization + sep + q.Encode(), nil
}

// Exchange trades the code for the provider's tokens and returns those that may be the
// session: the access token first, then the ID token (the caller keeps the first its verifier
// accepts).
func (f *CodeFlow) Exchange(ctx context.Context, code, verifier, redirectURI string) ([]string, error) {
	ep, err := f.discover(ctx)
	if err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI},
		"client_id": {f.cfg.ClientID}, "code_verifier": {verifier}}
	if f.cfg.ClientSecret != "" {
		form.Set("client_secret", f.cfg.ClientSecret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.Token, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	var tokens struct {
		AccessToken string `json:"access_token"`
		IDToken     string `json:"id_token"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	status, err := f.getJSON(req, &tokens)
	if err != nil {
		return nil, fmt.Errorf("identity: token endpoint: %w", err)
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("identity: token endpoint answered %d %s %s", status, tokens.Error, tokens.Description)
	}
	var out []string
	for _, t := range []string{tokens.AccessToken, tokens.IDToken} {
		if strings.Count(t, ".") == 2 { // a JWT; opaque access tokens cannot be verified here
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("identity: the token endpoint returned no signed token")
	}
	return out, nil
}

// discover reads the endpoints from the issuer's discovery document, once.
func (f *CodeFlow) discover(ctx context.Context) (providerEndpoints, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.endpoints != nil {
		return *f.endpoints, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(f.cfg.Issuer, "/")+"/.well-known/openid-configuration", nil)
	if err != nil {
		return providerEndpoints{}, err
	}
	var ep providerEndpoints
	status, err := f.getJSON(req, &ep)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("answered %d", status)
	}
	if err != nil {
		return providerEndpoints{}, fmt.Errorf("identity: discovery document: %w", err)
	}
	if f.cfg.AuthorizationURL != "" {
		ep.Authorization = f.cfg.AuthorizationURL
	}
	if f.cfg.TokenURL != "" {
		ep.Token = f.cfg.TokenURL
	}
	for name, u := range map[string]string{"authorization_endpoint": ep.Authorization, "token_endpoint": ep.Token} {
		if err := CheckProviderURL(name, u); err != nil {
			return providerEndpoints{}, fmt.Errorf("identity: discovery document: %w", err)
		}
	}
	f.endpoints = &ep
	return ep, nil
}

func (f *CodeFlow) getJSON(req *http.Request, into any) (int, error) {
	resp, err := f.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProviderBody))
	if err != nil {
		return 0, err
	}
	if err := json.Unmarshal(body, into); err != nil && resp.StatusCode == http.StatusOK {
		return resp.StatusCode, fmt.Errorf("malformed JSON: %w", err)
	}
	return resp.StatusCode, nil
}
