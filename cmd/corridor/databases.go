package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/corridorhq/corridor/adapters/pgcluster"
	"github.com/corridorhq/corridor/wiring"
)

// databasesCmd is `corridor databases`, the data tier of `make run-cluster`: the project-local
// primary (CORRIDOR_DATA_DIR/postgres, migrated) and a hot standby streaming from it
// (CORRIDOR_DATA_DIR/standby), both started or reused. It writes their URLs as
// DATABASE_URL and DATABASE_READ_URL lines to CORRIDOR_DATA_DIR/cluster/databases.env, then
// waits for SIGINT or SIGTERM and stops the servers it started (standby first).
func databasesCmd(ctx context.Context, cfg Config, log *slog.Logger) error {
	primary, err := localCluster(ctx, cfg, log)
	if err != nil {
		return err
	}
	stopStarted := func(c *pgcluster.Cluster, name string) {
		if c == nil || !c.StartedHere() {
			return
		}
		stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.Stop(stopCtx); err != nil {
			log.Error("stopping PostgreSQL failed", "server", name, "error", err.Error())
		}
	}
	defer stopStarted(primary, "primary")
	if _, err := wiring.Migrate(ctx, primary.URL("corridor")); err != nil {
		return err
	}
	standby, err := primary.StartStandby(ctx, filepath.Join(cfg.Service.DataDir, "standby"))
	if err != nil {
		return fmt.Errorf("standby: %w", err)
	}
	defer stopStarted(standby, "standby")
	dir := filepath.Join(cfg.Service.DataDir, "cluster")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	body := fmt.Sprintf("DATABASE_URL=%s\nDATABASE_READ_URL=%s\n", primary.URL("corridor"), standby.URL("corridor"))
	tmp := filepath.Join(dir, "databases.env.tmp")
	if err := os.WriteFile(tmp, []byte(body), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "databases.env")); err != nil {
		return err
	}
	log.Info("primary and standby ready", "primary", primary.URL("corridor"), "standby", standby.URL("corridor"))
	<-ctx.Done()
	return nil
}

// devchainCmd is `corridor devchain`, the chain tier of `make run-cluster`: the local dev chain
// as a process of its own, so that stopping or killing any replica leaves the chain to the
// others (a replica that finds the node running reuses it and never stops it). It writes
// CORRIDOR_DATA_DIR/cluster/chain.ready once the chain serves, then waits for SIGINT or
// SIGTERM and stops the node if it started it.
func devchainCmd(ctx context.Context, cfg Config, log *slog.Logger) error {
	_, release, err := startDevChain(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer release()
	dir := filepath.Join(cfg.Service.DataDir, "cluster")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "chain.ready"), []byte("ready\n"), 0o600); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
