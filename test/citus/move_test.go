package citus

import (
	"context"
	"fmt"
	"strconv"
	"sync"
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

// load sends, one after the other until stop closes, idempotent $1 sandbox deposits and
// two-factor settings changes (a write to a distributed table) for one tenant. It records
// every failure and counts what was applied; at least min of each are sent.
type load struct {
	deposits, settings int
	lastApproval       string
	failures           []string
}

func runLoad(ten *harness.Tenant, started chan<- struct{}, stop <-chan struct{}, min int) *load {
	l := &load{}
	for i := 0; ; i++ {
		if i == min {
			close(started)
		}
		if i >= min {
			select {
			case <-stop:
				return l
			default:
			}
		}
		r, err := ten.Root.With("Idempotency-Key", fmt.Sprintf("move-%s-%d", ten.ID, i)).
			Try("POST", "/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "1"})
		if err != nil || r.Status != 201 {
			l.failures = append(l.failures, fmt.Sprintf("deposit %d: %v %v", i, err, r))
			continue
		}
		l.deposits++
		approval := strconv.Itoa(i + 1)
		r, err = ten.Root.Try("PUT", "/v1/twofactor/settings", map[string]any{"approvalAboveUsd": approval})
		if err != nil || r.Status != 200 {
			l.failures = append(l.failures, fmt.Sprintf("settings %d: %v %v", i, err, r))
			continue
		}
		l.settings++
		l.lastApproval = approval
	}
}

// TestCitus_TenantShardMovesUnderLoad: a tenant's shard group (two-factor settings and
// budgets, recipient credentials, relayer counts, idempotency records, members and the API
// keys its requests authenticate with) moves to the other worker with citus_move_shard_placement while
// the tenant's deposits and settings changes keep arriving. Every request succeeds, the
// balance is exactly the deposits made, the last settings write is what reads return, the
// co-located shards moved together, a deposit replayed after the move answers what it answered
// before without applying again (its idempotency record moved with the tenant), and
// `corridor check` passes afterwards.
func TestCitus_TenantShardMovesUnderLoad(t *testing.T) {
	ctx := context.Background()
	ten := env().NewTenant(t)
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	from := tenantPlacement(t, conn, "twofactor_settings", ten.ID)
	to := otherWorker(t, conn, from)

	started, stop := make(chan struct{}), make(chan struct{})
	var l *load
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); l = runLoad(ten, started, stop, 5) }()
	<-started
	_, moveErr := conn.Exec(ctx, `SELECT citus_move_shard_placement($1, $2, $3, $4, $5, shard_transfer_mode => 'force_logical')`,
		from.shard, from.host, from.port, to.host, to.port)
	close(stop)
	wg.Wait()
	if moveErr != nil {
		t.Fatalf("moving shard %d from %s:%d to %s:%d: %v", from.shard, from.host, from.port, to.host, to.port, moveErr)
	}
	if len(l.failures) > 0 {
		t.Fatalf("%d requests failed during the move: %v", len(l.failures), l.failures)
	}
	for _, table := range []string{"twofactor_settings", "recipient_credentials", "relayer_tx_counts", "twofactor_budgets",
		"twofactor_factors", "twofactor_challenges", "contacts", "idempotency_keys", "members", "api_keys"} {
		if got := tenantPlacement(t, conn, table, ten.ID); got.host != to.host || got.port != to.port {
			t.Errorf("%s's shard for the tenant is on %s:%d, want it moved with its group to %s:%d", table, got.host, got.port, to.host, to.port)
		}
	}
	harness.ExpectServiceBalance(t, ten.Root, int64(l.deposits)*1_000_000, 0)
	replay, err := ten.Root.With("Idempotency-Key", fmt.Sprintf("move-%s-%d", ten.ID, 0)).
		Try("POST", "/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "1"})
	if err != nil || replay.Status != 201 || replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the first deposit replayed after the move: %v %v, want its stored 201", err, replay)
	}
	harness.ExpectServiceBalance(t, ten.Root, int64(l.deposits)*1_000_000, 0)
	got := ten.Root.Get("/v1/twofactor/settings").Expect(t, 200).JSON(t)
	if got["approvalAboveUsd"] == nil {
		t.Fatalf("settings after the move: %v, want approvalAboveUsd %s", got, l.lastApproval)
	}
	if a, _ := strconv.ParseFloat(got["approvalAboveUsd"].(string), 64); strconv.FormatFloat(a, 'f', -1, 64) != l.lastApproval {
		t.Fatalf("settings after the move: approvalAboveUsd %v, want %s", got["approvalAboveUsd"], l.lastApproval)
	}
	rep, err := postgres.CheckInvariants(ctx, env().Service.Store.DB(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("corridor check after the move: %+v", rep.Checks)
	}
	t.Logf("moved shard %d %s:%d -> %s:%d under %d deposits and %d settings writes", from.shard, from.host, from.port, to.host, to.port, l.deposits, l.settings)
}
