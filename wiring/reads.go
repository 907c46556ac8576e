package wiring

import (
	"context"
	"fmt"

	"github.com/corridorhq/corridor/adapters/console"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/ports"
)

// consoleListPaths are the console pages the read replica may serve: its lists, finance
// exports and statements. A console object page stays on the primary, so the page a form
// redirects to shows the change just made.
var consoleListPaths = []string{
	console.Prefix + "/entries", console.Prefix + "/entries.csv", console.Prefix + "/trial-balance",
	console.Prefix + "/accounts", console.Prefix + "/accounts/:id",
	console.Prefix + "/wallets", console.Prefix + "/payments", console.Prefix + "/checkouts",
	console.Prefix + "/offramp", console.Prefix + "/cards", console.Prefix + "/agents",
	console.Prefix + "/events",
}

// readRouter opens the standby's pool and the unit of work that sends marked reads to it.
func readRouter(ctx context.Context, cfg Config, primary ports.Store, readMetrics *postgres.ReadMetrics) (*postgres.ReadRouter, func(), error) {
	readDB, err := postgres.Open(ctx, cfg.DatabaseReadURL, postgres.Options{MaxOpenConns: max(cfg.DBMaxConns/2, 4),
		StatementTimeout: cfg.DBStatementTimeout, IdleInTransactionTimeout: cfg.DBIdleInTxTimeout})
	if err != nil {
		return nil, nil, fmt.Errorf("read replica: %w", err)
	}
	router := postgres.NewReadRouter(primary, readDB, postgres.ReadRouterOptions{MaxLag: cfg.ReadMaxLag, Metrics: readMetrics})
	return router, func() { _ = readDB.Close() }, nil
}
