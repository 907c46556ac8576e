package identity

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// Limits of the OIDC adapter.
const (
	// DefaultJWKSTimeout bounds one fetch of the provider's key set.
	DefaultJWKSTimeout = 5 * time.Second
	// DefaultJWKSRefreshInterval is how often the key set is fetched again in the background,
	// so a key the provider withdrew stops verifying within the hour.
	DefaultJWKSRefreshInterval = time.Hour
	// DefaultUnknownKeyRefreshInterval spaces the fetches a token with an unknown key id
	// triggers: a provider's new key is picked up at once, while a stream of tokens naming
	// made-up key ids costs the provider one request a minute at most.
	DefaultUnknownKeyRefreshInterval = time.Minute
	// ClockSkew is the leeway allowed on exp, nbf and iat between the provider's clock and ours.
	ClockSkew = 30 * time.Second
	// maxTokenLength refuses oversized tokens before any parsing.
	maxTokenLength = 16 << 10
	// maxJWKSBytes bounds the key set document read from the provider.
	maxJWKSBytes = 1 << 20
)

// oidcAlgorithms are the only signatures accepted: asymmetric, so holding the key set never
// lets anyone mint a token. HS256 (the sandbox's) and none are refused before any key is read.
var oidcAlgorithms = []string{jwt.SigningMethodRS256.Alg(), jwt.SigningMethodES256.Alg()}

// OIDCConfig configures the OIDC adapter.
type OIDCConfig struct {
	// Issuer is the provider's issuer URL, compared exactly with the iss claim.
	Issuer string
	// Audience must be one of the token's aud values: the identifier this service is
	// registered under at the provider, so a token minted for another application is refused.
	Audience string
	// JWKSURL is the provider's key set; empty takes DefaultJWKSURL(Issuer).
	JWKSURL string
	// MaxTokenLifetime bounds exp − iat: a token the provider minted for longer is refused, so a
	// leaked long-lived token is not a standing credential here.
	MaxTokenLifetime time.Duration
	// FetchTimeout bounds one key set fetch (0: DefaultJWKSTimeout).
	FetchTimeout time.Duration
	// RefreshInterval and UnknownKeyRefreshInterval: zero takes the defaults above.
	RefreshInterval           time.Duration
	UnknownKeyRefreshInterval time.Duration
	// Logger receives key set fetch failures (nil: slog.Default()).
	Logger *slog.Logger
}

// DefaultJWKSURL is where a provider that follows the common layout keeps its key set. Providers
// that keep it elsewhere (Google, Okta, Keycloak) need it configured.
func DefaultJWKSURL(issuer string) string {
	return strings.TrimSuffix(issuer, "/") + "/.well-known/jwks.json"
}

// OIDC verifies the provider's signed tokens (RS256, ES256) against its published key set.
type OIDC struct {
	keys        keyfunc.Keyfunc
	parser      *jwt.Parser
	maxLifetime time.Duration
	stop        context.CancelFunc
}

var _ ports.Identity = (*OIDC)(nil)

// NewOIDC checks the configuration and fetches the key set once. A provider that does not
// answer then is logged, not fatal: sessions fail until it answers (a token naming a key id
// not yet known fetches again, spaced by UnknownKeyRefreshInterval), while API keys, which do
// not depend on the provider, keep working. The background refresh runs until ctx ends or
// Close.
func NewOIDC(ctx context.Context, cfg OIDCConfig) (*OIDC, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	ctx, stop := context.WithCancel(ctx)
	log := cfg.Logger
	storage, err := jwkset.NewStorageFromHTTP(cfg.JWKSURL, jwkset.HTTPClientStorageOptions{
		Client:                    jwksClient(cfg.FetchTimeout),
		Ctx:                       ctx,
		HTTPTimeout:               cfg.FetchTimeout,
		NoErrorReturnFirstHTTPReq: true,
		RefreshInterval:           cfg.RefreshInterval,
		RefreshErrorHandler: func(ctx context.Context, err error) {
			log.ErrorContext(ctx, "identity provider key set fetch failed: sessions cannot be verified until it answers",
				"jwksUrl", cfg.JWKSURL, "error", err.Error())
		},
	})
	if err != nil {
		stop()
		return nil, fmt.Errorf("identity: OIDC_JWKS_URL: %w", err)
	}
	client, err := jwkset.NewHTTPClient(jwkset.HTTPClientOptions{
		HTTPURLs: map[string]jwkset.Storage{cfg.JWKSURL: storage},
		// A token with an unknown key id waits at most one fetch for the limiter: when the
		// limiter would make it wait longer it fails at once instead.
		RateLimitWaitMax:  cfg.FetchTimeout,
		RefreshUnknownKID: rate.NewLimiter(rate.Every(cfg.UnknownKeyRefreshInterval), 1),
	})
	if err != nil {
		stop()
		return nil, fmt.Errorf("identity: %w", err)
	}
	keys, err := keyfunc.New(keyfunc.Options{Ctx: ctx, Storage: client, UseWhitelist: []jwkset.USE{jwkset.UseSig, ""}})
	if err != nil {
		stop()
		return nil, fmt.Errorf("identity: %w", err)
	}
	parser := jwt.NewParser(jwt.WithValidMethods(oidcAlgorithms), jwt.WithIssuer(cfg.Issuer), jwt.WithAudience(cfg.Audience),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithLeeway(ClockSkew))
	return &OIDC{keys: keys, parser: parser, maxLifetime: cfg.MaxTokenLifetime, stop: stop}, nil
}

// check refuses a configuration that would verify nothing, or verify too much.
func (cfg OIDCConfig) check() error {
	if err := CheckProviderURL("OIDC_ISSUER", cfg.Issuer); err != nil {
		return err
	}
	if strings.TrimSpace(cfg.Audience) == "" {
		return errors.New("identity: OIDC_AUDIENCE is required: without it a token minted for any application of the provider would do")
	}
	if cfg.JWKSURL != "" {
		if err := CheckProviderURL("OIDC_JWKS_URL", cfg.JWKSURL); err != nil {
			return err
		}
	}
	if cfg.MaxTokenLifetime <= 0 {
		return errors.New("identity: OIDC_MAX_TOKEN_LIFETIME must be positive")
	}
	return nil
}

func (cfg OIDCConfig) withDefaults() OIDCConfig {
	if cfg.JWKSURL == "" {
		cfg.JWKSURL = DefaultJWKSURL(cfg.Issuer)
	}
	if cfg.FetchTimeout <= 0 {
		cfg.FetchTimeout = DefaultJWKSTimeout
	}
	if cfg.RefreshInterval <= 0 {
		cfg.RefreshInterval = DefaultJWKSRefreshInterval
	}
	if cfg.UnknownKeyRefreshInterval <= 0 {
		cfg.UnknownKeyRefreshInterval = DefaultUnknownKeyRefreshInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return cfg
}

// CheckProviderURL accepts an https URL, or an http URL on a loopback host (a provider run on
// the same machine, as in tests): keys fetched in clear from elsewhere could be anyone's.
func CheckProviderURL(name, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("identity: %s must be an https URL", name)
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("identity: %s must be an https URL (http only on a loopback host)", name)
}

func isLoopback(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

// jwksClient fetches key sets within timeout, connecting included, follows no redirect (the
// configured origin is the one trusted) and reads at most maxJWKSBytes.
func jwksClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout:       timeout,
		Transport:     limitedBody{base: http.DefaultTransport},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// limitedBody caps a response body at maxJWKSBytes.
type limitedBody struct{ base http.RoundTripper }

func (l limitedBody) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = http.MaxBytesReader(nil, resp.Body, maxJWKSBytes)
	return resp, nil
}

// Close stops the background refresh.
func (o *OIDC) Close() { o.stop() }

// oidcClaims are the claims read from a provider token.
type oidcClaims struct {
	Email         string `json:"email"`
	EmailVerified *bool  `json:"email_verified"`
	jwt.RegisteredClaims
}

// VerifySession accepts an RS256 or ES256 token signed by a key of the provider's set, from
// the configured issuer, for the configured audience, with a subject, inside its validity
// (exp required, nbf and iat honoured with ClockSkew) and minted for no longer than the
// maximum lifetime. Every refusal is the same UNAUTHENTICATED answer.
func (o *OIDC) VerifySession(ctx context.Context, token string) (ports.Session, error) {
	refused := core.E(core.CodeUnauthenticated, "invalid or expired session token")
	if len(token) > maxTokenLength {
		return ports.Session{}, refused
	}
	var c oidcClaims
	if _, err := o.parser.ParseWithClaims(token, &c, o.keys.KeyfuncCtx(ctx)); err != nil {
		return ports.Session{}, refused
	}
	if c.Subject == "" || c.IssuedAt == nil || c.ExpiresAt.Sub(c.IssuedAt.Time) > o.maxLifetime {
		return ports.Session{}, refused
	}
	email := c.Email
	if c.EmailVerified != nil && !*c.EmailVerified {
		email = "" // an address the provider says it has not verified is not the user's
	}
	return ports.Session{UserID: c.Subject, Email: email, ExpiresAt: c.ExpiresAt.Time.UTC()}, nil
}
