// Package apiload is what the API benchmarks share (bench/cluster, bench/citus): a replica of
// the service built in the benchmark's process on a database, a tenant with a root key made
// through the API, and the money path's requests sent with a plain HTTP client.
package apiload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	corridorhttp "github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/adapters/identity"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/wiring"
)

// SessionSecret signs the sandbox sessions the tenants are made with.
const SessionSecret = "bench-cluster-session-secret-0123456789abcdef"

// StartReplica builds one replica on the primary and serves it on a loopback port.
func StartReplica(ctx context.Context, url string, shared bool) (string, func(), error) {
	cfg := wiring.Config{
		DatabaseURL: url, SessionSecret: SessionSecret, DBMaxConns: 20, IdempotencyTTL: 24 * time.Hour,
		RateLimit:        corridorhttp.RateLimit{PerSecond: 1e9, Burst: 1_000_000_000},
		SharedRateLimits: shared,
		CipherKey:        "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
		Chains:           wiring.ChainAddresses{SandboxUSDC: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", LiveUSDC: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"},
	}
	svc, err := wiring.Build(ctx, cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		svc.Close()
		return "", nil, err
	}
	if err := svc.StartWorkers(ctx); err != nil {
		svc.Close()
		return "", nil, err
	}
	go func() { _ = svc.Server.Fiber().Listener(ln) }()
	return "http://" + ln.Addr().String(), func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = svc.Server.Shutdown(stopCtx)
		_ = svc.StopWorkers(stopCtx)
		svc.Close()
	}, nil
}

// NewTenant makes a tenant and a root TEST key through base.
func NewTenant(client *http.Client, base string) (string, error) {
	issuer, err := identity.NewSandbox(SessionSecret)
	if err != nil {
		return "", err
	}
	user := core.NewID("usr")
	token, err := issuer.IssueSession(user, user+"@example.com", time.Hour)
	if err != nil {
		return "", err
	}
	auth := map[string]string{"Authorization": "Bearer " + token}
	if _, err := Call(client, "POST", base+"/v1/tenants", auth, map[string]any{"name": "Bench " + user}, 201); err != nil {
		return "", err
	}
	body, err := Call(client, "POST", base+"/v1/api-keys", auth, map[string]any{"name": "bench", "scopes": []string{"*"}}, 201)
	if err != nil {
		return "", err
	}
	var key struct {
		Key string `json:"key"`
	}
	return key.Key, json.Unmarshal(body, &key)
}

// Pair is one deposit and one balance read.
func Pair(client *http.Client, base, key string, n int64) error {
	if err := Deposit(client, base, key, n); err != nil {
		return err
	}
	_, err := Call(client, "GET", base+"/v1/balances", map[string]string{"X-Service-Api-Key": key}, nil, 200)
	return err
}

// Deposit is one idempotent $1 sandbox deposit (one ledger transfer and its idempotency record),
// keyed by n.
func Deposit(client *http.Client, base, key string, n int64) error {
	headers := map[string]string{"X-Service-Api-Key": key, "Idempotency-Key": "bench-" + strconv.FormatInt(n, 10)}
	_, err := Call(client, "POST", base+"/v1/sandbox/balance-deposits", headers, map[string]any{"amountUsd": "1"}, 201)
	return err
}

// Call sends one JSON request and returns the body of an answer with the status want.
func Call(client *http.Client, method, url string, headers map[string]string, body any, want int) ([]byte, error) {
	var reader io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		reader = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, url, reader)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, errors.New(method + " " + url + ": " + resp.Status + " " + string(raw))
	}
	return raw, nil
}

// LoadAverage is the machine's one-minute load average, as text.
func LoadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(raw))[:1], "")
}
