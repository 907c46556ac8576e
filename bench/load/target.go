package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/corridorhq/corridor/adapters/localproc"
)

// target is the service under load: one that was already running, or one started here.
type target struct {
	baseURL  string
	describe string // for the console
	kind     string // for the JSON: "started" or "external"
	secret   string // session secret when started here
	cmd      *exec.Cmd
	exited   chan struct{}
	waitErr  error
	logPath  string
	pgData   string
	// debugURL is the started service's profiler (DEBUG_ADDR), with -profile only.
	debugURL string
	// metricsURL is the started service's metrics listener (METRICS_ADDR): the pipeline's lanes.
	metricsURL string
	// durability describes the started cluster's settings (durabilitySettings).
	durability string
}

// pid is the started service's process id (0 for an external service).
func (t *target) pid() int {
	if t.cmd == nil || t.cmd.Process == nil {
		return 0
	}
	return t.cmd.Process.Pid
}

var probeClient = &http.Client{Timeout: 2 * time.Second}

// acquireTarget probes o.url and, when nothing answers there and o.start is set, starts the
// service.
func acquireTarget(ctx context.Context, o options) (*target, error) {
	base := strings.TrimRight(o.url, "/")
	status, err := probe(ctx, base+"/healthz")
	switch {
	case err == nil && status == http.StatusOK:
		return &target{baseURL: base, describe: "already running", kind: "external"}, nil
	case err == nil:
		return nil, fmt.Errorf("%s/healthz answered %d; is this a Corridor service?", base, status)
	case !o.start:
		return nil, fmt.Errorf("nothing answers at %s (%v) and -start=false", base, err)
	}
	fmt.Printf("nothing answers at %s: starting %s run\n", base, o.bin)
	return startService(ctx, o)
}

func probe(ctx context.Context, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := probeClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// ensureBinary builds the service's binary at bin when it is missing, so a first run of the
// load generator needs no separate build step.
func ensureBinary(ctx context.Context, bin string) error {
	if _, err := os.Stat(bin); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	fmt.Printf("%s is missing: go build -o %s ./cmd/corridor\n", bin, bin)
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/corridor")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build %s: %w", bin, err)
	}
	return nil
}

// startService runs `<bin> run` with its own data dir, a free loopback port, a random session
// secret and no rate limit, and waits until /readyz answers 200.
func startService(ctx context.Context, o options) (*target, error) {
	if err := ensureBinary(ctx, o.bin); err != nil {
		return nil, err
	}
	port, err := localproc.FreePort()
	if err != nil {
		return nil, err
	}
	secret, err := randomHex(32)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.dataDir, 0o755); err != nil {
		return nil, err
	}
	logPath := filepath.Join(o.dataDir, "corridor.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child holds its own descriptor

	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(o.bin, "run")
	cmd.Env = append(withoutEnv(os.Environ(), "DATABASE_URL", "PORT", "CORRIDOR_ADDR", "CORRIDOR_DATA_DIR",
		"CORRIDOR_PG_PORT", "SESSION_SECRET", "RATE_LIMIT_PER_SECOND", "DEBUG_ADDR", "METRICS_ADDR"),
		"CORRIDOR_DATA_DIR="+o.dataDir, "CORRIDOR_ADDR="+addr, "SESSION_SECRET="+secret, "RATE_LIMIT_PER_SECOND=0")
	metricsAddr, err := freeLoopback()
	if err != nil {
		return nil, err
	}
	cmd.Env = append(cmd.Env, "METRICS_ADDR="+metricsAddr)
	debugURL := ""
	if o.profile != "" {
		if err := os.MkdirAll(o.profile, 0o755); err != nil {
			return nil, err
		}
		debugAddr, err := freeLoopback()
		if err != nil {
			return nil, err
		}
		cmd.Env = append(cmd.Env, "DEBUG_ADDR="+debugAddr)
		debugURL = "http://" + debugAddr
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	pgData := filepath.Join(o.dataDir, "postgres")
	if err := preloadStatementStats(ctx, pgData); err != nil {
		fmt.Printf("note: statements per request are not counted (pg_stat_statements: %v)\n", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", o.bin, err)
	}
	t := &target{
		baseURL: "http://" + addr, kind: "started", secret: secret, cmd: cmd, exited: make(chan struct{}),
		logPath: logPath, pgData: pgData, debugURL: debugURL, metricsURL: "http://" + metricsAddr,
		describe: fmt.Sprintf("started here: %s run, pid %d, CORRIDOR_DATA_DIR=%s, RATE_LIMIT_PER_SECOND=0, random SESSION_SECRET, log %s",
			o.bin, cmd.Process.Pid, o.dataDir, logPath),
	}
	go func() { t.waitErr = cmd.Wait(); close(t.exited) }()

	if err := t.awaitReady(ctx, o.startTimeout); err != nil {
		if cerr := t.close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
		return nil, err
	}
	t.durability = durabilitySettings(t.pgData)
	t.enableStatementStats(ctx)
	return t, nil
}

// freeLoopback is a free loopback address for one of the started service's listeners.
func freeLoopback() (string, error) {
	port, err := localproc.FreePort()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("127.0.0.1:%d", port), nil
}

func (t *target) awaitReady(ctx context.Context, timeout time.Duration) error {
	begin := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		if status, err := probe(ctx, t.baseURL+"/readyz"); err == nil && status == http.StatusOK {
			fmt.Printf("service ready in %s\n", time.Since(begin).Round(100*time.Millisecond))
			return nil
		}
		select {
		case <-t.exited:
			return fmt.Errorf("the service exited before it was ready (%v); %s ends:\n%s", t.waitErr, t.logPath, localproc.Tail(t.logPath, 15))
		case <-deadline.C:
			return fmt.Errorf("the service was not ready after %s; %s ends:\n%s", timeout, t.logPath, localproc.Tail(t.logPath, 15))
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// close stops a service started here: SIGINT, after which it drains, stops the PostgreSQL it
// started and exits. It waits for the exit. A service that was already running is left alone.
func (t *target) close() error {
	if t.cmd == nil {
		return nil
	}
	select {
	case <-t.exited:
	default:
		fmt.Printf("\nstopping the service (SIGINT to pid %d) …", t.cmd.Process.Pid)
		begin := time.Now()
		_ = t.cmd.Process.Signal(os.Interrupt)
		select {
		case <-t.exited:
			fmt.Printf(" stopped in %s\n", time.Since(begin).Round(100*time.Millisecond))
		case <-time.After(90 * time.Second):
			_ = t.cmd.Process.Kill()
			<-t.exited
			return fmt.Errorf("the service did not stop within 90s after SIGINT and was killed; its PostgreSQL may still run: pg_ctl stop -D %s", t.pgData)
		}
	}
	if t.waitErr != nil {
		return fmt.Errorf("the service exited with %v; see %s", t.waitErr, t.logPath)
	}
	if _, err := os.Stat(filepath.Join(t.pgData, "postmaster.pid")); err == nil {
		return fmt.Errorf("PostgreSQL of %s still runs (it was probably running before the bench, so the service did not stop it): pg_ctl stop -D %s", t.pgData, t.pgData)
	}
	return nil
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

func withoutEnv(env []string, names ...string) []string {
	out := env[:0:0]
next:
	for _, kv := range env {
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}
