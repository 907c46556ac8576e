package chain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/params"

	"github.com/corridorhq/corridor/core/claim"
)

// SandboxChainID is the sandbox's chain id (Base Sepolia's), on the simulated chain and on the
// local dev chain alike, so signatures made in the sandbox name the chain a partner expects.
const SandboxChainID = 84532

// SimulatedOptions configures NewSimulated. The zero value works.
type SimulatedOptions struct {
	// ArtifactsDir holds the contract build output; default DefaultArtifactsDir().
	ArtifactsDir string
	// RelayerKey pays gas and mints TestUSDC; a fresh key when nil.
	RelayerKey *ecdsa.PrivateKey
	// Funded accounts start with FundedBalanceWei each (for tests whose owners send too).
	Funded []common.Address
	// ClaimGracePeriod is the escrow's grace period in whole seconds; claim.DefaultGracePeriod
	// when zero.
	ClaimGracePeriod time.Duration
	// Intercept, when set, wraps the client the adapter talks through once the contracts are
	// deployed (NewStallable makes the node stop answering on demand).
	Intercept func(Client) Client
	// RPCTimeout, when positive, bounds every call of the adapter as on a real node
	// (WithRPCTimeout); zero leaves the in-process chain unbounded, as it never hangs.
	RPCTimeout time.Duration
	// ManualMining leaves the adapter's transactions pending in the pool until MineSimulated
	// (the contracts are still deployed and mined first), as on a real node that is slow to
	// include them: for tests of fee bumps.
	ManualMining bool
	// HTTPAddr, when set ("127.0.0.1:PORT"), serves the chain's JSON-RPC (eth, net, web3) over
	// HTTP there, so another process can use it as its node: a crash test's binary, killed and
	// started again while the chain lives on in the test. Its sends are sealed by AutoMine.
	HTTPAddr string
}

// simulatedRelayerBalance is what the relayer starts with: 1,000,000 ETH in wei.
var simulatedRelayerBalance = new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(params.Ether))

// FundedBalanceWei is the genesis balance of SimulatedOptions.Funded accounts: 100 ETH.
var FundedBalanceWei = new(big.Int).Mul(big.NewInt(100), big.NewInt(params.Ether))

// NewSimulated starts go-ethereum's in-process simulated chain with chain id 84532, a funded
// relayer, and SafeL2, SafeProxyFactory, CompatibilityFallbackHandler, TestUSDC and
// ClaimEscrow (operator and settlement: the relayer) deployed from contracts/build. Every
// transaction the adapter sends is mined in its own block before the call returns, so receipts,
// balances and logs are final at once. Close stops the chain.
func NewSimulated(ctx context.Context, opts SimulatedOptions) (*Adapter, error) {
	dir := opts.ArtifactsDir
	if dir == "" {
		var err error
		if dir, err = DefaultArtifactsDir(); err != nil {
			return nil, err
		}
	}
	arts, err := LoadArtifacts(dir)
	if err != nil {
		return nil, err
	}
	key := opts.RelayerKey
	if key == nil {
		if key, err = crypto.GenerateKey(); err != nil {
			return nil, err
		}
	}
	backend, err := newSimulatedBackend(key, opts.Funded, opts.HTTPAddr)
	if err != nil {
		return nil, err
	}
	commit := func() { backend.Commit() }
	client := backend.Client()
	grace := opts.ClaimGracePeriod
	if grace == 0 {
		grace = claim.DefaultGracePeriod
	}
	addrs, err := deployContracts(ctx, newRelayer(client, key, big.NewInt(SandboxChainID), commit), arts, grace)
	if err != nil {
		_ = backend.Close()
		return nil, fmt.Errorf("chain: simulated chain: %w", err)
	}
	var adapterClient Client = client
	if opts.Intercept != nil {
		adapterClient = opts.Intercept(adapterClient)
	}
	if opts.RPCTimeout > 0 {
		adapterClient = WithRPCTimeout(adapterClient, opts.RPCTimeout)
	}
	adapterClient = WithTracing(adapterClient)
	afterSend := commit
	if opts.ManualMining {
		afterSend = nil
	}
	a, err := New(ctx, adapterClient, key, addrs, afterSend)
	if err != nil {
		_ = backend.Close()
		return nil, err
	}
	a.close = backend.Close
	a.adjustTime = backend.AdjustTime
	a.fork, a.mine = backend.Fork, backend.Commit
	return a, nil
}

// newSimulatedBackend starts an empty simulated chain with chain id 84532, the relayer and the
// funded accounts holding their genesis balances, serving JSON-RPC over HTTP at httpAddr when set.
func newSimulatedBackend(relayerKey *ecdsa.PrivateKey, funded []common.Address, httpAddr string) (*simulated.Backend, error) {
	alloc := types.GenesisAlloc{crypto.PubkeyToAddress(relayerKey.PublicKey): {Balance: simulatedRelayerBalance}}
	for _, account := range funded {
		alloc[account] = types.Account{Balance: FundedBalanceWei}
	}
	host, port := "", 0
	if httpAddr != "" {
		h, p, err := net.SplitHostPort(httpAddr)
		if err != nil {
			return nil, fmt.Errorf("chain: simulated HTTPAddr %q: %w", httpAddr, err)
		}
		if host, port = h, 0; p != "" {
			if port, err = strconv.Atoi(p); err != nil || port <= 0 {
				return nil, fmt.Errorf("chain: simulated HTTPAddr %q needs a port", httpAddr)
			}
		}
	}
	return simulated.NewBackend(alloc, func(nodeConf *node.Config, ethConf *ethconfig.Config) {
		// The node holds no accounts, but without a directory it makes a temporary keystore
		// that only Close removes: every chain a test process left open (a package's shared
		// one, a panicking test's) left one behind in the temporary directory. One empty
		// directory per user serves them all.
		nodeConf.KeyStoreDir = simulatedKeystore()
		config := *ethConf.Genesis.Config
		config.ChainID = big.NewInt(SandboxChainID)
		ethConf.Genesis.Config = &config
		ethConf.NetworkId = SandboxChainID
		if host != "" {
			nodeConf.HTTPHost, nodeConf.HTTPPort = host, port
			nodeConf.HTTPModules, nodeConf.HTTPVirtualHosts = []string{"eth", "net", "web3"}, []string{"*"}
		}
	}), nil
}

// simulatedKeystore is the simulated nodes' keystore: one empty directory per user under the
// temporary directory, never written (the nodes hold no accounts) and never removed.
func simulatedKeystore() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("corridor-simulated-keystore-%d", os.Getuid()))
}

// AutoMine seals a block whenever transactions wait in the simulated chain's pool, checking
// every interval until ctx ends: the block producer of a chain served over HTTP (HTTPAddr),
// whose senders are other processes. Blocks are sealed only with transactions, so the chain's
// clock keeps to the wall clock.
func (a *Adapter) AutoMine(ctx context.Context, interval time.Duration) {
	go func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if n, err := a.client.PendingTransactionCount(ctx); err == nil && n > 0 {
				_, _ = a.MineSimulated()
			}
		}
	}()
}

// AdjustSimulatedTime moves the simulated chain's clock forward by d (whole seconds) and mines
// an empty block with that timestamp; later blocks follow it. For tests of expiry and grace
// periods; on a real node it returns an error.
func (a *Adapter) AdjustSimulatedTime(d time.Duration) error {
	if a.adjustTime == nil {
		return errors.New("chain: only the simulated chain's time can be adjusted")
	}
	if d < time.Second {
		return fmt.Errorf("chain: adjust the simulated time by at least a second, not %s", d)
	}
	// The relayer's lock keeps sends out while the block is sealed: the simulated beacon refuses
	// to adjust time with transactions pending.
	a.relay.mu.Lock()
	defer a.relay.mu.Unlock()
	err := a.adjustTime(d)
	if err != nil && a.mine != nil && strings.Contains(err.Error(), "non-empty block") {
		// A transaction reached the pool without its block being sealed (the simulated
		// backend's own timing): seal it first, as a real chain would, then move the clock.
		a.mine()
		err = a.adjustTime(d)
	}
	return err
}

// ForkSimulated makes the block parent the simulated chain's head, dropping every block after
// it, as a reorg would; the next MineSimulated builds on it (and may include transactions of the
// dropped blocks again). For tests of the indexers' reorg handling.
func (a *Adapter) ForkSimulated(parent common.Hash) error {
	if a.fork == nil {
		return errors.New("chain: only the simulated chain can be forked")
	}
	a.relay.mu.Lock()
	defer a.relay.mu.Unlock()
	return a.fork(parent)
}

// MineSimulated seals one block on the simulated chain (with whatever transactions are pending)
// and returns its hash.
func (a *Adapter) MineSimulated() (common.Hash, error) {
	if a.mine == nil {
		return common.Hash{}, errors.New("chain: only the simulated chain can be mined on demand")
	}
	a.relay.mu.Lock()
	defer a.relay.mu.Unlock()
	return a.mine(), nil
}

// NewReplica returns another adapter over the same simulated node, contracts and relayer key,
// as a second replica of the service would hold: its relayer tracks nonces on its own. For
// tests of the nonce discipline across replicas.
func (a *Adapter) NewReplica(ctx context.Context) (*Adapter, error) {
	return New(ctx, a.client, a.relay.key, a.addrs, a.relay.afterSend)
}

// TransactionNonce is the nonce a transaction was signed with, for tests of the nonce
// discipline.
func (a *Adapter) TransactionNonce(ctx context.Context, hash common.Hash) (uint64, error) {
	tx, _, err := a.client.TransactionByHash(ctx, hash)
	if err != nil {
		return 0, err
	}
	return tx.Nonce(), nil
}
