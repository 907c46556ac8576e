// Command corridor is the composition root: `corridor run` (local, with its own PostgreSQL),
// `corridor serve`, `corridor migrate`, `corridor session`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"corridor/adapters/identity"
	"corridor/adapters/pgcluster"
	"corridor/wiring"
)

const usage = `corridor — money movement for partner platforms

Usage:
  corridor run                      start a local PostgreSQL (unless DATABASE_URL is set), migrate, serve
  corridor serve                    migrate DATABASE_URL and serve
  corridor migrate                  apply the embedded migrations to DATABASE_URL (or the local cluster)
  corridor session --user U --email E [--ttl 24h]
                                    mint a sandbox identity-provider session token
  corridor ledger verify            recompute the ledger's hash chain and name the first break

Configuration (environment): DATABASE_URL, CORRIDOR_ADDR (default :8080) or PORT, CORRIDOR_DATA_DIR
(default .data), SESSION_SECRET (default: a random secret kept in the data dir), RATE_LIMIT_PER_SECOND,
RATE_LIMIT_BURST, BODY_LIMIT_BYTES, DB_MAX_CONNS, LOG_LEVEL, SANDBOX_USDC_ADDRESS, LIVE_USDC_ADDRESS.
Chains (docs/chain.md): CHAIN_RPC_URL + RELAYER_PRIVATE_KEY (+ CHAIN_ADDRESSES_FILE or USDC_ADDRESS) serve TEST
on 84532, LIVE_CHAIN_RPC_URL + LIVE_RELAYER_PRIVATE_KEY (+ LIVE_CHAIN_ADDRESSES_FILE) serve LIVE on 8453;
without CHAIN_RPC_URL, "corridor run" starts a local geth dev chain (GETH_BINARY, default bin/geth;
CORRIDOR_CHAIN_PORT; CORRIDOR_DEV_CHAIN=off for none).
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cfg, err := loadConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "corridor: configuration:", err)
		os.Exit(2)
	}
	log := newLogger(cfg.LogLevel)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch os.Args[1] {
	case "run":
		err = runLocal(ctx, cfg, log)
	case "serve":
		err = serveURL(ctx, cfg, cfg.DatabaseURL, log)
	case "migrate":
		err = migrateCmd(ctx, cfg, log)
	case "session":
		err = sessionCmd(cfg, os.Args[2:])
	case "ledger":
		err = ledgerCmd(ctx, cfg, log, os.Args[2:])
	case "help", "-h", "--help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "corridor: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		log.Error("corridor stopped with an error", "error", err.Error())
		os.Exit(1)
	}
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// runLocal is `make run`: DATABASE_URL when set, else a project-local cluster under the data dir
// that it stops again on Ctrl-C when it started it.
func runLocal(ctx context.Context, cfg config, log *slog.Logger) error {
	cfg.Chain.DevChain = true // the local geth dev chain serves TEST unless CHAIN_RPC_URL is set (chain.go)
	cfg.Payouts = sandboxPayoutDefaults(cfg.Payouts)
	if cfg.DatabaseURL != "" {
		return serveURL(ctx, cfg, cfg.DatabaseURL, log)
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
		log.Info("local PostgreSQL stopped", "dataDir", cluster.DataDir())
	}()
	return serveURL(ctx, cfg, cluster.URL("corridor"), log)
}

func localCluster(ctx context.Context, cfg config, log *slog.Logger) (*pgcluster.Cluster, error) {
	logf := func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) }
	cluster, err := pgcluster.Ensure(ctx, pgcluster.Options{
		DataDir: cfg.DataDir + "/postgres", Port: cfg.PostgresPort, Database: "corridor",
		ComposeFile: "docker-compose.yml", Logf: logf,
	})
	if err != nil {
		return nil, fmt.Errorf("local PostgreSQL: %w (or set DATABASE_URL)", err)
	}
	log.Info("local PostgreSQL ready", "url", cluster.URL("corridor"), "startedHere", cluster.StartedHere())
	return cluster, nil
}

// serveURL migrates, serves, and shuts down gracefully on SIGINT/SIGTERM.
func serveURL(ctx context.Context, cfg config, dbURL string, log *slog.Logger) error {
	if dbURL == "" {
		return errors.New("DATABASE_URL is not set (use `corridor run` for a local database)")
	}
	version, err := wiring.Migrate(ctx, dbURL)
	if err != nil {
		return err
	}
	log.Info("migrations applied", "version", version)
	secret, err := cfg.sessionSecret()
	if err != nil {
		return err
	}
	chains, releaseChains, err := startChains(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer releaseChains()
	cipherKey, err := cfg.cipherKey()
	if err != nil {
		return err
	}
	svc, err := wiring.Build(ctx, wiring.Config{
		DatabaseURL: dbURL, SessionSecret: secret, CipherKey: cipherKey, BodyLimitBytes: cfg.BodyLimitBytes, DBMaxConns: cfg.DBMaxConns,
		IdempotencyTTL: cfg.IdempotencyTTL, RateLimit: rateLimit(cfg),
		Chains:            wiring.ChainAddresses{SandboxUSDC: cfg.SandboxUSDC, LiveUSDC: cfg.LiveUSDC},
		ChainAdapters:     chains,
		PolicyEnforcement: cfg.PolicyEnforcement,
		Payouts:           cfg.Payouts,
		OperatorToken:     cfg.OperatorToken,
		ClaimLifetime:     cfg.ClaimLifetime,
		ClaimLinkBase:     cfg.ClaimLinkBase,
	}, log)
	if err != nil {
		return err
	}
	defer svc.Close()
	if err := svc.StartWorkers(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start job workers: %w", err)
	}
	errCh := make(chan error, 1)
	go func() { errCh <- svc.Server.Listen(cfg.Addr) }()
	log.Info("corridor serving", "addr", cfg.Addr)
	printFirstSteps(cfg)
	select {
	case err := <-errCh:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: draining in-flight requests")
	shutCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	err = svc.Server.Shutdown(shutCtx)
	if stopErr := svc.StopWorkers(shutCtx); stopErr != nil {
		log.Warn("job workers did not stop cleanly", "error", stopErr.Error())
	}
	return err
}

func printFirstSteps(cfg config) {
	fmt.Fprintf(os.Stderr, `
Corridor is listening on %s. First credential:
  TOKEN=$(./bin/corridor session --user u_1 --email you@example.com)
  curl -s -X POST localhost:8080/v1/tenants -H "Authorization: Bearer $TOKEN" -d '{"name":"Acme"}'
  curl -s -X POST localhost:8080/v1/api-keys -H "Authorization: Bearer $TOKEN" -d '{"name":"root","scopes":["*"]}'
See README.md (Quickstart). Ctrl-C stops the service%s.

`, cfg.Addr, map[bool]string{true: "", false: " and the local PostgreSQL"}[cfg.DatabaseURL != ""])
}

func migrateCmd(ctx context.Context, cfg config, log *slog.Logger) error {
	url := cfg.DatabaseURL
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

func sessionCmd(cfg config, args []string) error {
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
