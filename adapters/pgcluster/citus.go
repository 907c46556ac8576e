package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// CitusWorkers is how many workers a local Citus cluster has: two, the smallest cluster on
// which a tenant's shards can live on another node than a neighbour's, and move between them.
const CitusWorkers = 2

// citusSettings make a node of a local Citus cluster: the extension preloaded; logical WAL
// because moving a shard between workers copies it by logical replication; eight shards per
// distributed table, enough to spread tenants over two workers without making every migration
// create 32 tables per distributed table; plain connections between nodes on loopback (with
// TLS preferred, libpq would look for client certificates in a home the server's account may
// not read). synchronous_commit stays on even on a throwaway cluster (which turns it off for
// speed): a node killed mid-load must keep every commit it acknowledged, or a coordinator's
// local part of a two-phase commit (the ledger) could be lost while a worker's part (the
// idempotency record) survives, and a retry would replay an answer whose money is gone; with
// fsync off it costs a write to the kernel, not a flush.
var citusSettings = []string{
	"synchronous_commit = on",
	"citus.node_conninfo = 'sslmode=disable'",
	"shared_preload_libraries = 'citus'",
	"wal_level = logical",
	"max_wal_senders = 10",
	"max_replication_slots = 10",
	"citus.shard_count = 8",
	// Citus runs a maintenance daemon per database on every node (two-phase commit recovery,
	// deadlock detection), a background worker each: PostgreSQL's default 8 ran out with a few
	// test databases at once ("could not start maintenance background worker").
	"max_worker_processes = 32",
}

// Citus is a local Citus cluster: a coordinator, which the service connects to, and workers,
// each its own PostgreSQL server on loopback.
type Citus struct {
	Coordinator *Cluster
	Workers     []*Cluster
}

// CitusOptions configure EnsureCitus.
type CitusOptions struct {
	// Dir holds the nodes' data directories: coordinator, worker1, worker2.
	Dir string
	// Port is the coordinator's port (0 picks one); workers take free ports.
	Port int
	// Database is created on every node, with the extension and the workers registered.
	Database string
	// Logf receives progress lines; nil is silent.
	Logf func(format string, args ...any)
}

// EnsureCitus starts (initialising when empty) a coordinator and CitusWorkers workers under
// o.Dir, kept between runs like Ensure's cluster, and prepares o.Database across them. It
// needs the citus extension installed in the local PostgreSQL (`make citus`).
func EnsureCitus(ctx context.Context, o CitusOptions) (*Citus, error) {
	node := func(name string, port int) (*Cluster, error) {
		return Ensure(ctx, Options{DataDir: filepath.Join(o.Dir, name), Port: port, Settings: citusSettings,
			NoInstall: true, Logf: o.Logf})
	}
	stop := func(cc *Citus) error { return cc.Stop(context.Background()) }
	return assembleCitus(ctx, o.Database, o.Port, node, stop)
}

// NewCitusThrowaway starts a throwaway Citus cluster (coordinator and workers, each a
// throwaway cluster tuned for tests); Remove deletes it.
func NewCitusThrowaway(ctx context.Context, logf func(string, ...any)) (*Citus, error) {
	node := func(string, int) (*Cluster, error) {
		return newThrowaway(ctx, Options{Settings: citusSettings}, logf)
	}
	return assembleCitus(ctx, "", 0, node, (*Citus).Remove)
}

// assembleCitus starts the coordinator and the workers with node and prepares database; undo
// stops (kept clusters) or removes (throwaway ones) what started when a later step fails.
func assembleCitus(ctx context.Context, database string, port int, node func(string, int) (*Cluster, error),
	undo func(*Citus) error) (*Citus, error) {
	cc := &Citus{}
	coord, err := node("coordinator", port)
	if err != nil {
		return nil, citusHint(err)
	}
	cc.Coordinator = coord
	for i := 1; i <= CitusWorkers; i++ {
		w, err := node("worker"+strconv.Itoa(i), 0)
		if err != nil {
			return nil, errors.Join(citusHint(err), undo(cc))
		}
		cc.Workers = append(cc.Workers, w)
	}
	if database != "" {
		if err := cc.CreateDatabase(ctx, database); err != nil {
			return nil, errors.Join(err, undo(cc))
		}
	}
	return cc, nil
}

// citusHint adds what to do when a node does not start because the extension is missing.
func citusHint(err error) error {
	return fmt.Errorf("%w (a Citus node preloads the citus extension: install it with `make citus`, "+
		"Citus's apt repository, or run the citusdata/citus image)", err)
}

// URL is the coordinator's URL of dbname: what the service connects to.
func (cc *Citus) URL(dbname string) string { return cc.Coordinator.URL(dbname) }

// StartedHere reports whether this process started any node (Stop stops only those).
func (cc *Citus) StartedHere() bool {
	for _, n := range cc.Nodes() {
		if n.StartedHere() {
			return true
		}
	}
	return false
}

// DataDir is the directory holding the nodes' data directories.
func (cc *Citus) DataDir() string { return filepath.Dir(cc.Coordinator.DataDir()) }

// Nodes is the coordinator then the workers.
func (cc *Citus) Nodes() []*Cluster { return append([]*Cluster{cc.Coordinator}, cc.Workers...) }

// CreateDatabase makes dbname a Citus database: created on every node with the extension, the
// coordinator told its own address (so it can hold shards and reference-table copies) and
// the workers registered. Each step is idempotent, so a kept cluster is prepared again safely.
func (cc *Citus) CreateDatabase(ctx context.Context, dbname string) error {
	for _, n := range cc.Nodes() {
		if err := n.CreateDatabase(ctx, dbname); err != nil {
			return err
		}
		if err := inDatabase(ctx, n.URL(dbname), func(conn *pgx.Conn) error {
			_, err := conn.Exec(ctx, "create extension if not exists citus")
			return err
		}); err != nil {
			return fmt.Errorf("pgcluster: citus extension in %s on port %d: %w", dbname, n.Port(), err)
		}
	}
	return cc.registering(ctx, func() error { return cc.registerNodes(ctx, dbname) })
}

// registerLock is the advisory lock (in the coordinator's `postgres` database) that
// serializes registering workers across databases: any fixed key.
const registerLock = 7_413_002

// registering runs fn holding registerLock. Registering a worker syncs Citus's metadata to it,
// which rewrites cluster-wide rows there (the roles): two databases registered at once on the
// same workers (parallel tests, each with a database of its own) failed one of them with
// "tuple concurrently updated" on the worker, reported by citus_add_node as "failure on
// connection marked as essential". The lock is taken on the server, so it holds across
// processes sharing the cluster too.
func (cc *Citus) registering(ctx context.Context, fn func() error) error {
	return withConn(ctx, cc.Coordinator.URL("postgres"), func(conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, "select pg_advisory_lock($1)", registerLock); err != nil {
			return err
		}
		defer conn.Exec(context.WithoutCancel(ctx), "select pg_advisory_unlock($1)", registerLock) //nolint:errcheck // the session ends right after
		return fn()
	})
}

// registerNodes tells dbname's coordinator its own address and registers the workers.
func (cc *Citus) registerNodes(ctx context.Context, dbname string) error {
	return inDatabase(ctx, cc.URL(dbname), func(conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, "select citus_set_coordinator_host('127.0.0.1', $1)", cc.Coordinator.Port()); err != nil {
			return fmt.Errorf("pgcluster: citus_set_coordinator_host: %w", err)
		}
		for _, w := range cc.Workers {
			if _, err := conn.Exec(ctx, "select citus_add_node('127.0.0.1', $1)", w.Port()); err != nil {
				return fmt.Errorf("pgcluster: citus_add_node port %d: %w", w.Port(), err)
			}
		}
		return nil
	})
}

// inDatabase runs fn on a connection to url's own database (withConn goes to `postgres`).
func inDatabase(ctx context.Context, url string, fn func(*pgx.Conn) error) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("pgcluster: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return fn(conn)
}

// DropDatabase drops dbname on every node.
func (cc *Citus) DropDatabase(ctx context.Context, dbname string) error {
	var errs []error
	for _, n := range cc.Nodes() {
		errs = append(errs, n.DropDatabase(ctx, dbname))
	}
	return errors.Join(errs...)
}

// Stop stops the nodes this process started, workers first.
func (cc *Citus) Stop(ctx context.Context) error {
	var errs []error
	for i := len(cc.Workers) - 1; i >= 0; i-- {
		errs = append(errs, cc.Workers[i].Stop(ctx))
	}
	if cc.Coordinator != nil {
		errs = append(errs, cc.Coordinator.Stop(ctx))
	}
	return errors.Join(errs...)
}

// Remove deletes a throwaway cluster's nodes.
func (cc *Citus) Remove() error {
	var errs []error
	for _, n := range cc.Nodes() {
		errs = append(errs, n.Remove())
	}
	return errors.Join(errs...)
}
