// Package harness starts the real, fully wired Corridor service on a loopback port against a
// real PostgreSQL (see test/testdb) and gives tests an HTTP client and per-test tenants, so
// black-box tests run in parallel, each in its own tenant.
package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	nethttp "net/http"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/chain"
	"github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/adapters/identity"
	"github.com/corridorhq/corridor/adapters/outside"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/app/recipients"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/testdb"
	"github.com/corridorhq/corridor/wiring"
)

// SessionSecret signs the sandbox session tokens of tests.
const SessionSecret = "test-session-secret-0123456789abcdef-0123456789"

// Env is one running service.
type Env struct {
	BaseURL string
	// MetricsURL is the service's metrics listener (METRICS_ADDR in production), a separate
	// loopback port: the API's BaseURL never serves /metrics.
	MetricsURL  string
	DatabaseURL string
	Service     *wiring.Service
	Issuer      *identity.Sandbox
	// Chain is the simulated sandbox chain (MainWithChain only): tests read balances and
	// logs from it directly, as a partner would from a block explorer.
	Chain *chain.Adapter
	// StallChain, with MainWithOptions' StallableChain, makes the chain node stop answering
	// (true) or answer again (false), as a node that accepts connections and hangs would.
	StallChain func(stalled bool)
	stop       func()
	kill       func()
	contractState
}

var (
	shared     *Env
	sharedMods []func(*wiring.Config)
)

// Main is a package's TestMain: a fresh migrated database and one running service.
func Main(m *testing.M) { mainWith(m, false) }

// MainWithChain is Main with go-ethereum's simulated chain (id 84532, Safe v1.4.1 and
// TestUSDC deployed) serving the TEST environment.
func MainWithChain(m *testing.M) { mainWith(m, true) }

func mainWith(m *testing.M, withChain bool) { MainWithOptions(m, Options{Chain: withChain}) }

// Options choose how a package's shared service runs (MainWithOptions).
type Options struct {
	// Chain serves the TEST environment from the simulated chain (as MainWithChain).
	Chain bool
	// StallableChain (with Chain) puts chain.NewStallable under the chain adapter, bounded by
	// ChainRPCTimeout as a real node is, so a test can make the node stop answering
	// (Env.StallChain).
	StallableChain  bool
	ChainRPCTimeout time.Duration
	// ChainIntercept (with Chain) wraps the node client the chain adapter talks through, under
	// the stall and the RPC time-out (SimulatedOptions.Intercept): for faults a stall cannot
	// show, such as a node that takes a transaction and then stops answering.
	ChainIntercept func(chain.Client) chain.Client
	// Modify adjusts the shared service's configuration (for example a small pool).
	Modify func(*wiring.Config)
}

// MainWithOptions is Main with the options above.
//
// Every package runs with the outside-call guard on (adapters/outside): a call to the card
// issuer, SMS, screening, a payout provider or a chain write while a unit of work's transaction
// is open is refused, and the package fails after its tests, naming the calls.
func MainWithOptions(m *testing.M, opts Options) {
	guard := outside.Enforce(postgres.InUnitOfWork)
	testdb.MainThen(m, func(url string) error {
		if _, err := wiring.Migrate(context.Background(), url); err != nil {
			return err
		}
		var sim *chain.Adapter
		stall := func(bool) {}
		if opts.Chain {
			simOpts := chain.SimulatedOptions{RPCTimeout: opts.ChainRPCTimeout}
			if opts.StallableChain || opts.ChainIntercept != nil {
				simOpts.Intercept = func(c chain.Client) chain.Client {
					if opts.ChainIntercept != nil {
						c = opts.ChainIntercept(c)
					}
					if !opts.StallableChain {
						return c
					}
					s := chain.NewStallable(c)
					stall = s.Stall
					return s
				}
			}
			var err error
			if sim, err = chain.NewSimulated(context.Background(), simOpts); err != nil {
				return err
			}
			sharedMods = append(sharedMods, func(c *wiring.Config) {
				c.ChainAdapters = map[core.Environment]ports.Chain{core.EnvTest: sim}
			})
		}
		if opts.Modify != nil {
			sharedMods = append(sharedMods, opts.Modify)
		}
		env, err := start(url, nil)
		if err != nil {
			return err
		}
		env.Chain, env.StallChain = sim, stall
		shared = env
		return nil
	}, func() error {
		listMultiHome()
		return errors.Join(guard.Err(), postgres.ErrUnitsWithoutDeadline())
	})
}

// listMultiHome prints, when CORRIDOR_LIST_MULTI_HOME is set, the transfers the package's flows
// left touching the rows of more than one home (postgres.MultiHomeTransfers): how to find money
// that still crosses tenants in one transfer, suite by suite (docs/ledger.md).
func listMultiHome() {
	if os.Getenv("CORRIDOR_LIST_MULTI_HOME") == "" || shared == nil {
		return
	}
	crossing, err := postgres.MultiHomeTransfers(context.Background(), shared.Service.Store.DB())
	if err != nil {
		fmt.Fprintln(os.Stderr, "multi-home transfers:", err)
		return
	}
	fmt.Fprintf(os.Stderr, "multi-home transfers: %d\n", len(crossing))
	for _, c := range crossing {
		fmt.Fprintln(os.Stderr, "  "+c)
	}
}

// MainWithChainConfig is MainWithChain whose shared service runs with modify applied (for
// example a confirmation depth).
func MainWithChainConfig(m *testing.M, modify func(*wiring.Config)) {
	sharedMods = append(sharedMods, modify)
	mainWith(m, true)
}

// Shared returns the package's running service.
func Shared() *Env {
	if shared == nil {
		panic("harness: call harness.Main from TestMain")
	}
	return shared
}

// NewServer starts a second service on the same database with a modified configuration,
// stopped when the test ends (for example a tight rate limit).
func NewServer(t testing.TB, modify func(*wiring.Config)) *Env {
	t.Helper()
	env, err := start(Shared().DatabaseURL, modify)
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(env.stop)
	return env
}

// NewServerOn starts a service on another database (already migrated), stopped when the test
// ends: a cluster test's own primary with its standby.
func NewServerOn(t testing.TB, url string, modify func(*wiring.Config)) *Env {
	t.Helper()
	env, err := start(url, modify)
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(env.stop)
	return env
}

// DefaultConfig is the configuration tests run with: rate limiting generous enough for
// parallel tests, everything else as in production, the store's commit pipeline included
// (STORE_PIPELINE_LANES' default).
//
// CORRIDOR_TEST_PIPELINE_LANES=n gives every test server's store n lanes instead; 0 runs one
// transaction per unit of work (`make test-no-pipeline`), to check that the service behaves
// the same without the pipeline.
func DefaultConfig(url string) wiring.Config {
	cfg := defaultConfig(url)
	cfg.StorePipeline = postgres.PipelineOptions{Lanes: postgres.DefaultPipelineLanes}
	if n, err := strconv.Atoi(os.Getenv("CORRIDOR_TEST_PIPELINE_LANES")); err == nil && n >= 0 {
		cfg.StorePipeline = postgres.PipelineOptions{Lanes: n}
	}
	return cfg
}

func defaultConfig(url string) wiring.Config {
	return wiring.Config{
		DatabaseURL: url, SessionSecret: SessionSecret, DBMaxConns: 30, IdempotencyTTL: 24 * time.Hour,
		RateLimit: http.RateLimit{PerSecond: 10_000, Burst: 10_000},
		Chains:    wiring.ChainAddresses{SandboxUSDC: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", LiveUSDC: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"},
		// One key for every test server on the database, so phone hashes agree across them.
		CipherKey: "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
		Payouts: wiring.PayoutConfig{
			Modes: map[string]ports.ProviderMode{"internal": ports.ModeLive, "onchain": ports.ModeLive,
				"wallet_a": ports.ModeMock, "wallet_b": ports.ModeMock},
			WebhookSecrets: map[string]string{"wallet_a": WebhookSecret, "wallet_b": WebhookSecret},
			PollInterval:   150 * time.Millisecond,
			// Small, so the exhausted-polls path is reachable in a test; a payout the mock
			// finishes answers on its second poll, long before.
			PollWindow: 5 * time.Second,
			// Quick passes, so expiry and hold recheck are observable within a test.
			QuoteExpiryInterval: time.Second, HoldRecheckInterval: time.Second,
			// wallet_b's route liquidity is capped, so INSUFFICIENT_ROUTE_LIQUIDITY and the
			// operator's top-up are reachable.
			Liquidity: map[string]int64{"wallet_b": 1000 * 1_000_000},
		},
		OperatorToken:      OperatorToken,
		ClaimLinkRateLimit: http.RateLimit{PerSecond: 10_000, Burst: 10_000},
		// Parallel tests sign in to the console from one address.
		ConsoleSignInsPerMinute: 100_000,
		ClaimCodesPerIP:         10_000,
		// Every test client is 127.0.0.1: the per-IP alias budget is tested on its own server.
		AliasBudget: recipients.AliasBudget{PerIP: 10_000},
		// The ledger anchor sends a relayer transaction of its own: off, so that suites counting
		// the relayer's transactions or blocks see only theirs; test/anchors turns it on.
		LedgerAnchorInterval: -1,
	}
}

// OperatorToken is the operator token (docs/decisions/operations.md) of test servers.
const OperatorToken = "optok_test_0123456789abcdef0123456789abcdef"

// WebhookSecret is the wallet_a provider's webhook secret in tests.
const WebhookSecret = "whsec_test_wallet_a_0123456789"

// NewServerWithLog is NewServer whose JSON logs (info and up) go to w.
func NewServerWithLog(t testing.TB, w io.Writer) *Env {
	t.Helper()
	env, err := startWithLog(Shared().DatabaseURL, nil, slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})))
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(env.stop)
	return env
}

func start(url string, modify func(*wiring.Config)) (*Env, error) {
	level := slog.LevelWarn
	out := io.Writer(io.Discard)
	if os.Getenv("CORRIDOR_TEST_LOG") != "" {
		level, out = slog.LevelDebug, os.Stderr
	}
	return startWithLog(url, modify, slog.New(slog.NewJSONHandler(out, &slog.HandlerOptions{Level: level})))
}

func startWithLog(url string, modify func(*wiring.Config), log *slog.Logger) (*Env, error) {
	cfg := DefaultConfig(url)
	for _, mod := range sharedMods {
		mod(&cfg)
	}
	// The public origin is the listener's, as PUBLIC_BASE_URL would say in a deployment.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	cfg.PublicBaseURL = "http://" + ln.Addr().String()
	if modify != nil {
		modify(&cfg)
	}
	svc, err := wiring.Build(context.Background(), cfg, log)
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	if err := svc.StartWorkers(context.Background()); err != nil {
		svc.Close()
		return nil, err
	}
	metricsLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		svc.Close()
		return nil, err
	}
	metricsSrv := &nethttp.Server{Handler: svc.Metrics, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = metricsSrv.Serve(metricsLn) }()
	conns := &trackedListener{Listener: ln, open: map[net.Conn]struct{}{}}
	go func() { _ = svc.Server.Fiber().Listener(conns) }()
	issuer, err := identity.NewSandbox(cfg.SessionSecret)
	if err != nil {
		return nil, err
	}
	env := &Env{BaseURL: fmt.Sprintf("http://%s", ln.Addr()), MetricsURL: fmt.Sprintf("http://%s/metrics", metricsLn.Addr()),
		DatabaseURL: url, Service: svc, Issuer: issuer}
	var once sync.Once
	env.kill = func() {
		once.Do(func() {
			// No grace: the listener and every connection close now, the workers stop without
			// waiting for their jobs (left running, for another replica to rescue), and the
			// pools close under whatever was in flight.
			done, cancel := context.WithCancel(context.Background())
			cancel()
			conns.closeAll() // as the kernel resets a dead process's connections
			_ = svc.Server.Shutdown(done)
			_ = metricsSrv.Close()
			_ = svc.StopWorkers(done)
			svc.Close()
		})
	}
	env.stop = func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = svc.Server.Shutdown(ctx)
			_ = metricsSrv.Shutdown(ctx)
			_ = svc.StopWorkers(ctx)
			svc.Close()
		})
	}
	return env, nil
}

// Stop stops the service as SIGTERM stops a replica: it refuses new connections, finishes the
// requests and jobs in flight, and closes its pools. Stopping twice is harmless.
func (e *Env) Stop() { e.stop() }

// Kill ends the service as abruptly as a process can end inside a test: connections closed,
// requests and jobs cut off where they are (jobs stay running in River's table until another
// replica rescues them). The crash tests (test/crash) kill the real binary with SIGKILL.
// Killing (or stopping) twice is harmless; Stop after Kill does nothing.
func (e *Env) Kill() { e.kill() }

// trackedListener keeps the connections it accepted, so Kill can reset them all at once, as the
// kernel does for a process that dies: a keep-alive connection to a killed replica must fail,
// not be served by what is left of it.
type trackedListener struct {
	net.Listener
	mu   sync.Mutex
	open map[net.Conn]struct{}
}

func (l *trackedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open[c] = struct{}{}
	return killableConn{Conn: c, l: l}, nil
}

// killableConn is a connection the kill may reset under the server: its deadlines are set
// quietly once it is closed (fasthttp panics on a deadline it cannot set), and its reads and
// writes fail, which ends the server's handling of it.
type killableConn struct {
	net.Conn
	l *trackedListener
}

// Close forgets the connection, so a long-lived server's list holds only open ones.
func (c killableConn) Close() error {
	c.l.mu.Lock()
	delete(c.l.open, c.Conn)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

func (c killableConn) SetDeadline(t time.Time) error      { _ = c.Conn.SetDeadline(t); return nil }
func (c killableConn) SetReadDeadline(t time.Time) error  { _ = c.Conn.SetReadDeadline(t); return nil }
func (c killableConn) SetWriteDeadline(t time.Time) error { _ = c.Conn.SetWriteDeadline(t); return nil }

func (l *trackedListener) closeAll() {
	_ = l.Listener.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.open {
		_ = c.Close()
	}
	l.open = map[net.Conn]struct{}{}
}

// WalletTenant is the wallet's tenant, read from its row: the home of the wallet's mirror
// account, which a ledger read by reference names.
func (e *Env) WalletTenant(t testing.TB, walletID string) string {
	t.Helper()
	var tenantID string
	err := e.Service.Store.DB().QueryRowContext(context.Background(), `SELECT tenant_id FROM wallets WHERE id = ?`, walletID).Scan(&tenantID)
	if err != nil {
		t.Fatal(err)
	}
	return tenantID
}
