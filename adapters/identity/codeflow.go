package identity

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// DefaultCodeFlowTimeout bounds one call to the provider's discovery, key set or token endpoint.
const DefaultCodeFlowTimeout = 10 * time.Second

// maxProviderBody bounds a discovery document, key set or token response read from the provider.
const maxProviderBody = 1 << 20

// CodeFlowConfig configures the console's sign-in with the OIDC provider: the authorization
// code flow with PKCE (RFC 7636, S256), as a web application registered at the provider.
type CodeFlowConfig struct {
	// Issuer is the provider's issuer URL (OIDC_ISSUER); its discovery document names the
	// endpoints below when they are not set, and the key set the ID token is checked with.
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
// API's verifier accepts. The protocol is kept libraries' work: golang.org/x/oauth2 builds the
// authorization URL (with the S256 challenge) and runs the exchange (with the verifier), and
// coreos/go-oidc reads the discovery document and checks the ID token (signature against the
// provider's key set, issuer, audience = client id, expiry) and its nonce. It holds no
// session: the console seals state, nonce and verifier in its own cookie.
type CodeFlow struct {
	cfg    CodeFlowConfig
	client *http.Client

	mu    sync.Mutex
	ready *flowProvider // discovered once, on first use
}

// flowProvider is what discovery yields: the OAuth 2 client (without its redirect URI, which
// each sign-in sets) and the ID token verifier.
type flowProvider struct {
	oauth    oauth2.Config
	idTokens *oidc.IDTokenVerifier
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
	client := &http.Client{Timeout: cfg.Timeout, Transport: boundedBodies{http.DefaultTransport},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &CodeFlow{cfg: cfg, client: client}, nil
}

// AuthURL is where the browser goes to sign in: the provider's authorization endpoint with the
// console's client, the redirect back, state, nonce and the verifier's S256 challenge.
func (f *CodeFlow) AuthURL(ctx context.Context, state, nonce, verifier, redirectURI string) (string, error) {
	p, err := f.provider(ctx)
	if err != nil {
		return "", err
	}
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier), oidc.Nonce(nonce)}
	if f.cfg.Audience != "" {
		opts = append(opts, oauth2.SetAuthURLParam("audience", f.cfg.Audience))
	}
	cfg := p.oauth
	cfg.RedirectURL = redirectURI
	return cfg.AuthCodeURL(state, opts...), nil
}

// Exchange trades the code for the provider's tokens, checks the ID token and its nonce, and
// returns those that may be the session: a signed access token first, then the ID token (the
// caller keeps the first its own verifier accepts).
func (f *CodeFlow) Exchange(ctx context.Context, code, nonce, verifier, redirectURI string) ([]string, error) {
	p, err := f.provider(ctx)
	if err != nil {
		return nil, err
	}
	cfg := p.oauth
	cfg.RedirectURL = redirectURI
	ctx = context.WithValue(ctx, oauth2.HTTPClient, f.client)
	tok, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, fmt.Errorf("identity: token endpoint: %w", err)
	}
	rawID, _ := tok.Extra("id_token").(string)
	if rawID == "" {
		return nil, errors.New("identity: the token endpoint returned no ID token")
	}
	id, err := p.idTokens.Verify(oidc.ClientContext(ctx, f.client), rawID)
	if err != nil {
		return nil, fmt.Errorf("identity: ID token: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(id.Nonce), []byte(nonce)) != 1 {
		return nil, errors.New("identity: the ID token's nonce is not this sign-in's")
	}
	var out []string
	if strings.Count(tok.AccessToken, ".") == 2 { // a JWT; opaque access tokens cannot be verified here
		out = append(out, tok.AccessToken)
	}
	return append(out, rawID), nil
}

// provider reads the issuer's discovery document once (go-oidc checks that it names the
// configured issuer), applies the configured endpoint overrides and checks every endpoint's
// scheme as the configured ones are.
func (f *CodeFlow) provider(ctx context.Context) (*flowProvider, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ready != nil {
		return f.ready, nil
	}
	discovered, err := oidc.NewProvider(oidc.ClientContext(ctx, f.client), f.cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("identity: discovery document: %w", err)
	}
	ep := discovered.Endpoint()
	ep.AuthStyle = oauth2.AuthStyleInParams // client_id (and the secret, if any) in the form
	if f.cfg.AuthorizationURL != "" {
		ep.AuthURL = f.cfg.AuthorizationURL
	}
	if f.cfg.TokenURL != "" {
		ep.TokenURL = f.cfg.TokenURL
	}
	for name, u := range map[string]string{"authorization_endpoint": ep.AuthURL, "token_endpoint": ep.TokenURL} {
		if err := CheckProviderURL(name, u); err != nil {
			return nil, fmt.Errorf("identity: discovery document: %w", err)
		}
	}
	f.ready = &flowProvider{
		oauth: oauth2.Config{ClientID: f.cfg.ClientID, ClientSecret: f.cfg.ClientSecret, Endpoint: ep,
			Scopes: []string{oidc.ScopeOpenID, "email", "profile"}},
		idTokens: discovered.Verifier(&oidc.Config{ClientID: f.cfg.ClientID, SupportedSigningAlgs: oidcAlgorithms}),
	}
	return f.ready, nil
}

// boundedBodies reads at most maxProviderBody of any answer from the provider: go-oidc reads
// discovery documents and key sets whole.
type boundedBodies struct{ next http.RoundTripper }

func (b boundedBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(r)
	if err == nil {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.LimitReader(resp.Body, maxProviderBody), resp.Body}
	}
	return resp, err
}
