package ports

import (
	"context"
	"time"
)

// Clock gives the time; tests pin it.
type Clock interface{ Now() time.Time }

// SystemClock is the wall clock in UTC, truncated to microseconds (Postgres precision), so a
// value read back from the database equals the value written.
type SystemClock struct{}

// Now returns the current UTC time.
func (SystemClock) Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// Session is a verified identity-provider session.
type Session struct {
	UserID    string
	Email     string
	ExpiresAt time.Time
}

// Identity verifies identity-provider session tokens (docs/decisions/tenancy.md).
type Identity interface {
	// VerifySession returns the session or an UNAUTHENTICATED error.
	VerifySession(ctx context.Context, token string) (Session, error)
}

// SessionIssuer mints sandbox session tokens (`corridor session`). Real providers mint their own.
type SessionIssuer interface {
	IssueSession(userID, email string, ttl time.Duration) (string, error)
}
