package citus

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/test/harness"
)

// placement is where one tenant's shard of a distributed table lives.
type placement struct {
	shard int64
	host  string
	port  int
}

func tenantPlacement(t *testing.T, conn *pgx.Conn, table, tenant string) placement {
	t.Helper()
	var p placement
	err := conn.QueryRow(context.Background(), `SELECT s.shardid, n.nodename, n.nodeport
		FROM pg_dist_shard s JOIN pg_dist_placement pl ON pl.shardid = s.shardid
		JOIN pg_dist_node n ON n.groupid = pl.groupid
		WHERE s.shardid = get_shard_id_for_distribution_column($1::regclass, $2::text)`, table, tenant).Scan(&p.shard, &p.host, &p.port)
	if err != nil {
		t.Fatalf("placement of %s for %s: %v", table, tenant, err)
	}
	return p
}

// otherWorker is the worker that does not hold p.
func otherWorker(t *testing.T, conn *pgx.Conn, p placement) placement {
	t.Helper()
	var o placement
	err := conn.QueryRow(context.Background(), `SELECT nodename, nodeport FROM pg_dist_node
		WHERE noderole = 'primary' AND shouldhaveshards AND isactive AND NOT (nodename = $1 AND nodeport = $2)
		ORDER BY nodeport LIMIT 1`, p.host, p.port).Scan(&o.host, &o.port)
	if err != nil {
		t.Fatalf("no other worker than %s:%d: %v", p.host, p.port, err)
	}
	return o
}

// TestCitus_TenantShardMovesUnderLoad: a tenant's shard group moves to the other worker with
// citus_move_shard_placement (logical replication) while the tenant's money keeps moving: a
// load of idempotent deposits and card authorizations (payments from its balance, each with
// its own key and a distinct amount) runs before, during and after the move. Then every
// request was acknowledged; every acknowledged one replays its stored answer and changes
// nothing; the balance is exactly the acknowledged deposits, held by exactly the approved
// authorizations; the trial balance is zero; `corridor check` passes; and every table of the
// tenant's co-location group moved (the plan's distributed tables, tenants among them, and
// the ledger's once the plan distributes it), the tenant's rows of each now read on the
// target worker's shard: its money rows, not only its settings, moved.
func TestCitus_TenantShardMovesUnderLoad(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	ct := newChaosTenant(t, conn)
	from := tenantPlacement(t, conn, "tenants", ct.ten.ID)
	to := otherWorker(t, conn, from)
	tenants := []*chaosTenant{ct}
	var down atomic.Int32 // no outage: a refusal is a defect here
	stop := chaosLoad(tenants, &down)
	defer stop()
	awaitAcked(t, "money requests before the move", tenants, rounds())
	_, moveErr := conn.Exec(ctx, `SELECT citus_move_shard_placement($1, $2, $3, $4, $5, shard_transfer_mode => 'force_logical')`,
		from.shard, from.host, from.port, to.host, to.port)
	if moveErr != nil {
		t.Fatalf("moving shard %d from %s:%d to %s:%d: %v", from.shard, from.host, from.port, to.host, to.port, moveErr)
	}
	awaitAcked(t, "money requests after the move", tenants, rounds())
	stop()
	if n := len(ct.reqs) - ct.count((*chaosReq).acked); n > 0 {
		expectCleanRefusals(t, tenants)
		t.Fatalf("%d of %d requests were not acknowledged during the move", n, len(ct.reqs))
	}
	expectExactlyOnce(t, tenants)
	harness.ExpectLedgerBalanced(t, env().DatabaseURL, ct.ten)
	expectChecks(t)
	expectGroupMoved(t, conn, from, to, ct.ten.ID)
	t.Logf("moved shard group of %d from %s:%d to %s:%d under %d requests", from.shard, from.host, from.port, to.host, to.port, len(ct.reqs))
}

// groupShard is one table's shard of a tenant's co-location group.
type groupShard struct {
	table, column string
	shard         int64
	placement
}

// expectGroupMoved: every shard co-located with the tenant's (the same hash range in the
// group of the tenants table) is placed on to, the group holds every table the plan distributes
// by a tenant, and the tenant's rows of each table, counted through the coordinator, are all
// in the shard on the target worker (read there directly), money tables holding some.
func expectGroupMoved(t *testing.T, conn *pgx.Conn, from, to placement, tenantID string) {
	t.Helper()
	ctx := context.Background()
	rows, err := conn.Query(ctx, `SELECT s.logicalrelid::regclass::text, column_to_column_name(p.logicalrelid, p.partkey),
			s.shardid, n.nodename, n.nodeport
		FROM pg_dist_shard a JOIN pg_dist_partition ap ON ap.logicalrelid = a.logicalrelid
		JOIN pg_dist_partition p ON p.colocationid = ap.colocationid
		JOIN pg_dist_shard s ON s.logicalrelid = p.logicalrelid AND s.shardminvalue = a.shardminvalue
		JOIN pg_dist_placement pl ON pl.shardid = s.shardid JOIN pg_dist_node n ON n.groupid = pl.groupid
		WHERE a.shardid = $1 ORDER BY 1`, from.shard)
	if err != nil {
		t.Fatal(err)
	}
	group, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (groupShard, error) {
		var g groupShard
		return g, r.Scan(&g.table, &g.column, &g.shard, &g.host, &g.port)
	})
	if err != nil {
		t.Fatal(err)
	}
	inGroup := map[string]bool{}
	for _, g := range group {
		inGroup[g.table] = true
		if g.host != to.host || g.port != to.port {
			t.Errorf("%s's shard %d for the tenant is on %s:%d, want it moved with its group to %s:%d", g.table, g.shard, g.host, g.port, to.host, to.port)
		}
	}
	for _, p := range postgres.CitusPlan {
		if p.Placement == postgres.Distributed && !p.Lookup && !inGroup[p.Table] {
			t.Errorf("%s is distributed by the plan but not in the tenant's moved group %v", p.Table, inGroup)
		}
	}
	expectRowsOnWorker(t, conn, group, to, tenantID)
}

// moneyTables must hold the tenant's rows after the load, wherever the plan distributes them:
// the deposits' and authorizations' records, and the ledger's rows once it is distributed.
var moneyTables = map[string]bool{"tenants": true, "idempotency_keys": true, "card_authorizations": true,
	"ledger_accounts": true, "ledger_balances": true, "ledger_postings": true, "ledger_transfers": true}

// expectRowsOnWorker counts the tenant's rows of each group table through the coordinator and
// in the table's shard on the target worker, and wants them equal.
func expectRowsOnWorker(t *testing.T, conn *pgx.Conn, group []groupShard, to placement, tenantID string) {
	t.Helper()
	ctx := context.Background()
	worker := workerConn(t, to)
	defer worker.Close(ctx)
	for _, g := range group {
		col := pgx.Identifier{g.column}.Sanitize()
		var all, there int64
		if err := conn.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %s WHERE %s = $1`, pgx.Identifier{g.table}.Sanitize(), col),
			tenantID).Scan(&all); err != nil {
			t.Fatal(err)
		}
		shard := pgx.Identifier{fmt.Sprintf("%s_%d", g.table, g.shard)}.Sanitize()
		if err := worker.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %s WHERE %s = $1`, shard, col), tenantID).Scan(&there); err != nil {
			t.Fatalf("the tenant's rows of %s on %s:%d: %v", g.table, to.host, to.port, err)
		}
		if there != all {
			t.Errorf("%s: %d of the tenant's %d rows on the target worker", g.table, there, all)
		}
		if moneyTables[g.table] && there == 0 {
			t.Errorf("%s: none of the tenant's rows on the target worker after the load", g.table)
		}
	}
}

// workerConn connects to the test database on the worker at p.
func workerConn(t *testing.T, p placement) *pgx.Conn {
	t.Helper()
	u, err := url.Parse(env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	dbname := strings.TrimPrefix(u.Path, "/")
	for _, w := range citusCluster(t).Workers {
		if w.Port() == p.port {
			c, err := pgx.Connect(context.Background(), w.URL(dbname))
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
	}
	t.Fatalf("no worker of the test cluster listens on %d", p.port)
	return nil
}
