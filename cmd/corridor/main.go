// Command corridor is the composition root: `corridor run` (local, with its own PostgreSQL),
// `corridor serve`, `corridor migrate`, `corridor session`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/corridorhq/corridor/adapters/console"
	"github.com/corridorhq/corridor/adapters/identity"
	"github.com/corridorhq/corridor/adapters/pgcluster"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/wiring"
)

const usage = `corridor — money movement for partner platforms

Usage:
  corridor run                      start a local PostgreSQL (unless DATABASE_URL is set; a local Citus
                                    cluster with CORRIDOR_LOCAL_DATABASE=citus), migrate, serve
  corridor serve                    migrate DATABASE_URL and serve
  corridor migrate                  apply the embedded migrations to DATABASE_URL (or the local cluster);
                                    on a Citus coordinator, then distribute the tables as planned
  corridor session --user U --email E [--ttl 24h]
                                    mint a sandbox identity-provider session token
  corridor ledger verify [--anchors] recompute the ledger's hash chain and name the first break; with
                                    --anchors also every anchor's root from the journal, against the chain
  corridor ledger anchors           list the mined anchors: transaction, block, sequences added
  corridor ledger proof --anchor N  print anchor N's proof (transfers, Merkle paths, transaction) as JSON
  corridor check                    verify the invariants (ledger, hash chains, ledger vs chain, payouts
                                    and claims released once, idempotency records, whole units of work,
                                    the Citus distribution);
                                    exits 1 naming what is wrong
  corridor databases                the local primary (migrated) and a hot standby streaming from it, until
                                    SIGTERM; their URLs in $CORRIDOR_DATA_DIR/cluster/databases.env (make run-cluster)
  corridor devchain                 the local dev chain (started or reused, contracts deployed) as a process of its
                                    own, until SIGTERM; replicas reuse it and never stop it (make run-cluster)
  corridor version                  the build: version, module, VCS commit
  corridor openapi [--version V]    print the OpenAPI document of every route (what sdk/ is generated from)
  corridor listen --forward-to URL [--events T,F.*] [--resend EVT] [--rotate-secret] [--print-secret]
                                    forward your events to a local URL, signed with the secret this
                                    machine keeps for the tenant (printed; CORRIDOR_CONFIG_DIR)
  corridor trigger EVENT_TYPE [--api URL] [--api-key K]
                                    make the sandbox emit an event of that type about a real object of
                                    yours, made first when you have none (TEST keys or CORRIDOR_SESSION)
  corridor help                     this text and every configuration variable

`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	switch os.Args[1] {
	case "help", "-h", "--help":
		fmt.Print(usage)
		writeConfigHelp(os.Stdout)
		return
	case "version", "--version":
		exitOn(versionCmd(os.Stdout))
		return
	case "openapi":
		exitOn(openapiCmd(os.Stdout, os.Args[2:]))
		return
	case "listen", "trigger":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		run := listenCmd
		if os.Args[1] == "trigger" {
			run = triggerCmd
		}
		err := run(ctx, os.Stdout, os.Args[2:])
		stop()
		exitOn(err)
		return
	}
	cfg, err := loadConfig(env.ToMap(os.Environ()))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	log := newLogger(cfg.Service.LogLevel)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch os.Args[1] {
	case "run":
		err = runLocal(ctx, cfg, log)
	case "serve":
		err = serveURL(ctx, cfg, cfg.Service.DatabaseURL, log)
	case "migrate":
		err = migrateCmd(ctx, cfg, log)
	case "session":
		err = sessionCmd(cfg, os.Args[2:])
	case "ledger":
		err = ledgerCmd(ctx, cfg, log, os.Args[2:])
	case "check":
		err = checkCmd(ctx, cfg, log)
	case "databases":
		err = databasesCmd(ctx, cfg, log)
	case "devchain":
		err = devchainCmd(ctx, cfg, log)
	default:
		fmt.Fprintf(os.Stderr, "corridor: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if errors.Is(err, errReattach) {
		err = restartInPlace(log)
	}
	var refused configError
	if errors.As(err, &refused) {
		fmt.Fprintln(os.Stderr, refused)
		os.Exit(2)
	}
	if err != nil {
		log.Error("corridor stopped with an error", "error", err.Error())
		os.Exit(1)
	}
}

// exitOn ends a command that needs no configuration: 1 with the error on stderr.
func exitOn(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func newLogger(level logLevel) *slog.Logger {
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level.level()}))
}

// runLocal is `make run`: DATABASE_URL when set, else a project-local cluster under the data dir
// that it stops again on Ctrl-C when it started it.
func runLocal(ctx context.Context, cfg Config, log *slog.Logger) error {
	cfg.Local = true
	if cfg.Service.DatabaseURL != "" {
		return serveURL(ctx, cfg, cfg.Service.DatabaseURL, log)
	}
	cluster, err := localCluster(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer func() {
		if !cluster.StartedHere() {
			return
		}
		stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := cluster.Stop(stopCtx); err != nil {
			log.Error("stopping local PostgreSQL failed", "error", err.Error())
			return
		}
		log.Info("local database stopped", "dataDir", cluster.DataDir())
	}()
	return serveURL(ctx, cfg, cluster.URL("corridor"), log)
}

// localServer is the local database `corridor run` starts: one PostgreSQL cluster, or a Citus
// coordinator with its workers (CORRIDOR_LOCAL_DATABASE=citus), which the service reaches
// through the coordinator alone.
type localServer interface {
	URL(dbname string) string
	StartedHere() bool
	Stop(ctx context.Context) error
	DataDir() string
}

func localCluster(ctx context.Context, cfg Config, log *slog.Logger) (localServer, error) {
	logf := func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) }
	if cfg.Service.LocalDatabase == localCitus {
		cc, err := pgcluster.EnsureCitus(ctx, pgcluster.CitusOptions{
			Dir: cfg.Service.DataDir + "/citus", Port: cfg.Service.PostgresPort, Database: "corridor", Logf: logf,
		})
		if err != nil {
			return nil, fmt.Errorf("local Citus cluster: %w (or set DATABASE_URL)", err)
		}
		log.Info("local Citus cluster ready", "coordinator", cc.URL("corridor"), "workers", len(cc.Workers),
			"startedHere", cc.StartedHere())
		return cc, nil
	}
	cluster, err := pgcluster.Ensure(ctx, pgcluster.Options{
		DataDir: cfg.Service.DataDir + "/postgres", Port: cfg.Service.PostgresPort, Database: "corridor",
		ComposeFile: "docker-compose.yml", Logf: logf,
	})
	if err != nil {
		return nil, fmt.Errorf("local PostgreSQL: %w (or set DATABASE_URL)", err)
	}
	log.Info("local PostgreSQL ready", "url", cluster.URL("corridor"), "startedHere", cluster.StartedHere())
	return cluster, nil
}

// serveURL migrates, serves, and shuts down gracefully on SIGINT/SIGTERM.
func serveURL(ctx context.Context, cfg Config, dbURL string, log *slog.Logger) error {
	if err := cfg.checkServe(); err != nil {
		return err
	}
	if err := checkMetricsAddr(cfg.Service.MetricsAddr, cfg.listenAddr()); err != nil {
		return err
	}
	stopDebug, err := startDebugServer(cfg.Service.DebugAddr, log)
	if err != nil {
		return err
	}
	defer stopDebug()
	stopTracing, err := startTracing(ctx, log)
	if err != nil {
		return err
	}
	defer stopTracing()
	if dbURL == "" {
		return errors.New("DATABASE_URL is not set (use `corridor run` for a local database)")
	}
	version, err := wiring.Migrate(ctx, dbURL)
	if err != nil {
		return err
	}
	log.Info("migrations applied", "version", version)
	wcfg, started, err := serveConfig(ctx, cfg, dbURL, log)
	if err != nil {
		return err
	}
	defer started.release()
	svc, err := wiring.Build(ctx, wcfg, log)
	if err != nil {
		return err
	}
	defer svc.Close()
	stopMetrics, err := startMetricsServer(cfg.Service.MetricsAddr, cfg.listenAddr(), svc.Metrics, log)
	if err != nil {
		return err
	}
	defer stopMetrics()
	if err := svc.StartWorkers(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start job workers: %w", err)
	}
	errCh := make(chan error, 1)
	addr := cfg.listenAddr()
	go func() { errCh <- svc.Server.Listen(addr) }()
	log.Info("corridor serving", "addr", addr)
	printFirstSteps(cfg)
	var reattach error
	select {
	case err := <-errCh:
		return err
	case <-ctx.Done():
	case env := <-started.absent.watch(ctx, cfg):
		log.Warn("the chain node that did not answer at start answers: draining, then restarting in place to attach it", "environment", env)
		reattach = errReattach
	}
	log.Info("shutting down: draining in-flight requests and running jobs")
	if err := shutdown(svc.Server.Shutdown, svc.StopWorkers, cfg.Service.ShutdownHTTPGrace, cfg.Service.ShutdownWorkersGrace, log); err != nil {
		return err
	}
	return reattach
}

// chainsStarted is what serveConfig started of the chains: release closes them once the
// service has stopped; absent are the environments whose node did not answer.
type chainsStarted struct {
	release func()
	absent  absentChains
}

// serveConfig is the wiring configuration of a serving process: the session verifier, the
// console's sign-in, the chains (started here; release them once the service has stopped), the
// secrets, and the sandbox defaults of a local run.
func serveConfig(ctx context.Context, cfg Config, dbURL string, log *slog.Logger) (wiring.Config, chainsStarted, error) {
	var err error
	wcfg := cfg.wiringConfig()
	if wcfg.Identity, wcfg.SessionSecret, err = sessionVerifier(ctx, cfg, log); err != nil {
		return wcfg, chainsStarted{}, err
	}
	if wcfg.ConsoleSignIn, err = consoleSignIn(cfg); err != nil {
		return wcfg, chainsStarted{}, err
	}
	chains, releaseChains, absent, err := startServedChains(ctx, cfg, log)
	if err != nil {
		return wcfg, chainsStarted{}, err
	}
	started := chainsStarted{release: releaseChains, absent: absent}
	cipherKey, err := cfg.cipherKey()
	if err == nil {
		wcfg.OperatorToken, err = cfg.operatorToken()
	}
	if err != nil {
		releaseChains()
		return wcfg, chainsStarted{}, err
	}
	wcfg.DatabaseURL, wcfg.CipherKey, wcfg.ChainAdapters = dbURL, cipherKey, chains
	if cfg.Local {
		wcfg.ConsoleLocalOwner = wcfg.Identity == nil // the console's one-click TEST sign-in (sandbox sessions only)
		wcfg.Payouts = sandboxPayoutDefaults(wcfg.Payouts)
		if cfg.startsDevChain() && os.Getenv("CHECKOUT_CONFIRMATIONS") == "" {
			// The local dev chain mines a block only when a transaction arrives, so a deeper
			// requirement would leave a paid checkout pending until unrelated traffic came.
			wcfg.Checkout.Confirmations = 1
			log.Info("checkout: the local dev chain mines on demand; a payment completes once mined (CHECKOUT_CONFIRMATIONS=1 unless set)")
		}
	}
	return wcfg, started, nil
}

// shutdown drains the HTTP server and stops the job workers at the same time, each within its
// own budget, so neither a slow request nor a slow job takes the other's time.
func shutdown(drainHTTP, stopWorkers func(context.Context) error, httpGrace, workersGrace time.Duration, log *slog.Logger) error {
	workersDone := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), workersGrace)
		defer cancel()
		workersDone <- stopWorkers(ctx)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), httpGrace)
	defer cancel()
	err := drainHTTP(ctx)
	if err != nil {
		log.Warn("in-flight requests did not finish within SHUTDOWN_HTTP_GRACE", "error", err.Error())
	}
	if stopErr := <-workersDone; stopErr != nil {
		log.Warn("job workers did not stop within SHUTDOWN_WORKERS_GRACE", "error", stopErr.Error())
	}
	return err
}

func printFirstSteps(cfg Config) {
	fmt.Fprint(os.Stderr, firstSteps(cfg))
}

// firstSteps is the start banner: the commands of README's first credential, runnable as
// printed (request bodies are JSON, so each command with a body says so: 415 otherwise).
func firstSteps(cfg Config) string {
	return fmt.Sprintf(`
Corridor is listening on %s. First credential:
  TOKEN=$(./bin/corridor session --user u_1 --email you@example.com)
  curl -s -X POST %s/v1/tenants -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"name":"Acme"}'
  curl -s -X POST %s/v1/api-keys -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"name":"root","scopes":["*"]}'
%s%sSee README.md (Quickstart). Ctrl-C stops %s.

`, cfg.listenAddr(), localBase(cfg), localBase(cfg), consoleHint(cfg), operatorTokenHint(cfg), stoppedByCtrlC(cfg))
}

// stoppedByCtrlC names what an interrupt stops: the service, and the local PostgreSQL and dev
// chain when this run provides them (a dev chain another run started is left running).
func stoppedByCtrlC(cfg Config) string {
	parts := []string{"the service"}
	if cfg.Service.DatabaseURL == "" {
		parts = append(parts, "the local PostgreSQL")
	}
	if cfg.startsDevChain() {
		parts = append(parts, "the dev chain it started")
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// localBase is where a curl on this machine reaches the service: localhost on the listen port.
func localBase(cfg Config) string {
	if _, port, err := net.SplitHostPort(cfg.listenAddr()); err == nil && port != "" {
		return "localhost:" + port
	}
	return "localhost:8080"
}

// consoleHint points a local run at the console and its one-click sign-in.
func consoleHint(cfg Config) string {
	if !cfg.Local || cfg.Identity.Provider == providerOIDC {
		return ""
	}
	return fmt.Sprintf("Console: http://%s/console/ (one click signs the local owner u_1 in to TEST)\n", localBase(cfg))
}

// operatorTokenHint says where the operator token of a local run is (never the token itself:
// the terminal's scrollback is not a secret store).
func operatorTokenHint(cfg Config) string {
	if !cfg.Local || cfg.Service.OperatorToken.set() {
		return ""
	}
	return fmt.Sprintf("Operator token (X-Operator-Token, for /v1/admin/...): kept in %s\n  OPTOKEN=$(cat %s)\n",
		filepath.Join(cfg.Service.DataDir, operatorTokenFile), filepath.Join(cfg.Service.DataDir, operatorTokenFile))
}

func migrateCmd(ctx context.Context, cfg Config, log *slog.Logger) error {
	url := cfg.Service.DatabaseURL
	if url == "" {
		cluster, err := localCluster(ctx, cfg, log)
		if err != nil {
			return err
		}
		if cluster.StartedHere() {
			defer func() { _ = cluster.Stop(context.Background()) }()
		}
		url = cluster.URL("corridor")
	}
	v, err := wiring.Migrate(ctx, url)
	if err == nil {
		log.Info("migrations applied", "version", v)
	}
	return err
}

// sessionVerifier is the configured identity provider: the OIDC adapter (its key set fetched
// once now, then refreshed until ctx ends), or for sandbox the secret wiring keys the sandbox
// adapter with.
func sessionVerifier(ctx context.Context, cfg Config, log *slog.Logger) (ports.Identity, string, error) {
	if cfg.Identity.Provider != providerOIDC {
		secret, err := cfg.sessionSecret()
		return nil, secret, err
	}
	idp, err := identity.NewOIDC(ctx, identity.OIDCConfig{
		Issuer: cfg.Identity.Issuer, Audience: cfg.Identity.Audience, JWKSURL: cfg.Identity.JWKSURL,
		MaxTokenLifetime: cfg.Identity.MaxTokenLifetime, FetchTimeout: cfg.Identity.JWKSTimeout, Logger: log,
	})
	if err != nil {
		return nil, "", err
	}
	log.Info("sessions verified by the OIDC provider", "issuer", cfg.Identity.Issuer, "audience", cfg.Identity.Audience)
	return idp, "", nil
}

// consoleSignIn is the console's sign-in at the OIDC provider when OIDC_CLIENT_ID is set, else
// nil (members paste a session token).
func consoleSignIn(cfg Config) (console.SignInFlow, error) {
	if cfg.Identity.Provider != providerOIDC || cfg.Identity.ClientID == "" {
		return nil, nil
	}
	return identity.NewCodeFlow(identity.CodeFlowConfig{Issuer: cfg.Identity.Issuer, ClientID: cfg.Identity.ClientID,
		ClientSecret: cfg.Identity.ClientSecret.reveal(), AuthorizationURL: cfg.Identity.AuthorizationURL, TokenURL: cfg.Identity.TokenURL,
		Audience: cfg.Identity.Audience})
}

func sessionCmd(cfg Config, args []string) error {
	fs := flag.NewFlagSet("session", flag.ContinueOnError)
	user := fs.String("user", "", "identity-provider user id (required)")
	email := fs.String("email", "", "email of the user")
	ttl := fs.Duration("ttl", 24*time.Hour, "token lifetime")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *user == "" {
		return errors.New("session: --user is required")
	}
	if cfg.Identity.Provider == providerOIDC {
		return errors.New("session: IDENTITY_PROVIDER is oidc: sessions are minted by the provider, not by corridor session")
	}
	secret, err := cfg.sessionSecret()
	if err != nil {
		return err
	}
	idp, err := identity.NewSandbox(secret)
	if err != nil {
		return err
	}
	token, err := idp.IssueSession(*user, *email, *ttl)
	if err != nil {
		return err
	}
	fmt.Println(token)
	return nil
}

// restartInPlace replaces the process with a fresh run of the same command, arguments and
// environment (same pid, so a supervisor sees no exit), once serve has drained and every
// deferred release has run. It returns only when the exec failed.
func restartInPlace(log *slog.Logger) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("restart in place: %w", err)
	}
	log.Warn("restarting in place", "executable", exe)
	return fmt.Errorf("restart in place: %w", syscall.Exec(exe, os.Args, os.Environ())) //nolint:gosec // this very binary, with its own arguments and environment
}
