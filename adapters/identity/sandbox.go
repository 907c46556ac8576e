// Package identity adapts identity providers. Sandbox verifies and mints HS256 session tokens
// signed with a configured secret (docs/decisions/tenancy.md); a real provider's adapter would verify with its JWKS.
package identity

import (
	"context"
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// Issuer is the iss claim of sandbox session tokens.
const Issuer = "corridor-sandbox"

// MinSecretLength bounds the HMAC secret so a short dev secret is refused at start-up.
const MinSecretLength = 32

// Sandbox is the HS256 identity provider.
type Sandbox struct {
	secret []byte
}

var (
	_ ports.Identity      = (*Sandbox)(nil)
	_ ports.SessionIssuer = (*Sandbox)(nil)
)

// NewSandbox checks the secret length.
func NewSandbox(secret string) (*Sandbox, error) {
	if len(secret) < MinSecretLength {
		return nil, errors.New("identity: session secret must be at least 32 characters")
	}
	return &Sandbox{secret: []byte(secret)}, nil
}

type claims struct {
	Email string `json:"email"`
	jwt.RegisteredClaims
}

// IssueSession mints a token for userID valid for ttl.
func (s *Sandbox) IssueSession(userID, email string, ttl time.Duration) (string, error) {
	if userID == "" {
		return "", errors.New("identity: user id is required")
	}
	now := time.Now()
	c := claims{Email: email, RegisteredClaims: jwt.RegisteredClaims{
		Issuer: Issuer, Subject: userID,
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
	}}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(s.secret)
}

// VerifySession accepts only HS256 tokens from this issuer with a subject and an expiry.
func (s *Sandbox) VerifySession(_ context.Context, token string) (ports.Session, error) {
	var c claims
	_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return s.secret, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithIssuer(Issuer), jwt.WithExpirationRequired())
	if err != nil || c.Subject == "" {
		return ports.Session{}, core.E(core.CodeUnauthenticated, "invalid or expired session token")
	}
	return ports.Session{UserID: c.Subject, Email: c.Email, ExpiresAt: c.ExpiresAt.Time.UTC()}, nil
}
