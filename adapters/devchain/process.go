package devchain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/corridorhq/corridor/adapters/localproc"
)

const (
	nodeStateFile = "node.json"
	logFileName   = "geth.log"
	logTailLines  = 20
)

// nodeState is node.json: the pid of the node this directory's last starter ran, and its port.
type nodeState struct {
	PID  int `json:"pid"`
	Port int `json:"port"`
}

func readState(dataDir string) nodeState {
	var s nodeState
	if raw, err := os.ReadFile(filepath.Join(dataDir, nodeStateFile)); err == nil {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

func writeState(dataDir string, s nodeState) error {
	raw, _ := json.Marshal(s)
	return writeFileAtomic(filepath.Join(dataDir, nodeStateFile), append(raw, '\n'), 0o600)
}

// clearPID forgets the pid of a stopped node and keeps its port for the next run.
func clearPID(dataDir string) {
	s := readState(dataDir)
	s.PID = 0
	_ = writeState(dataDir, s)
}

// runningNode reports the port of a geth already running on this directory (another `corridor
// run`, or one left behind by a crash) once it answers, waiting for one that is still starting.
func (c *Chain) runningNode(ctx context.Context) (int, bool) {
	s := readState(c.dataDir)
	if s.PID <= 0 || s.Port <= 0 {
		return 0, false
	}
	deadline := time.Now().Add(readyTimeout)
	for isOurNode(s.PID, c.dataDir) {
		if answers(ctx, s.Port) {
			// The port may have passed to another checkout's node since: reuse only ours.
			return s.Port, c.hasOurGenesis(ctx, s.Port) == nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return 0, false
		}
		time.Sleep(200 * time.Millisecond)
	}
	return 0, false
}

// isOurNode checks that pid is alive and, where /proc can tell, is geth running on dataDir: a
// pid reused by another program since is not ours.
func isOurNode(pid int, dataDir string) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	proc := fmt.Sprintf("/proc/%d", pid)
	if _, err := os.Stat(proc); err != nil {
		return true // no procfs (macOS): trust the liveness check
	}
	if stat, err := os.ReadFile(proc + "/stat"); err == nil && isZombie(stat) {
		return false
	}
	cmdline, err := os.ReadFile(proc + "/cmdline")
	if err != nil {
		return false
	}
	args := strings.Split(string(cmdline), "\x00")
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--datadir" && args[i+1] == dataDir {
			return strings.Contains(filepath.Base(args[0]), "geth")
		}
	}
	return false
}

func isZombie(stat []byte) bool {
	i := strings.LastIndexByte(string(stat), ')')
	return i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}

// answers reports whether a JSON-RPC node answers eth_chainId on 127.0.0.1:port.
func answers(ctx context.Context, port int) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	client, err := ethclient.DialContext(ctx, fmt.Sprintf("http://127.0.0.1:%d", port))
	if err != nil {
		return false
	}
	defer client.Close()
	_, err = client.ChainID(ctx)
	return err == nil
}

func findBinary(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%w at %s: run `make geth` (it builds go-ethereum v1.17.8's geth into bin/), set GETH_BINARY, set CHAIN_RPC_URL to use another node, or CORRIDOR_DEV_CHAIN=off to run without a chain", ErrNoBinary, abs)
	}
	return abs, nil
}

// choosePort returns want when set, else the previous run's port while it is free, else 8545
// while free, else a fresh free port.
func (c *Chain) choosePort(want int) (int, error) {
	if want != 0 {
		if !portFree(want) {
			return 0, fmt.Errorf("devchain: port %d on 127.0.0.1 is taken", want)
		}
		return want, nil
	}
	for _, p := range []int{readState(c.dataDir).Port, preferredPort} {
		if p > 0 && portFree(p) {
			return p, nil
		}
	}
	return freshPort()
}

// freshPort is a port the kernel hands out on 127.0.0.1 (released at once for geth to bind).
func freshPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func portFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// nodeArgs are geth's flags: dev mode on the directory's chain (its genesis written by
// initGenesis), a block per transaction, archive state in the hash scheme so state survives
// restarts, HTTP on loopback only, no peers, no discovery, no IPC socket.
func nodeArgs(dataDir string, port int) []string {
	return []string{
		"--dev", "--dev.period", "0",
		"--datadir", dataDir,
		"--state.scheme", "hash", "--gcmode", "archive",
		"--networkid", strconv.Itoa(ChainID),
		"--http", "--http.addr", "127.0.0.1", "--http.port", strconv.Itoa(port),
		"--http.api", "eth,net,web3,txpool", "--http.vhosts", "localhost,127.0.0.1",
		"--nodiscover", "--maxpeers", "0", "--nat", "none",
		"--authrpc.addr", "127.0.0.1", "--authrpc.port", strconv.Itoa(authPort(port)),
		"--ipcdisable",
	}
}

// authPort is the engine API port. Dev mode serves no engine API, but geth still parses the
// flag: keep it on loopback and away from the default 8551 of another node.
func authPort(httpPort int) int {
	if httpPort < 65535-6 {
		return httpPort + 6
	}
	return httpPort - 6
}

// process is a node this process started.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the node has exited
	err  error         // its exit status, once done is closed
	log  *os.File
}

// start runs geth in its own process group, so a Ctrl-C in the terminal reaches corridor only
// and corridor stops the node in order, after the service has drained.
func (c *Chain) start(ctx context.Context, binary string, port int) error {
	logPath := filepath.Join(c.dataDir, logFileName)
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("devchain: %w", err)
	}
	cmd := exec.Command(binary, nodeArgs(c.dataDir, port)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("devchain: starting %s: %w", binary, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{}), log: logFile}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	c.proc, c.port = p, port
	if err := writeState(c.dataDir, nodeState{PID: cmd.Process.Pid, Port: port}); err != nil {
		c.stopQuietly()
		return fmt.Errorf("devchain: %w", err)
	}
	if err := p.awaitReady(ctx, port, c.hasOurGenesis); err != nil {
		c.stopQuietly()
		return fmt.Errorf("%w\ngeth log %s ends:\n%s", err, logPath, localproc.Tail(logPath, logTailLines))
	}
	c.logf("devchain: started geth (chain %d) on 127.0.0.1:%d in %s (data %s)", ChainID, port, time.Since(begin).Round(time.Millisecond), c.dataDir)
	return nil
}

// awaitReady waits until the node on port answers and is the one this checkout started: its
// child is still running and the genesis block is this directory's (the relayer the genesis
// funds is per directory, so another checkout's node has another genesis hash). A node that
// answers with another genesis is someone else's: geth lost the port to it, and start-up fails
// saying so instead of deploying to a chain that is not ours.
func (p *process) awaitReady(ctx context.Context, port int, ours func(context.Context, int) error) error {
	deadline := time.After(readyTimeout)
	var foreign error
	for {
		if answers(ctx, port) {
			if foreign = ours(ctx, port); foreign == nil && p.running() {
				return nil
			}
		}
		select {
		case <-p.done:
			if foreign != nil {
				return fmt.Errorf("devchain: geth exited during start-up (%v) and 127.0.0.1:%d is answered by another node: %w", p.err, port, foreign)
			}
			return fmt.Errorf("devchain: geth exited during start-up: %v", p.err)
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return fmt.Errorf("devchain: geth did not answer on 127.0.0.1:%d within %s", port, readyTimeout)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// ErrForeignNode is a node answering on the port this checkout's geth was to listen on that is
// not this checkout's chain (another checkout's `make run` took the port first).
var ErrForeignNode = errors.New("devchain: another checkout's dev chain answers on this port")

// running reports whether the child has not exited.
func (p *process) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// hasOurGenesis checks that the node on port has this directory's genesis block.
func (c *Chain) hasOurGenesis(ctx context.Context, port int) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	client, err := ethclient.DialContext(ctx, fmt.Sprintf("http://127.0.0.1:%d", port))
	if err != nil {
		return err
	}
	defer client.Close()
	header, err := client.HeaderByNumber(ctx, big.NewInt(0))
	if err != nil {
		return err
	}
	want := Genesis(crypto.PubkeyToAddress(c.relayerKey.PublicKey)).ToBlock().Hash()
	if header.Hash() != want {
		return fmt.Errorf("%w: its genesis block is %s, not %s of this checkout's chain (%s)", ErrForeignNode, header.Hash(), want, c.dataDir)
	}
	return nil
}

// stop sends SIGTERM and waits; when ctx ends first it kills the node and waits for that.
func (p *process) stop(ctx context.Context) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("devchain: SIGTERM to geth: %w", err)
	}
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	return fmt.Errorf("devchain: geth did not stop after SIGTERM; killed it")
}

// writeFileAtomic writes through a temporary file and a rename, so a crash never leaves half a
// file behind.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, perm); err != nil {
		return err
	}
	if err := os.Chmod(tmp, perm); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// dirLock serialises Ensure across processes (two `make run` at once, parallel tests).
type dirLock struct{ f *os.File }

func lockFile(path string) (*dirLock, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return &dirLock{f: f}, nil
}

func (l *dirLock) unlock() {
	if l != nil && l.f != nil {
		_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		l.f.Close()
		l.f = nil
	}
}
