package crash

import (
	"context"
	"encoding/json"
	"github.com/corridorhq/corridor/test/harness"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/test/testdb"
)

// repoFile is a path under the module root (the package runs in test/crash).
func repoFile(t *testing.T, rel string) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// readyzEnvs keeps one harness environment per replica, so its OpenAPI document is read once.
var (
	readyzEnvsMu sync.Mutex
	readyzEnvs   = map[string]*harness.Env{}
)

// readyz answers GET base/readyz's status and body (0 and nil when nothing answers), through
// the validating harness client so the answer is checked against the OpenAPI document.
func readyz(t *testing.T, base string) (int, map[string]any) {
	t.Helper()
	readyzEnvsMu.Lock()
	e, ok := readyzEnvs[base]
	if !ok {
		e = &harness.Env{BaseURL: base}
		readyzEnvs[base] = e
	}
	readyzEnvsMu.Unlock()
	r, err := e.Client(t).Try(http.MethodGet, "/readyz", nil)
	if err != nil {
		return 0, nil
	}
	var body map[string]any
	_ = json.Unmarshal(r.Body, &body)
	return r.Status, body
}

// awaitFile polls until path exists, the process ends or limit passes.
func awaitFile(t *testing.T, path string, s *service, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-s.exited:
			t.Fatalf("%s ended before writing %s: %v\n%s", s.cmd.Path, path, s.err, s.output)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %s:\n%s", path, limit, s.output)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestCluster_AnyReplicaMayDie: as `make run-cluster` runs them, the dev chain is a process of
// its own (`corridor devchain`) and replicas (`corridor run` on one data directory and
// database) reuse it. Killing a replica with SIGKILL, and stopping another with SIGTERM, leaves
// the remaining one ready with its chain; stopping the chain process then leaves that replica
// ready (degraded: its chain check now fails, geth is gone), never out of the balancer. The
// replica killed first is River's leader: the test prints how long the others took to elect
// a new one (docs/reliability.md keeps the figure).
func TestCluster_AnyReplicaMayDie(t *testing.T) {
	t.Parallel()
	geth := repoFile(t, "bin/geth")
	if _, err := os.Stat(geth); err != nil {
		t.Skipf("no geth at %s (make geth)", geth)
	}
	url := testdb.NewDatabase(context.Background(), t)
	bin := buildCrashBinary(t)
	data := t.TempDir()
	env := func(addr string) []string {
		return append(serviceEnv(url, addr, ""), "CORRIDOR_DATA_DIR="+data, "GETH_BINARY="+geth, "CORRIDOR_CHAIN_PORT=0",
			"CORRIDOR_CONTRACTS_DIR="+repoFile(t, "contracts/build"), "CHAIN_RPC_URL=", "CORRIDOR_DEV_CHAIN=on")
	}
	chain := &service{cmd: exec.Command(bin, "devchain"), output: &harness.SyncBuffer{}, exited: make(chan struct{})}
	chain.cmd.Env = env("127.0.0.1:0")
	chain.cmd.Stdout, chain.cmd.Stderr = chain.output, chain.output
	if err := chain.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { chain.err = chain.cmd.Wait(); close(chain.exited) }()
	t.Cleanup(func() { chain.stop(t) })
	awaitFile(t, filepath.Join(data, "cluster", "chain.ready"), chain, 2*time.Minute)

	replicas := make([]*service, 3)
	for i := range replicas {
		replicas[i] = startReplica(t, bin, env)
	}
	// SIGKILL the replica that holds River's leadership (the one that enqueues periodic
	// passes) and measure how long the others take to elect a new leader.
	leader := riverLeader(t, url, "")
	order := []*service{}
	for _, r := range replicas {
		if strings.Contains(leader, strings.TrimPrefix(r.base, "http://")) {
			order = append([]*service{r}, order...)
		} else {
			order = append(order, r)
		}
	}
	killed := time.Now()
	_ = order[0].cmd.Process.Signal(syscall.SIGKILL)
	<-order[0].exited
	next := riverLeader(t, url, leader)
	t.Logf("leader failover: %s was SIGKILLed, %s leads %s later", leader, next, time.Since(killed).Round(10*time.Millisecond))
	_ = order[1].cmd.Process.Signal(syscall.SIGTERM)
	<-order[1].exited
	last := order[2]
	if code, body := readyz(t, last.base); code != 200 || body["status"] != "ok" {
		t.Fatalf("the remaining replica after the others died: %d %v\n%s", code, body, last.output)
	}

	chain.stop(t)
	code, body := readyz(t, last.base)
	if code != 200 || body["status"] != "degraded" {
		t.Fatalf("the replica with its chain stopped: %d %v, want 200 degraded", code, body)
	}
}

// riverLeader polls River's leader row until it names a leader other than not ("" for any)
// and returns it; two minutes is a hang guard, not the bound measured.
func riverLeader(t *testing.T, url, not string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	for {
		var id string
		err := conn.QueryRow(ctx, `SELECT leader_id FROM river_leader WHERE expires_at > now()`).Scan(&id)
		if err == nil && id != not {
			return id
		}
		if ctx.Err() != nil {
			t.Fatalf("no River leader other than %q after two minutes (last: %q, %v)", not, id, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startReplica runs `corridor run` as run-cluster does and waits until it is ready.
func startReplica(t *testing.T, bin string, env func(addr string) []string) *service {
	t.Helper()
	s := launchRun(t, bin, env)
	s.awaitReady(t)
	return s
}

// launchRun starts `corridor run` without waiting for it.
func launchRun(t *testing.T, bin string, env func(addr string) []string) *service {
	t.Helper()
	return spawn(t, bin, "run", env)
}

// awaitReady polls /readyz until 200; the process ending fails the test.
func (s *service) awaitReady(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if code, _ := readyz(t, s.base); code == 200 {
			return
		}
		select {
		case <-s.exited:
			t.Fatalf("corridor run ended: %v\n%s", s.err, s.output)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("corridor run not ready:\n%s", s.output)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// TestRun_TwoCheckoutsOnOneMachine: two `corridor run` of two checkouts (two data directories)
// started together, with the shipped port choices (the dev chain's previous port, else 8545,
// else a free one; metrics on the default 127.0.0.1:9464), both come up ready, each on a dev
// chain it started itself, never the other's node, and neither exits over a taken metrics port.
func TestRun_TwoCheckoutsOnOneMachine(t *testing.T) {
	t.Parallel()
	geth := repoFile(t, "bin/geth")
	if _, err := os.Stat(geth); err != nil {
		t.Skipf("no geth at %s (make geth)", geth)
	}
	bin := buildCrashBinary(t)
	runs := make([]*service, 2)
	for i := range runs {
		url := testdb.NewDatabase(context.Background(), t)
		data := t.TempDir()
		runs[i] = launchRun(t, bin, func(addr string) []string {
			return append(serviceEnv(url, addr, ""), "CORRIDOR_DATA_DIR="+data, "GETH_BINARY="+geth, "METRICS_ADDR=127.0.0.1:9464",
				"CORRIDOR_CONTRACTS_DIR="+repoFile(t, "contracts/build"), "CHAIN_RPC_URL=", "CORRIDOR_DEV_CHAIN=on", "LOG_LEVEL=info")
		})
	}
	for _, s := range runs {
		s.awaitReady(t)
	}
	for i, s := range runs {
		code, body := readyz(t, s.base)
		checks, _ := body["checks"].(map[string]any)
		if code != 200 || checks["chain:TEST"] != "ok" {
			t.Fatalf("run %d: %d %v\n%s", i, code, body, s.output)
		}
		if !strings.Contains(s.output.String(), "devchain: started geth") {
			t.Fatalf("run %d did not start its own dev chain:\n%s", i, s.output)
		}
	}
	// Both serve metrics, on two ports: the second to bind 9464 (or both, when something else
	// on the machine holds it) fell back to a free port and printed it.
	a, b := metricsAddr(t, runs[0]), metricsAddr(t, runs[1])
	if a == b {
		t.Fatalf("both runs report metrics on %s", a)
	}
	t.Logf("metrics on %s and %s", a, b)
}

// metricsAddrLine reads the address from the metrics listener's start-up line.
var metricsAddrLine = regexp.MustCompile(`metrics listening \(METRICS_ADDR\).*?"?addr"?[=:]"?([0-9.:\[\]]+)`)

// metricsAddr is the address a run printed for its metrics listener.
func metricsAddr(t *testing.T, s *service) string {
	t.Helper()
	m := metricsAddrLine.FindStringSubmatch(s.output.String())
	if m == nil {
		t.Fatalf("no metrics address printed:\n%s", s.output)
	}
	return m[1]
}
