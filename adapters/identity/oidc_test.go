package identity

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/corridorhq/corridor/core"
)

const (
	testAudience = "https://api.corridor.test"
	testLifetime = time.Hour
)

// provider is an identity provider run by the test on loopback: it signs tokens with its
// keys and publishes the public halves as a JWKS, counting the fetches.
type provider struct {
	t       *testing.T
	server  *httptest.Server
	issuer  string
	mu      sync.Mutex
	keys    map[string]crypto.Signer // kid → key; published
	fetches atomic.Int32
}

func newProvider(t *testing.T) *provider {
	t.Helper()
	p := &provider{t: t, keys: map[string]crypto.Signer{}}
	p.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		p.fetches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(p.jwks())
	}))
	t.Cleanup(p.server.Close)
	p.issuer = p.server.URL + "/"
	return p
}

// addRSA and addEC generate and publish a key under kid.
func (p *provider) addRSA(kid string) *rsa.PrivateKey {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		p.t.Fatal(err)
	}
	p.publish(kid, key)
	return key
}

func (p *provider) addEC(kid string) *ecdsa.PrivateKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		p.t.Fatal(err)
	}
	p.publish(kid, key)
	return key
}

func (p *provider) publish(kid string, key crypto.Signer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys[kid] = key
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jwks is the published key set, written by hand from the keys so the test does not trust
// the library it checks to describe them.
func (p *provider) jwks() map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	var keys []map[string]any
	for kid, key := range p.keys {
		switch k := key.(type) {
		case *rsa.PrivateKey:
			keys = append(keys, map[string]any{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
				"n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())})
		case *ecdsa.PrivateKey:
			der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
			if err != nil {
				p.t.Fatal(err)
			}
			pub, _ := x509.ParsePKIXPublicKey(der)
			ecdh, err := pub.(*ecdsa.PublicKey).ECDH()
			if err != nil {
				p.t.Fatal(err)
			}
			point := ecdh.Bytes() // 0x04 || X || Y
			keys = append(keys, map[string]any{"kty": "EC", "kid": kid, "use": "sig", "alg": "ES256", "crv": "P-256",
				"x": b64(point[1:33]), "y": b64(point[33:])})
		}
	}
	return map[string]any{"keys": keys}
}

// claims are a valid token's claims for this provider; tests change one field.
func (p *provider) claims() jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{"iss": p.issuer, "aud": []string{testAudience, "other"}, "sub": "auth0|user-1",
		"email": "ana@example.com", "email_verified": true,
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(10 * time.Minute).Unix()}
}

func sign(t *testing.T, method jwt.SigningMethod, kid string, key any, claims jwt.MapClaims) string {
	t.Helper()
	token := jwt.NewWithClaims(method, claims)
	if kid != "" {
		token.Header["kid"] = kid
	}
	s, err := token.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (p *provider) verifier(t *testing.T, mutate func(*OIDCConfig)) *OIDC {
	t.Helper()
	cfg := OIDCConfig{Issuer: p.issuer, Audience: testAudience, JWKSURL: p.server.URL + "/jwks",
		MaxTokenLifetime: testLifetime, FetchTimeout: time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if mutate != nil {
		mutate(&cfg)
	}
	v, err := NewOIDC(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	return v
}

func isUnauthenticated(err error) bool {
	return errors.Is(err, &core.Error{Code: core.CodeUnauthenticated})
}

func TestOIDC_Verify(t *testing.T) {
	p := newProvider(t)
	rsaKey := p.addRSA("rsa-1")
	ecKey := p.addEC("ec-1")
	v := p.verifier(t, nil)
	ctx := context.Background()

	t.Run("a valid RS256 token", func(t *testing.T) {
		s, err := v.VerifySession(ctx, sign(t, jwt.SigningMethodRS256, "rsa-1", rsaKey, p.claims()))
		if err != nil {
			t.Fatal(err)
		}
		if s.UserID != "auth0|user-1" || s.Email != "ana@example.com" || time.Until(s.ExpiresAt) < 9*time.Minute {
			t.Fatalf("session %+v", s)
		}
	})
	t.Run("a valid ES256 token", func(t *testing.T) {
		if _, err := v.VerifySession(ctx, sign(t, jwt.SigningMethodES256, "ec-1", ecKey, p.claims())); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("an unverified email is dropped", func(t *testing.T) {
		c := p.claims()
		c["email_verified"] = false
		s, err := v.VerifySession(ctx, sign(t, jwt.SigningMethodRS256, "rsa-1", rsaKey, c))
		if err != nil || s.Email != "" {
			t.Fatalf("session %+v, %v", s, err)
		}
	})

	now := time.Now()
	hmacWithPublicKey := func() string {
		// The classic confusion: HS256 keyed with the provider's public key, which anyone has.
		der, err := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
		if err != nil {
			t.Fatal(err)
		}
		return sign(t, jwt.SigningMethodHS256, "rsa-1", der, p.claims())
	}
	for _, tc := range []struct {
		name  string
		token func() string
	}{
		{"wrong issuer", func() string {
			c := p.claims()
			c["iss"] = "https://evil.example/"
			return sign(t, jwt.SigningMethodRS256, "rsa-1", rsaKey, c)
		}},
		{"wrong audience", func() string {
			c := p.claims()
			c["aud"] = "https://another-app.example"
			return sign(t, jwt.SigningMethodRS256, "rsa-1", rsaKey, c)
		}},
		{"expired", func() string {
			c := p.claims()
			c["iat"], c["nbf"], c["exp"] = now.Add(-time.Hour).Unix(), now.Add(-time.Hour).Unix(), now.Add(-time.Minute).Unix()
			return sign(t, jwt.SigningMethodRS256, "rsa-1", rsaKey, c)
		}},
		{"no expiry", func() string {
			c := p.claims()
			delete(c, "exp")
			return sign(t, jwt.SigningMethodRS256, "rsa-1", rsaKey, c)
		}},
		{"lifetime over the maximum", func() string {
			c := p.claims()
			c["exp"] = now.Add(testLifetime + time.Minute).Unix()
			return sign(t, jwt.SigningMethodES256, "ec-1", ecKey, c)
		}},
		{"no issued-at, so no provable lifetime", func() string {
			c := p.claims()
			delete(c, "iat")
			return sign(t, jwt.SigningMethodRS256, "rsa-1", rsaKey, c)
		}},
		{"not yet valid", func() string {
			c := p.claims()
			c["nbf"] = now.Add(5 * time.Minute).Unix()
			return sign(t, jwt.SigningMethodRS256, "rsa-1", rsaKey, c)
		}},
		{"issued in the future", func() string {
			c := p.claims()
			c["iat"] = now.Add(5 * time.Minute).Unix()
			return sign(t, jwt.SigningMethodRS256, "rsa-1", rsaKey, c)
		}},
		{"no subject", func() string {
			c := p.claims()
			delete(c, "sub")
			return sign(t, jwt.SigningMethodRS256, "rsa-1", rsaKey, c)
		}},
		{"alg none", func() string {
			return sign(t, jwt.SigningMethodNone, "rsa-1", jwt.UnsafeAllowNoneSignatureType, p.claims())
		}},
		{"HS256 with a shared secret", func() string {
			return sign(t, jwt.SigningMethodHS256, "rsa-1", []byte("0123456789abcdef0123456789abcdef"), p.claims())
		}},
		{"HS256 keyed with the public key", hmacWithPublicKey},
		{"RS256 header over an EC key's signature", func() string {
			return sign(t, jwt.SigningMethodES256, "rsa-1", ecKey, p.claims())
		}},
		{"signed by a key the provider never published", func() string {
			stranger, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				t.Fatal(err)
			}
			return sign(t, jwt.SigningMethodRS256, "rsa-1", stranger, p.claims())
		}},
		{"oversized", func() string {
			c := p.claims()
			c["pad"] = string(make([]byte, maxTokenLength))
			return sign(t, jwt.SigningMethodRS256, "rsa-1", rsaKey, c)
		}},
		{"not a token", func() string { return "not.a.token" }},
	} {
		t.Run("refused: "+tc.name, func(t *testing.T) {
			if _, err := v.VerifySession(ctx, tc.token()); !isUnauthenticated(err) {
				t.Fatalf("err = %v, want UNAUTHENTICATED", err)
			}
		})
	}
}

// TestOIDC_UnknownKeyRefreshesOnce: a token signed by a key the provider published after our
// fetch is verified after one fetch; a second unknown key id right after fetches nothing.
func TestOIDC_UnknownKeyRefreshesOnce(t *testing.T) {
	p := newProvider(t)
	p.addRSA("old")
	v := p.verifier(t, nil)
	ctx := context.Background()
	if got := p.fetches.Load(); got != 1 {
		t.Fatalf("%d fetches at start, want 1", got)
	}
	rotated := p.addEC("rotated")
	if _, err := v.VerifySession(ctx, sign(t, jwt.SigningMethodES256, "rotated", rotated, p.claims())); err != nil {
		t.Fatalf("token of the rotated key: %v", err)
	}
	if got := p.fetches.Load(); got != 2 {
		t.Fatalf("%d fetches after an unknown key id, want 2", got)
	}
	// Known key ids fetch nothing.
	if _, err := v.VerifySession(ctx, sign(t, jwt.SigningMethodES256, "rotated", rotated, p.claims())); err != nil {
		t.Fatal(err)
	}
	// Made-up key ids in a burst: refused at once, without another fetch.
	for i := range 5 {
		start := time.Now()
		_, err := v.VerifySession(ctx, sign(t, jwt.SigningMethodES256, "made-up", rotated, p.claims()))
		if !isUnauthenticated(err) {
			t.Fatalf("made-up key id %d: %v", i, err)
		}
		if took := time.Since(start); took > 500*time.Millisecond {
			t.Fatalf("made-up key id %d took %s", i, took)
		}
	}
	if got := p.fetches.Load(); got != 2 {
		t.Fatalf("%d fetches after a burst of made-up key ids, want still 2", got)
	}
}

// TestOIDC_HangingJWKSTimesOut: a key set endpoint that accepts the request and never answers
// delays neither the start nor a verification past the fetch time-out.
func TestOIDC_HangingJWKSTimesOut(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); hang.Close() })
	const timeout = 300 * time.Millisecond
	start := time.Now()
	v, err := NewOIDC(context.Background(), OIDCConfig{Issuer: hang.URL, Audience: testAudience, MaxTokenLifetime: testLifetime,
		FetchTimeout: timeout, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	if took := time.Since(start); took > timeout+time.Second {
		t.Fatalf("start took %s with a hanging key set, time-out %s", took, timeout)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	token := sign(t, jwt.SigningMethodES256, "k1", key, jwt.MapClaims{"iss": hang.URL, "aud": testAudience, "sub": "u",
		"iat": now.Unix(), "exp": now.Add(time.Minute).Unix()})
	start = time.Now()
	if _, err := v.VerifySession(context.Background(), token); !isUnauthenticated(err) {
		t.Fatalf("err = %v, want UNAUTHENTICATED", err)
	}
	if took := time.Since(start); took > timeout+time.Second {
		t.Fatalf("verification took %s with a hanging key set, time-out %s", took, timeout)
	}
}

func TestOIDC_Config(t *testing.T) {
	valid := OIDCConfig{Issuer: "https://id.example/", Audience: testAudience, MaxTokenLifetime: time.Hour}
	for _, tc := range []struct {
		name   string
		mutate func(*OIDCConfig)
	}{
		{"no issuer", func(c *OIDCConfig) { c.Issuer = "" }},
		{"http issuer off loopback", func(c *OIDCConfig) { c.Issuer = "http://id.example/" }},
		{"no audience", func(c *OIDCConfig) { c.Audience = " " }},
		{"http key set off loopback", func(c *OIDCConfig) { c.JWKSURL = "http://id.example/keys" }},
		{"no lifetime bound", func(c *OIDCConfig) { c.MaxTokenLifetime = 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := valid
			tc.mutate(&cfg)
			if err := cfg.check(); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	if err := valid.check(); err != nil {
		t.Fatal(err)
	}
	if got := DefaultJWKSURL("https://id.example/"); got != "https://id.example/.well-known/jwks.json" {
		t.Fatalf("default JWKS URL %s", got)
	}
}
