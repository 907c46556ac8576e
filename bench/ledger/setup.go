package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/adapters/pgcluster"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// database is the scratch database the bench runs in.
type database struct {
	url, source, settings string
	throwaway             bool
	dataDir               string // the throwaway cluster's, for its processor time
	cleanup               func()
}

// provision starts a throwaway cluster, or makes a scratch database on DATABASE_URL's server.
func provision(ctx context.Context) (database, error) {
	if server := os.Getenv("DATABASE_URL"); server != "" {
		var b [4]byte
		_, _ = rand.Read(b[:])
		name := "corridor_bench_" + hex.EncodeToString(b[:])
		if err := pgcluster.CreateDatabase(ctx, server, name); err != nil {
			return database{}, err
		}
		url, err := pgcluster.WithDatabase(server, name)
		drop := func() { _ = pgcluster.DropDatabase(context.Background(), server, name) }
		if err != nil {
			drop()
			return database{}, err
		}
		// BENCH_SERVER_DATA_DIR names that server's data directory when it is local (bench/load
		// passes its service's), so PostgreSQL's processor time is measured there too.
		return database{url: url, source: "scratch database " + name + " on DATABASE_URL's server", settings: "as configured on that server", cleanup: drop,
			dataDir: os.Getenv("BENCH_SERVER_DATA_DIR")}, nil
	}
	c, err := pgcluster.NewThrowaway(ctx, func(f string, a ...any) { fmt.Fprintf(os.Stderr, "  "+f+"\n", a...) })
	if err != nil {
		return database{}, err
	}
	if err := c.CreateDatabase(ctx, "bench"); err != nil {
		_ = c.Remove()
		return database{}, err
	}
	cleanup := func() {
		if err := c.Remove(); err != nil {
			fmt.Fprintln(os.Stderr, "bench-ledger: removing the throwaway cluster:", err)
		}
	}
	return database{url: c.URL("bench"), source: "throwaway local cluster " + c.DataDir(), cleanup: cleanup, throwaway: true, dataDir: c.DataDir(),
		settings: "production durability: fsync=on, synchronous_commit=on, full_page_writes=on (ALTER SYSTEM on the pgcluster throwaway; also wal_level=minimal, max_connections=200)"}, nil
}

// bench holds the migrated store and the funded accounts.
type bench struct {
	o     options
	db    *bun.DB
	store *postgres.Store
	pipe  *postgres.Store // the same database through the commit pipeline
	// dataDir is the throwaway cluster's data directory (on DATABASE_URL's server:
	// BENCH_SERVER_DATA_DIR, else "").
	dataDir string
	spread  []string // account ids acc_bench000…001 …; pgbench builds the same ids
	hot     string
	world   string
}

// benchAccountID is the id of spread account n (1-based); pgbench's script builds the same.
func benchAccountID(n int) string { return fmt.Sprintf("acc_bench%021d", n) }

const hotAccount = 0 // benchAccountID(0) is the hot account

func newBench(ctx context.Context, d database, o options) (*bench, error) {
	if _, err := postgres.Migrate(d.url); err != nil {
		return nil, err
	}
	db, err := postgres.Open(ctx, d.url, postgres.Options{MaxOpenConns: 80})
	if err != nil {
		return nil, err
	}
	if d.throwaway {
		if err := durable(ctx, db); err != nil {
			db.Close()
			return nil, err
		}
	}
	if o.experimentSQL != "" {
		if _, err := db.ExecContext(ctx, o.experimentSQL); err != nil {
			db.Close()
			return nil, fmt.Errorf("bench-ledger: -experiment-sql: %w", err)
		}
	}
	b := &bench{o: o, db: db, store: postgres.NewStore(db), hot: benchAccountID(hotAccount), dataDir: d.dataDir}
	b.pipe = b.store.WithPipeline(o.pipeline)
	for n := 1; n <= o.accounts; n++ {
		b.spread = append(b.spread, benchAccountID(n))
	}
	if err := b.openAccounts(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := b.fund(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return b, nil
}

func (b *bench) close() {
	b.pipe.Close()
	_ = b.db.Close()
}

// durable turns the throwaway cluster's test settings back to production durability: every
// COMMIT waits for its WAL flush, for the ledger and the pgbench ceiling alike. The settings
// take effect on reload; durable waits until a new session sees them.
func durable(ctx context.Context, db *bun.DB) error {
	for _, stmt := range []string{"ALTER SYSTEM SET fsync = on", "ALTER SYSTEM SET synchronous_commit = on",
		"ALTER SYSTEM SET full_page_writes = on", "SELECT pg_reload_conf()"} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("durable settings: %w", err)
		}
	}
	for i := 0; ; i++ {
		got, err := settings(ctx, db)
		if err != nil {
			return err
		}
		if got == "fsync=on, synchronous_commit=on, full_page_writes=on" {
			return nil
		}
		if i == 100 {
			return fmt.Errorf("durable settings not in effect after reload: %s", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// settings reads the durability settings of a new session.
func settings(ctx context.Context, db *bun.DB) (string, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	var out []string
	for _, name := range []string{"fsync", "synchronous_commit", "full_page_writes"} {
		var v string
		if err := conn.QueryRowContext(ctx, "SELECT current_setting('"+name+"')").Scan(&v); err != nil {
			return "", err
		}
		out = append(out, name+"="+v)
	}
	return strings.Join(out, ", "), nil
}

// openAccounts creates the hot and spread accounts with fixed ids (so the pgbench script can
// name them) and a world account to fund them from.
func (b *bench) openAccounts(ctx context.Context) error {
	_, err := b.db.ExecContext(ctx, `
INSERT INTO ledger_accounts (id, environment, asset, tenant_id, kind, reference, non_negative, created_at, home_tenant_id)
SELECT 'acc_bench' || lpad(n::text, 21, '0'), 'TEST', 'USDC', 'ten_bench', 'tenant_available', 'bench:' || n, true, now(),
    'ten_bench'
FROM generate_series(0, ?) AS n;
INSERT INTO ledger_balances (account_id, non_negative, home_tenant_id)
SELECT id, true, home_tenant_id FROM ledger_accounts WHERE tenant_id = 'ten_bench';
INSERT INTO ledger_account_homes (account_id, home_tenant_id)
SELECT id, home_tenant_id FROM ledger_accounts WHERE tenant_id = 'ten_bench';`, b.o.accounts)
	if err != nil {
		return err
	}
	return b.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		accts, err := tx.Ledger().OpenAccounts(ctx, time.Now(), ledger.World(core.EnvTest, ledger.AssetUSDC, "bench"))
		if err == nil {
			b.world = accts[0].ID
		}
		return err
	})
}

// fund gives every spread account 1,000,000 USD and the hot account 1,000,000,000 USD, in
// units of work of 100 transfers.
func (b *bench) fund(ctx context.Context) error {
	ids := append([]string{b.hot}, b.spread...)
	for start := 0; start < len(ids); start += 100 {
		chunk := ids[start:min(start+100, len(ids))]
		err := b.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			for _, id := range chunk {
				amount := int64(1_000_000) * 1_000_000
				if id == b.hot {
					amount *= 1000
				}
				spec := ledger.TransferSpec{Reference: "bench:fund:" + id, Type: ledger.TypePosted, Environment: core.EnvTest,
					Asset: ledger.AssetUSDC, Postings: ledger.Move(b.world, id, amount)}
				if _, _, err := tx.Ledger().Post(ctx, time.Now(), spec); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
