package crash

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
)

// service is one run of the binary.
type service struct {
	cmd    *exec.Cmd
	base   string
	output *harness.SyncBuffer
	exited chan struct{}
	err    error
}

// buildCrashBinary is the binary TestMain built with the crash points compiled in.
func buildCrashBinary(t *testing.T) string {
	t.Helper()
	if crashBinary == "" {
		t.Fatal("the crash binary was not built")
	}
	return crashBinary
}

// serviceEnv is the environment of every run: the package's database, sandbox sessions the
// harness can mint, the internal and wallet_a (mock) payout providers, quick polls, webhooks to
// the test's loopback receiver, and stuck jobs rescued after 3 s (a killed worker leaves its job
// running).
func serviceEnv(databaseURL, addr, crashPoint string) []string {
	return append(os.Environ(), "DATABASE_URL="+databaseURL, "CORRIDOR_ADDR="+addr, "SESSION_SECRET="+harness.SessionSecret,
		"CIPHER_KEY=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", "RATE_LIMIT_PER_SECOND=0",
		"PAYOUT_INTERNAL_MODE=live", "PAYOUT_WALLET_A_MODE=mock", "OFFRAMP_POLL_INTERVAL=200ms", "JOBS_RESCUE_STUCK_AFTER=3s", "WEBHOOK_ALLOW_PRIVATE_TEST=true",
		"CHAIN_RPC_URL=", "LIVE_CHAIN_RPC_URL=", "LOG_LEVEL=warn", "METRICS_ADDR=off", "CORRIDOR_CRASH_POINT="+crashPoint)
}

// startService runs `corridor serve` and waits until it answers /healthz; extra environment
// entries (a chain node's) override the defaults.
func startService(t *testing.T, bin, databaseURL, crashPoint string, extra ...string) *service {
	t.Helper()
	return startServiceWith(t, bin, func(addr string) []string { return append(serviceEnv(databaseURL, addr, crashPoint), extra...) })
}

// startServiceWith runs `corridor serve` with the environment env gives for its address.
func startServiceWith(t *testing.T, bin string, env func(addr string) []string) *service {
	t.Helper()
	s := spawn(t, bin, "serve", env)
	if err := harness.WaitHealthy(s.base, s.exited, 90*time.Second); err != nil {
		t.Fatalf("corridor serve: %v (%v)\n%s", err, s.err, s.output)
	}
	return s
}

// spawn starts `corridor <command>` on a free address with the environment env gives for it,
// capturing its output, and stops it when the test ends; it does not wait for it to answer.
func spawn(t *testing.T, bin, command string, env func(addr string) []string) *service {
	t.Helper()
	addr := freeAddr(t)
	s := &service{cmd: exec.Command(bin, command), base: "http://" + addr, output: &harness.SyncBuffer{}, exited: make(chan struct{})}
	s.cmd.Env = env(addr)
	s.cmd.Stdout, s.cmd.Stderr = s.output, s.output
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.err = s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() { s.stop(t) })
	return s
}

// waitKilled waits for the process to die and fails unless SIGKILL ended it (the crash point,
// not an error exit).
func (s *service) waitKilled(t *testing.T) {
	t.Helper()
	select {
	case <-s.exited:
	case <-time.After(90 * time.Second):
		t.Fatalf("the service never reached its crash point:\n%s", s.output)
	}
	var exit *exec.ExitError
	if !errors.As(s.err, &exit) {
		t.Fatalf("the service ended with %v, want SIGKILL:\n%s", s.err, s.output)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the service ended with %v, want SIGKILL:\n%s", s.err, s.output)
	}
}

// stop ends a running service gracefully (SIGINT), or does nothing when it already ended.
func (s *service) stop(t *testing.T) {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// chaosOnly skips a crash test outside `make chaos` (CORRIDOR_CHAOS set): `make test` runs a
// bounded selection of the crash points (docs/reliability.md says which), `make chaos` all.
func chaosOnly(t *testing.T) {
	t.Helper()
	if os.Getenv("CORRIDOR_CHAOS") == "" {
		t.Skip("runs in make chaos (CORRIDOR_CHAOS=1); make test runs a bounded selection of the crash points")
	}
}
