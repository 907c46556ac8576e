package crash

import (
	"context"
	"encoding/json"
	"github.com/corridorhq/corridor/test/harness"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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
// ready (degraded: its chain check now fails, geth is gone), never out of the balancer.
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
	chain := &service{cmd: exec.Command(bin, "devchain"), output: &syncBuffer{}, exited: make(chan struct{})}
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
	_ = replicas[0].cmd.Process.Signal(syscall.SIGKILL)
	<-replicas[0].exited
	_ = replicas[1].cmd.Process.Signal(syscall.SIGTERM)
	<-replicas[1].exited
	if code, body := readyz(t, replicas[2].base); code != 200 || body["status"] != "ok" {
		t.Fatalf("the remaining replica after the others died: %d %v\n%s", code, body, replicas[2].output)
	}

	chain.stop(t)
	code, body := readyz(t, replicas[2].base)
	if code != 200 || body["status"] != "degraded" {
		t.Fatalf("the replica with its chain stopped: %d %v, want 200 degraded", code, body)
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
	addr := freeAddr(t)
	s := &service{cmd: exec.Command(bin, "run"), base: "http://" + addr, output: &syncBuffer{}, exited: make(chan struct{})}
	s.cmd.Env = env(addr)
	s.cmd.Stdout, s.cmd.Stderr = s.output, s.output
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.err = s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() { s.stop(t) })
	return s
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
}
