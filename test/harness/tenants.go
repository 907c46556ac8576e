package harness

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

var userSeq, tenantSeq atomic.Int64

// Tenant is a fresh tenant with its owner's session and a root TEST key.
type Tenant struct {
	ID      string
	UserID  string
	Session *Client
	// SessionToken is the owner's session token behind Session.
	SessionToken string
	Root         *Client
	RootKey      string
}

// NewUser mints a session token for a fresh identity-provider user.
func (e *Env) NewUser(t testing.TB) (userID, token string) {
	t.Helper()
	return e.newUser(t, func(userID string) string { return userID + "@example.com" })
}

// newUser mints a session for a fresh user whose verified email emailOf derives from its id.
func (e *Env) newUser(t testing.TB, emailOf func(userID string) string) (userID, token string) {
	t.Helper()
	userID = core.NewID("usr") + "_" + string(rune('a'+userSeq.Add(1)%26))
	token, err := e.Issuer.IssueSession(userID, emailOf(userID), time.Hour)
	if err != nil {
		t.Fatalf("issue session: %v", err)
	}
	return userID, token
}

// NewTenant creates a tenant owned by a fresh user, and a root TEST key.
func (e *Env) NewTenant(t testing.TB) *Tenant {
	t.Helper()
	userID, token := e.NewUser(t)
	session := e.Client(t).WithSession(token)
	// A distinct name per tenant: slugs derive from names and only so many numeric variants
	// of one slug are tried, so a package creating many tenants would run out.
	name := "Test Tenant " + strconv.FormatInt(tenantSeq.Add(1), 10)
	tenant := session.Post("/v1/tenants", map[string]any{"name": name}).Expect(t, 201).JSON(t)
	key := e.NewKey(t, session, map[string]any{"name": "root", "scopes": []string{"*"}})
	id := tenant["id"].(string)
	return &Tenant{ID: id, UserID: userID, Session: session, SessionToken: token, Root: e.Client(t).WithKey(key).ofTenant(id), RootKey: key}
}

// NewKey creates a key through creator and returns its plaintext.
func (e *Env) NewKey(t testing.TB, creator *Client, body map[string]any) string {
	t.Helper()
	resp := creator.Post("/v1/api-keys", body).Expect(t, 201).JSON(t)
	return resp["key"].(string)
}

// SessionFor mints a session for a fresh identity-provider user whose verified email is email,
// the way an invitee signs in to accept an invite (docs/decisions/tenancy.md).
func (e *Env) SessionFor(t testing.TB, email string) (userID string, c *Client) {
	t.Helper()
	userID, token := e.NewUserWithEmail(t, email)
	return userID, e.Client(t).WithSession(token)
}

// AcceptInvite accepts an invite as its invitee: a fresh session of the invited email.
func (e *Env) AcceptInvite(t testing.TB, email, token string, body map[string]any) *Response {
	t.Helper()
	_, c := e.SessionFor(t, email)
	if body == nil {
		body = map[string]any{}
	}
	body["token"] = token
	return c.Post("/v1/tenants/members/accept", body)
}

// NewUserWithEmail mints a session token for a fresh identity-provider user whose verified
// email is email.
func (e *Env) NewUserWithEmail(t testing.TB, email string) (userID, token string) {
	t.Helper()
	return e.newUser(t, func(string) string { return email })
}
