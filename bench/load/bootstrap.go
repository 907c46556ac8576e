package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/corridorhq/corridor/adapters/identity"
)

// env is what scenarios build their targets from.
type env struct {
	BaseURL  string
	RunID    string // unique per run, so names, e-mails and idempotency keys never collide
	TenantID string
	RootKey  string // X-Service-Api-Key with scopes ["*"]
	// MembersKey is a LIVE root key: inviting a member grants a role in both environments, so
	// only a credential holding LIVE powers may do it (docs/decisions/tenancy.md); the invite scenarios use it.
	MembersKey string
	HTTP       *http.Client
	// session mints a session token for a new user named by suffix (the money scenarios'
	// tenants); nil when the bench was given a token rather than a secret.
	session func(suffix string) (string, error)
	// tenants are the money scenarios' tenants, created by the first of them (money.go).
	tenants []tenantKey
}

var setupClient = &http.Client{Timeout: 30 * time.Second}

// bootstrap creates a fresh tenant and a root key over HTTP, and says which credential it used.
func bootstrap(ctx context.Context, t *target, token string) (*env, string, error) {
	runID, err := randomHex(4)
	if err != nil {
		return nil, "", err
	}
	how := "session token from -session-token"
	secret := t.secret
	if secret != "" {
		token, err = mint(secret, runID)
		how = "session minted with the SESSION_SECRET given to the started service"
	} else if token == "" {
		secret, how, err = sessionSecret()
		if err == nil {
			token, err = mint(secret, runID)
		}
	}
	if err != nil {
		return nil, "", err
	}
	e := &env{BaseURL: t.baseURL, RunID: runID, HTTP: setupClient}
	e.session = func(suffix string) (string, error) {
		if secret == "" {
			return "", errors.New("the money scenarios create tenants of their own: give the bench a session secret ($SESSION_SECRET), not -session-token")
		}
		return mint(secret, suffix)
	}
	session := http.Header{"Authorization": {"Bearer " + token}}

	var tenant struct {
		ID string `json:"id"`
	}
	if err := e.call(ctx, http.MethodPost, "/v1/tenants", session, map[string]any{"name": "Bench " + runID}, &tenant, 200, 201); err != nil {
		return nil, "", fmt.Errorf("create tenant: %w", err)
	}
	var key struct {
		Key string `json:"key"`
	}
	if err := e.call(ctx, http.MethodPost, "/v1/api-keys", session, map[string]any{"name": "bench", "scopes": []string{"*"}}, &key, 201); err != nil {
		return nil, "", fmt.Errorf("create root key: %w", err)
	}
	var members struct {
		Key string `json:"key"`
	}
	if err := e.call(ctx, http.MethodPost, "/v1/api-keys", session, map[string]any{"name": "bench members", "environment": "live", "scopes": []string{"*"}}, &members, 201); err != nil {
		return nil, "", fmt.Errorf("create LIVE root key: %w", err)
	}
	if key.Key == "" || members.Key == "" || tenant.ID == "" {
		return nil, "", errors.New("tenant or key missing from the responses")
	}
	e.TenantID, e.RootKey, e.MembersKey = tenant.ID, key.Key, members.Key
	return e, how, nil
}

// sessionSecret finds the secret `corridor session` would use: $SESSION_SECRET, else
// <$CORRIDOR_DATA_DIR or .data>/session.secret.
func sessionSecret() (secret, how string, err error) {
	if s := os.Getenv("SESSION_SECRET"); s != "" {
		return s, "session minted with $SESSION_SECRET", nil
	}
	dir := os.Getenv("CORRIDOR_DATA_DIR")
	if dir == "" {
		dir = ".data"
	}
	path := filepath.Join(dir, "session.secret")
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", fmt.Errorf("no -session-token, no $SESSION_SECRET and %w; pass one of them", err)
	}
	return strings.TrimSpace(string(b)), "session minted with the secret in " + path, nil
}

func mint(secret, runID string) (string, error) {
	idp, err := identity.NewSandbox(secret)
	if err != nil {
		return "", err
	}
	return idp.IssueSession("usr_bench_"+runID, "bench-"+runID+"@example.com", time.Hour)
}

// call sends a JSON request for a scenario's or the bootstrap's setup and decodes the answer
// into out when its status is one of want. A 429 is retried after its Retry-After, a few times.
func (e *env) call(ctx context.Context, method, path string, hdr http.Header, body, out any, want ...int) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		status, wait, b, err := e.send(ctx, method, path, hdr, raw)
		if err != nil {
			return err
		}
		if slices.Contains(want, status) {
			if out == nil {
				return nil
			}
			return json.Unmarshal(b, out)
		}
		if status != http.StatusTooManyRequests || attempt == 5 {
			return fmt.Errorf("%s %s: status %d: %s", method, path, status, bytes.TrimSpace(b))
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (e *env) send(ctx context.Context, method, path string, hdr http.Header, body []byte) (status int, retryAfter time.Duration, b []byte, err error) {
	req, err := http.NewRequestWithContext(ctx, method, e.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return 0, 0, nil, err
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.HTTP.Do(req)
	if err != nil {
		return 0, 0, nil, err
	}
	defer resp.Body.Close()
	b, err = io.ReadAll(resp.Body)
	retryAfter = time.Second
	if s, perr := strconv.Atoi(resp.Header.Get("Retry-After")); perr == nil && s > 0 {
		retryAfter = time.Duration(s) * time.Second
	}
	return resp.StatusCode, retryAfter, b, err
}
