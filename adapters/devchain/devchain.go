// Package devchain runs the sandbox's local EVM chain for `corridor run`: a `geth --dev` child
// process (built from the go-ethereum module, see `make geth`) with a genesis whose chain id is
// 84532, listening on 127.0.0.1 only, its state kept under a project-local directory across
// restarts, and the Safe contracts, TestUSDC and the claim escrow deployed on it once with
// their addresses recorded. It mirrors adapters/pgcluster: it reuses a node already running on the directory,
// and stops only a node it started itself.
//
// The directory (default .data/chain) holds:
//
//	relayer.key      the relayer's private key (hex, 0600): it pays gas, mints TestUSDC and
//	                 operates the claim escrow (and is its settlement address)
//	genesis.json     the dev genesis written before `geth init` (chain id 84532, relayer funded)
//	addresses.json   the deployed contracts, the chain id and the deployer (the relayer)
//	node.json        the running node's pid and HTTP port (the port is reused on later runs)
//	geth.log         the node's log
//	geth/, keystore/ geth's own data (chaindata: archive mode, hash state scheme)
//
// It is for development only: the relayer key sits in a file, the dev chain has no reorg
// protection to speak of, and nothing about it is meant to face a network.
package devchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/corridorhq/corridor/adapters/chain"
)

// ChainID is the dev chain's id: Base Sepolia's, as on the simulated chain (chain.SandboxChainID).
const ChainID = chain.SandboxChainID

// Bounds of starting and stopping the node.
const (
	readyTimeout  = 60 * time.Second
	deployTimeout = 2 * time.Minute
	// DefaultStopTimeout is how long Stop waits after SIGTERM before it kills the node.
	DefaultStopTimeout = 30 * time.Second
	// preferredPort is tried first on a fresh directory, so tools find the node at the usual
	// URL; any free port does when it is taken.
	preferredPort = 8545
)

// Options configure Ensure.
type Options struct {
	// DataDir is the chain's directory (default .data/chain); relative to the working directory.
	DataDir string
	// Binary is the geth executable (default bin/geth, as `make geth` builds it).
	Binary string
	// Port is the HTTP JSON-RPC port on 127.0.0.1; 0 reuses the port of the previous run when
	// it is free, else 8545 when free, else any free port.
	Port int
	// ArtifactsDir holds the contract build output (default chain.DefaultArtifactsDir()).
	ArtifactsDir string
	// Logf receives progress lines; nil is silent.
	Logf func(format string, args ...any)
}

// Chain is a running dev chain with its contracts deployed.
type Chain struct {
	dataDir    string
	port       int
	relayerKey *ecdsa.PrivateKey
	addrs      chain.Addresses
	proc       *process // nil when the node was already running
	logf       func(string, ...any)
}

// ErrNoBinary means the geth executable is missing; the message says how to build it.
var ErrNoBinary = errors.New("devchain: geth not found")

// Ensure returns a running dev chain in o.DataDir: it writes the genesis and runs `geth init`
// on a fresh directory, starts geth unless one already runs there, waits until it answers with
// chain id 84532, makes sure the relayer has gas money, and deploys the contracts unless the
// recorded ones are still on the chain (a wiped chain gets them again).
func Ensure(ctx context.Context, o Options) (*Chain, error) {
	o = withDefaults(o)
	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return nil, fmt.Errorf("devchain: bad data directory %q: %w", o.DataDir, err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("devchain: %w", err)
	}
	lock, err := lockFile(dataDir + ".lock")
	if err != nil {
		return nil, fmt.Errorf("devchain: lock %s: %w", dataDir, err)
	}
	defer lock.unlock()

	key, err := loadOrCreateKey(filepath.Join(dataDir, relayerKeyFile))
	if err != nil {
		return nil, err
	}
	c := &Chain{dataDir: dataDir, relayerKey: key, logf: o.Logf}
	if err := c.bringUp(ctx, o); err != nil {
		return nil, err
	}
	if err := c.prepare(ctx, o); err != nil {
		c.stopQuietly()
		return nil, err
	}
	return c, nil
}

func withDefaults(o Options) Options {
	if o.DataDir == "" {
		o.DataDir = filepath.Join(".data", "chain")
	}
	if o.Binary == "" {
		o.Binary = filepath.Join("bin", "geth")
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o
}

// bringUp reuses a node running on the directory or initialises and starts one.
func (c *Chain) bringUp(ctx context.Context, o Options) error {
	if port, ok := c.runningNode(ctx); ok {
		c.port = port
		c.logf("devchain: reusing geth already running on 127.0.0.1:%d (%s)", port, c.dataDir)
		return nil
	}
	binary, err := findBinary(o.Binary)
	if err != nil {
		return err
	}
	if err := c.initGenesis(ctx, binary); err != nil {
		return err
	}
	port, err := c.choosePort(o.Port)
	if err != nil {
		return err
	}
	err = c.start(ctx, binary, port)
	if errors.Is(err, ErrForeignNode) && o.Port == 0 {
		// Another checkout's node took the port between the check and geth's bind: a port
		// chosen here (not asked for) moves to a fresh one, which the kernel just handed out.
		c.logf("devchain: 127.0.0.1:%d was taken by another checkout's node; starting on a fresh port", port)
		if port, err = freshPort(); err != nil {
			return err
		}
		err = c.start(ctx, binary, port)
	}
	return err
}

// prepare checks the chain id, funds the relayer and deploys or verifies the contracts.
func (c *Chain) prepare(ctx context.Context, o Options) error {
	client, err := ethclient.DialContext(ctx, c.URL())
	if err != nil {
		return fmt.Errorf("devchain: %w", err)
	}
	defer client.Close()
	id, err := client.ChainID(ctx)
	if err != nil {
		return fmt.Errorf("devchain: reading the chain id: %w", err)
	}
	if id.Int64() != ChainID {
		return fmt.Errorf("devchain: the node on %s has chain id %d, not %d: %s was made by something else; move it away (or `make clean-data`)",
			c.URL(), id, ChainID, c.dataDir)
	}
	if err := c.fundRelayer(ctx, client); err != nil {
		return err
	}
	deployCtx, cancel := context.WithTimeout(ctx, deployTimeout)
	defer cancel()
	c.addrs, err = c.ensureContracts(deployCtx, client, o.ArtifactsDir)
	return err
}

// URL is the node's HTTP JSON-RPC endpoint.
func (c *Chain) URL() string { return fmt.Sprintf("http://127.0.0.1:%d", c.port) }

// Port is the node's HTTP port on 127.0.0.1.
func (c *Chain) Port() int { return c.port }

// DataDir is the chain's directory.
func (c *Chain) DataDir() string { return c.dataDir }

// Addresses are the deployed contracts.
func (c *Chain) Addresses() chain.Addresses { return c.addrs }

// RelayerKey is the key that pays gas and mints TestUSDC on the dev chain.
func (c *Chain) RelayerKey() *ecdsa.PrivateKey { return c.relayerKey }

// StartedHere reports whether this process started the node (and so stops it).
func (c *Chain) StartedHere() bool { return c.proc != nil }

// Dial connects the chain adapter to the node with the relayer key and the deployed contracts;
// opts bound every call to the node as on any other chain.
func (c *Chain) Dial(ctx context.Context, opts chain.DialOptions) (*chain.Adapter, error) {
	return chain.Dial(ctx, c.URL(), c.relayerKey, c.addrs, opts)
}

// Stop sends SIGTERM to a node this process started and waits for it to exit (geth flushes its
// state on the way out), killing it when ctx ends first. A reused node is left running.
func (c *Chain) Stop(ctx context.Context) error {
	if c.proc == nil {
		return nil
	}
	err := c.proc.stop(ctx)
	c.proc = nil
	clearPID(c.dataDir)
	return err
}

func (c *Chain) stopQuietly() {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultStopTimeout)
	defer cancel()
	_ = c.Stop(ctx)
}
