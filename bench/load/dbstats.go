package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/adapters/pgcluster"
)

// Load-independent costs per request: what the service asked of PostgreSQL (statements,
// transactions committed, rows written) and of the kernel (write system calls), and what it
// allocated. Unlike throughput and latency, other work on the machine does not move them, so
// two runs on a busy machine still compare (docs/performance.md).

// counters is one snapshot; a field that could not be read is negative.
type counters struct {
	statements  float64 // pg_stat_statements calls in the service's database (utility statements included)
	commits     float64 // pg_stat_database.xact_commit
	rowsWritten float64 // tup_inserted + tup_updated + tup_deleted
	writes      float64 // the service's write system calls (/proc/<pid>/io syscw)
	mallocs     float64 // the service's heap allocations (runtime.MemStats.Mallocs, via DEBUG_ADDR)
	allocBytes  float64 // runtime.MemStats.TotalAlloc
}

// pgURL is the started cluster's URL for database dbname (port from postmaster.pid).
func pgURL(pgData, dbname string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(pgData, "postmaster.pid"))
	if err != nil {
		return "", false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 4 {
		return "", false
	}
	port := strings.TrimSpace(lines[3])
	return fmt.Sprintf("postgres://%s@127.0.0.1:%s/%s?sslmode=disable", pgcluster.Superuser, port, dbname), true
}

// snapshot reads the counters; settle waits first for the backends' statistics to reach the
// shared counters (PostgreSQL publishes a backend's at most once a second while it is busy).
func (t *target) snapshot(ctx context.Context, settle bool) counters {
	c := counters{-1, -1, -1, -1, -1, -1}
	if settle && t.cmd != nil {
		select {
		case <-time.After(1200 * time.Millisecond):
		case <-ctx.Done():
		}
	}
	if pid := t.pid(); pid > 0 {
		c.writes = procIO(pid, "syscw")
	}
	if t.debugURL != "" {
		c.mallocs, c.allocBytes = memStats(ctx, t.debugURL)
	}
	if t.cmd == nil {
		return c
	}
	url, ok := pgURL(t.pgData, "corridor")
	if !ok {
		return c
	}
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(qctx, url)
	if err != nil {
		return c
	}
	defer conn.Close(context.Background())
	_ = conn.QueryRow(qctx, `SELECT xact_commit, tup_inserted + tup_updated + tup_deleted
		FROM pg_stat_database WHERE datname = current_database()`).Scan(&c.commits, &c.rowsWritten)
	_ = conn.QueryRow(qctx, `SELECT coalesce(sum(calls), 0)::float8 FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND query NOT LIKE '%pg_stat%'`).Scan(&c.statements)
	return c
}

// enableStatementStats creates the pg_stat_statements view in the service's database when the
// server preloads the module (preloadStatementStats); otherwise statements are not counted.
func (t *target) enableStatementStats(ctx context.Context) {
	url, ok := pgURL(t.pgData, "corridor")
	if !ok {
		return
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return
	}
	defer conn.Close(context.Background())
	_, _ = conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
}

// preloadStatementStats makes the cluster under pgData load pg_stat_statements at start, with
// planning tracked apart from execution: it starts the cluster (creating it when missing), sets
// shared_preload_libraries with ALTER SYSTEM, restarts it so the module is loaded (PostgreSQL
// refuses ALTER SYSTEM for a module's setting before the module is), sets
// pg_stat_statements.track_planning and stops it again, so the service then starts it with
// both. The durability settings are the service's own (pgcluster's managed configuration);
// only these two are added.
func preloadStatementStats(ctx context.Context, pgData string) error {
	if b, err := os.ReadFile(filepath.Join(pgData, "postgresql.auto.conf")); err == nil && strings.Contains(string(b), "track_planning") {
		return nil
	}
	if err := alterSystem(ctx, pgData, "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"); err != nil {
		return err
	}
	// Planning time apart from execution: a statement planned on every call shows it.
	return alterSystem(ctx, pgData, "ALTER SYSTEM SET pg_stat_statements.track_planning = on")
}

// alterSystem starts the cluster under pgData (creating it when missing), runs stmt and stops
// the cluster again.
func alterSystem(ctx context.Context, pgData, stmt string) error {
	c, err := pgcluster.Ensure(ctx, pgcluster.Options{DataDir: pgData, Database: "corridor",
		Logf: func(string, ...any) {}})
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err == nil {
		_, err = conn.Exec(ctx, stmt)
		_ = conn.Close(context.Background())
	}
	stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if serr := c.Stop(stopCtx); err == nil {
		err = serr
	}
	return err
}

// procIO reads one field of /proc/<pid>/io (-1 when unreadable).
func procIO(pid int, field string) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+": "); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// memStats reads Mallocs and TotalAlloc from the heap profile's text form, which ends with the
// process's runtime.MemStats.
func memStats(ctx context.Context, base string) (mallocs, bytes float64) {
	mallocs, bytes = -1, -1
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/debug/pprof/heap?debug=1", nil)
	if err != nil {
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "# Mallocs = "); ok {
			mallocs, _ = strconv.ParseFloat(v, 64)
		}
		if v, ok := strings.CutPrefix(line, "# TotalAlloc = "); ok {
			bytes, _ = strconv.ParseFloat(v, 64)
		}
	}
	return
}

// perRequest fills r's per-request costs from two snapshots.
func (r *scenarioResult) perRequest(before, after counters) {
	n := float64(max(r.Requests, 1))
	per := func(b, a float64) float64 {
		if b < 0 || a < 0 {
			return 0
		}
		return round((a-b)/n, 2)
	}
	r.StatementsPerRequest = per(before.statements, after.statements)
	r.CommitsPerRequest = per(before.commits, after.commits)
	r.RowsWrittenPerRequest = per(before.rowsWritten, after.rowsWritten)
	r.WriteSyscallsPerRequest = per(before.writes, after.writes)
	r.AllocsPerRequest = per(before.mallocs, after.mallocs)
	r.AllocKiBPerRequest = round(per(before.allocBytes, after.allocBytes)/1024, 2)
}

// dumpStatements writes the statements the scenario sent, most frequent first, with their
// calls, rows, execution time and WAL bytes per request and their mean execution time per call
// (-profile: <dir>/<scenario>.statements.txt). Execution time per request is what a cut of
// PostgreSQL's processor time is read from: calls alone weigh a SAVEPOINT like a locking read.
func (t *target) dumpStatements(ctx context.Context, path string, requests uint64) error {
	url, ok := pgURL(t.pgData, "corridor")
	if !ok || t.cmd == nil {
		return nil
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `SELECT calls, rows, total_exec_time, total_plan_time, plans, wal_bytes::float8, regexp_replace(query, '\s+', ' ', 'g')
		FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND query NOT LIKE '%pg_stat%' ORDER BY calls DESC LIMIT 40`)
	if err != nil {
		return err
	}
	var b strings.Builder
	n := float64(max(requests, 1))
	fmt.Fprintf(&b, "statements per request over %d requests (pg_stat_statements; calls/request, rows/request, "+
		"execution ms/request, µs/call, planning µs/plan and plans/call, WAL bytes/request, statement)\n", requests)
	var sumMs, sumWAL float64
	for rows.Next() {
		var calls, nrows, plans int64
		var execMs, planMs, walBytes float64
		var q string
		if err := rows.Scan(&calls, &nrows, &execMs, &planMs, &plans, &walBytes, &q); err != nil {
			return err
		}
		if len(q) > 160 {
			q = q[:160] + "…"
		}
		sumMs, sumWAL = sumMs+execMs, sumWAL+walBytes
		fmt.Fprintf(&b, "%6.2f %6.2f %7.4f %7.1f %7.1f %5.2f %7.0f  %s\n", float64(calls)/n, float64(nrows)/n, execMs/n,
			1000*execMs/float64(max(calls, 1)), 1000*planMs/float64(max(plans, 1)), float64(plans)/float64(max(calls, 1)), walBytes/n, q)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	fmt.Fprintf(&b, "listed statements: %.4f execution ms and %.0f WAL bytes per request\n\n", sumMs/n, sumWAL/n)
	if err := tableWrites(ctx, conn, &b, n); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// resetStatements empties pg_stat_statements, so a scenario's dump holds its statements only.
func (t *target) resetStatements(ctx context.Context) {
	url, ok := pgURL(t.pgData, "corridor")
	if !ok || t.cmd == nil {
		return
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return
	}
	defer conn.Close(context.Background())
	_, _ = conn.Exec(ctx, "SELECT pg_stat_statements_reset()")
	// The tables' own counters, one by one: pg_stat_reset would also reset the database's,
	// which the rows written per request are read from.
	_, _ = conn.Exec(ctx, "SELECT pg_stat_reset_single_table_counters(relid) FROM pg_stat_user_tables")
}

// tableWrites is the rows the scenario wrote per request, table by table (pg_stat_user_tables,
// reset with the statements): inserted, updated (of which heap-only: no index entry written)
// and deleted. The counters reach the view within a second of their transactions.
func tableWrites(ctx context.Context, conn *pgx.Conn, b *strings.Builder, n float64) error {
	rows, err := conn.Query(ctx, `SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del FROM pg_stat_user_tables
		WHERE n_tup_ins + n_tup_upd + n_tup_del > 0 ORDER BY n_tup_ins + n_tup_upd + n_tup_del DESC LIMIT 30`)
	if err != nil {
		return err
	}
	defer rows.Close()
	fmt.Fprintf(b, "rows written per request, by table (inserted, updated, of which heap-only, deleted)\n")
	var sum float64
	for rows.Next() {
		var name string
		var ins, upd, hot, del int64
		if err := rows.Scan(&name, &ins, &upd, &hot, &del); err != nil {
			return err
		}
		sum += float64(ins+upd+del) / n
		fmt.Fprintf(b, "%6.2f %6.2f %6.2f %6.2f  %s\n", float64(ins)/n, float64(upd)/n, float64(hot)/n, float64(del)/n, name)
	}
	fmt.Fprintf(b, "listed tables: %.2f rows written per request\n", sum)
	return rows.Err()
}
