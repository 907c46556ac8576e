// Command cluster is `make bench-cluster`: the capacity model's measurement (docs/scaling.md).
// It starts a throwaway PostgreSQL primary, then for each run one or more replicas of the
// service in this process on it, and drives the same mixed load round robin across the
// replicas with plain HTTP clients: an idempotent sandbox deposit (one ledger transfer with
// its idempotency record), then a balance read. It prints requests and transfers per second
// of wall time, with the load average around each run.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corridorhttp "github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/adapters/identity"
	"github.com/corridorhq/corridor/adapters/pgcluster"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/wiring"
)

const sessionSecret = "bench-cluster-session-secret-0123456789abcdef"

type run struct {
	replicas int
	limits   string // memory or postgres
}

func main() {
	runs := flag.String("runs", "1:memory,1:postgres,3:postgres", "replicas:limits of each run")
	requests := flag.Int("requests", 6000, "deposit+read pairs per run")
	concurrency := flag.Int("concurrency", 32, "clients sending at once")
	tenants := flag.Int("tenants", 32, "tenants the deposits spread over")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := measure(ctx, *runs, *requests, *concurrency, *tenants); err != nil {
		fmt.Fprintln(os.Stderr, "bench-cluster:", err)
		os.Exit(1)
	}
}

func measure(ctx context.Context, spec string, requests, concurrency, tenants int) error {
	var runs []run
	for _, item := range strings.Split(spec, ",") {
		n, limits, ok := strings.Cut(strings.TrimSpace(item), ":")
		replicas, err := strconv.Atoi(n)
		if !ok || err != nil || replicas < 1 || (limits != "memory" && limits != "postgres") {
			return fmt.Errorf("bad run %q: want replicas:memory|postgres", item)
		}
		runs = append(runs, run{replicas: replicas, limits: limits})
	}
	fmt.Printf("%-9s %-8s %9s %9s %12s %12s %s\n", "replicas", "limits", "requests", "seconds", "requests/s", "transfers/s", "load average")
	for _, r := range runs {
		if err := measureOne(ctx, r, requests, concurrency, tenants); err != nil {
			return err
		}
	}
	return nil
}

// measureOne runs on a fresh primary, so every run starts from the same empty database.
func measureOne(ctx context.Context, r run, requests, concurrency, tenants int) error {
	primary, err := pgcluster.NewThrowaway(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = primary.Remove() }()
	if err := primary.CreateDatabase(ctx, "corridor"); err != nil {
		return err
	}
	url := primary.URL("corridor")
	if _, err := wiring.Migrate(ctx, url); err != nil {
		return err
	}
	bases := make([]string, r.replicas)
	for i := range bases {
		base, stopReplica, err := startReplica(ctx, url, r.limits == "postgres")
		if err != nil {
			return err
		}
		defer stopReplica()
		bases[i] = base
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: concurrency}}
	keys := make([]string, tenants)
	for i := range keys {
		if keys[i], err = newTenant(client, bases[i%len(bases)]); err != nil {
			return err
		}
	}
	loadBefore := loadAverage()
	start := time.Now()
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				n := next.Add(1)
				if n > int64(requests) || failed.Load() != nil {
					return
				}
				base, key := bases[int(n)%len(bases)], keys[int(n)%len(keys)]
				if err := pair(client, base, key, n); err != nil {
					failed.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	if err, _ := failed.Load().(error); err != nil {
		return err
	}
	fmt.Printf("%-9d %-8s %9d %9.2f %12.0f %12.0f %s → %s\n", r.replicas, r.limits, 2*requests, elapsed,
		float64(2*requests)/elapsed, float64(requests)/elapsed, loadBefore, loadAverage())
	return nil
}

// startReplica builds one replica on the primary and serves it on a loopback port.
func startReplica(ctx context.Context, url string, shared bool) (string, func(), error) {
	cfg := wiring.Config{
		DatabaseURL: url, SessionSecret: sessionSecret, DBMaxConns: 20, IdempotencyTTL: 24 * time.Hour,
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

// newTenant makes a tenant and a root TEST key through base.
func newTenant(client *http.Client, base string) (string, error) {
	issuer, err := identity.NewSandbox(sessionSecret)
	if err != nil {
		return "", err
	}
	user := core.NewID("usr")
	token, err := issuer.IssueSession(user, user+"@example.com", time.Hour)
	if err != nil {
		return "", err
	}
	auth := map[string]string{"Authorization": "Bearer " + token}
	if _, err := call(client, "POST", base+"/v1/tenants", auth, map[string]any{"name": "Bench " + user}, 201); err != nil {
		return "", err
	}
	body, err := call(client, "POST", base+"/v1/api-keys", auth, map[string]any{"name": "bench", "scopes": []string{"*"}}, 201)
	if err != nil {
		return "", err
	}
	var key struct {
		Key string `json:"key"`
	}
	return key.Key, json.Unmarshal(body, &key)
}

// pair is one deposit and one balance read.
func pair(client *http.Client, base, key string, n int64) error {
	headers := map[string]string{"X-Service-Api-Key": key, "Idempotency-Key": "bench-" + strconv.FormatInt(n, 10)}
	if _, err := call(client, "POST", base+"/v1/sandbox/balance-deposits", headers, map[string]any{"amountUsd": "1"}, 201); err != nil {
		return err
	}
	_, err := call(client, "GET", base+"/v1/balances", map[string]string{"X-Service-Api-Key": key}, nil, 200)
	return err
}

func call(client *http.Client, method, url string, headers map[string]string, body any, want int) ([]byte, error) {
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

func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(raw))[:1], "")
}
