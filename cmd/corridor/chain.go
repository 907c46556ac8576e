package main

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/corridorhq/corridor/adapters/chain"
	"github.com/corridorhq/corridor/adapters/devchain"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// chainConfig is the chain configuration per environment. TEST is served by CHAIN_RPC_URL, or
// under `corridor run` by the local dev chain when that is unset; LIVE by LIVE_CHAIN_RPC_URL on
// Base (8453). An environment without a chain answers CHAIN_UNAVAILABLE where it needs one and
// capabilities reports it unavailable (docs/decisions/tenancy.md).
type chainConfig struct {
	TestRPCURL        secret     `env:"CHAIN_RPC_URL" defaultDesc:"unset (run: the local dev chain)" desc:"JSON-RPC URL of the TEST chain, which must be chain 84532; logged as scheme and host only"`
	TestRelayerKey    secret     `env:"RELAYER_PRIVATE_KEY" defaultDesc:"unset (required with CHAIN_RPC_URL)" desc:"hex secp256k1 key that pays gas on the TEST chain (and mints TestUSDC on a dev chain); never logged"`
	TestAddressesFile string     `env:"CHAIN_ADDRESSES_FILE" defaultDesc:"unset: Safe's canonical v1.4.1 contracts" desc:"TEST contracts: an addresses.json file (chainId checked when present; without claimEscrow the chain has no claim escrow, without cardSpendModule no card settlement)"`
	TestUSDC          hexAddress `env:"USDC_ADDRESS" defaultDesc:"Circle's USDC on Base Sepolia" desc:"the TEST chain's USDC when no addresses file is given"`
	LiveRPCURL        secret     `env:"LIVE_CHAIN_RPC_URL" defaultDesc:"unset: LIVE answers CHAIN_UNAVAILABLE" desc:"JSON-RPC URL of the LIVE chain, which must be Base (8453)"`
	LiveRelayerKey    secret     `env:"LIVE_RELAYER_PRIVATE_KEY" defaultDesc:"unset (required with LIVE_CHAIN_RPC_URL)" desc:"hex secp256k1 key that pays gas on the LIVE chain; never logged"`
	LiveAddressesFile string     `env:"LIVE_CHAIN_ADDRESSES_FILE" defaultDesc:"unset: Safe's canonical v1.4.1 contracts" desc:"LIVE contracts: an addresses.json file"`
	// SandboxUSDC and LiveUSDC are shown in capabilities while no chain serves the
	// environment; LiveUSDC is also the LIVE chain's USDC when no addresses file is given.
	SandboxUSDC hexAddress    `env:"SANDBOX_USDC_ADDRESS" envDefault:"0x036CbD53842c5426634e7929541eC2318f3dCF7e" desc:"the TEST chain's USDC shown in capabilities while no chain serves TEST"`
	LiveUSDC    hexAddress    `env:"LIVE_USDC_ADDRESS" envDefault:"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" desc:"the LIVE chain's USDC (shown in capabilities; used when no LIVE addresses file is given)"`
	DialTimeout time.Duration `env:"CHAIN_DIAL_TIMEOUT" envDefault:"30s" desc:"time to connect to a configured node and check its chain id and contracts"`
	// ReattachInterval paces the probe of a node that did not answer at start (absentChains).
	ReattachInterval time.Duration `env:"CHAIN_REATTACH_INTERVAL" envDefault:"10s" min:"1s" desc:"how often a process that started without its configured node (it did not answer) asks the node for its chain id; once it answers, the process drains and restarts in place to attach it"`
	RPCTimeout       time.Duration `env:"CHAIN_RPC_TIMEOUT" envDefault:"10s" desc:"deadline of every call to a chain node (dev chain included); a node that does not answer in time is CHAIN_UNAVAILABLE (503)"`
	// Confirmation depths of the chain indexers (docs/chain.md, Confirmations and reorgs).
	TestConfirmations int    `env:"CHAIN_CONFIRMATIONS" envDefault:"0" min:"0" max:"1000" desc:"blocks the TEST chain's indexers stay below the head (0: index the head; the dev chain mines only on demand, so a deeper setting waits for later transactions)"`
	LiveConfirmations int    `env:"LIVE_CHAIN_CONFIRMATIONS" envDefault:"10" min:"1" max:"1000" desc:"blocks the LIVE chain's indexers stay below the head before posting a deposit or a claim funding; a reorg deeper than this is still undone, after the fact"`
	DevChain          onOff  `env:"CORRIDOR_DEV_CHAIN" envDefault:"on" desc:"on or off; off: run starts no dev chain (TEST then has no chain unless CHAIN_RPC_URL)"`
	GethBinary        string `env:"GETH_BINARY" envDefault:"bin/geth" desc:"the geth executable run starts"`
	// AnchorInterval paces the ledger's anchor on chain (docs/ledger.md, Anchors on chain).
	AnchorInterval time.Duration `env:"LEDGER_ANCHOR_INTERVAL" envDefault:"1h" min:"0" desc:"how often the relayer writes the Merkle root of the ledger's hash-chain heads on chain (LIVE's chain when served, else TEST's; skipped while no transfer is new); 0 turns anchoring off; off without a chain"`
	DevPort        int           `env:"CORRIDOR_CHAIN_PORT" min:"0" max:"65535" defaultDesc:"the previous port, else 8545, else a free one" desc:"the dev chain's HTTP port on 127.0.0.1 (run)"`
}

// chainEndpoint is one environment's node: its RPC URL, the relayer key that pays gas, and
// where the contract addresses come from.
type chainEndpoint struct {
	RPCURL        secret // may carry a provider API key in its path
	RelayerKey    secret // hex secp256k1 private key
	AddressesFile string // JSON with safeSingleton, safeProxyFactory, fallbackHandler, usdc
	USDC          string // overrides the canonical USDC when no addresses file is given
}

// endpoint is the node configuration of one environment.
func (c chainConfig) endpoint(env core.Environment) chainEndpoint {
	if env == core.EnvLive {
		return chainEndpoint{RPCURL: c.LiveRPCURL, RelayerKey: c.LiveRelayerKey, AddressesFile: c.LiveAddressesFile, USDC: string(c.LiveUSDC)}
	}
	return chainEndpoint{RPCURL: c.TestRPCURL, RelayerKey: c.TestRelayerKey, AddressesFile: c.TestAddressesFile, USDC: string(c.TestUSDC)}
}

// validate refuses a node without the relayer key that pays its gas, and a relayer key that
// does not parse, naming the variable and never quoting the key.
func (c chainConfig) validate() error {
	for _, e := range []struct {
		prefix   string
		rpc, key secret
	}{{"", c.TestRPCURL, c.TestRelayerKey}, {"LIVE_", c.LiveRPCURL, c.LiveRelayerKey}} {
		if e.rpc.set() && !e.key.set() {
			return configError{e.prefix + "RELAYER_PRIVATE_KEY", "is required when " + e.prefix + "CHAIN_RPC_URL is set: the relayer pays gas"}
		}
		if e.key.set() {
			if _, err := parseKey(e.key); err != nil {
				return configError{e.prefix + "RELAYER_PRIVATE_KEY", "is " + err.Error()}
			}
		}
	}
	return nil
}

// secret is a configuration value that must never reach a log: it formats as [redacted].
type secret string

func (secret) String() string               { return "[redacted]" }
func (secret) GoString() string             { return "[redacted]" }
func (secret) LogValue() slog.Value         { return slog.StringValue("[redacted]") }
func (s secret) reveal() string             { return string(s) }
func (s secret) set() bool                  { return s != "" }
func (secret) MarshalText() ([]byte, error) { return []byte("[redacted]"), nil }

// startChainsSkipping connects the chains of both environments and returns them with a function
// that releases them (and stops a dev chain this process started); nothing configured is no
// chain. skip is asked about an environment whose chain could not be started: true leaves that
// environment without a chain and carries on (serve's unreachable node, check's).
func startChainsSkipping(ctx context.Context, cfg Config, log *slog.Logger, skip func(core.Environment, error) bool) (map[core.Environment]ports.Chain, func(), error) {
	chains := map[core.Environment]ports.Chain{}
	var closers []func()
	release := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	for _, env := range []core.Environment{core.EnvTest, core.EnvLive} {
		c, closer, err := startChain(ctx, cfg, env, log)
		if err != nil && skip != nil && skip(env, err) {
			continue
		}
		if err != nil {
			release()
			return nil, nil, fmt.Errorf("%s chain: %w", env, err)
		}
		if c == nil {
			log.Info("no chain configured: wallets and payments answer CHAIN_UNAVAILABLE", "environment", env)
			continue
		}
		chains[env] = c
		closers = append(closers, closer)
	}
	return chains, release, nil
}

func startChain(ctx context.Context, cfg Config, env core.Environment, log *slog.Logger) (ports.Chain, func(), error) {
	ep := cfg.Chain.endpoint(env)
	switch {
	case ep.RPCURL.set():
		return dialConfigured(ctx, env, ep, cfg.Chain, log)
	case env == core.EnvTest && cfg.startsDevChain():
		return startDevChain(ctx, cfg, log)
	}
	return nil, nil, nil
}

// startsDevChain reports whether this process serves TEST from the local dev chain it starts
// (`corridor run` with no CHAIN_RPC_URL and CORRIDOR_DEV_CHAIN on).
func (cfg Config) startsDevChain() bool {
	return cfg.Local && !cfg.Chain.endpoint(core.EnvTest).RPCURL.set() && bool(cfg.Chain.DevChain)
}

// dialConfigured connects to a configured node: the environment's chain id is required (84532
// for TEST, 8453 for LIVE), and the contracts come from the addresses file or are Safe's
// canonical v1.4.1 deployments with Circle's USDC (or USDC_ADDRESS).
func dialConfigured(ctx context.Context, env core.Environment, ep chainEndpoint, cc chainConfig, log *slog.Logger) (ports.Chain, func(), error) {
	prefix := map[core.Environment]string{core.EnvTest: "", core.EnvLive: "LIVE_"}[env]
	key, err := parseKey(ep.RelayerKey)
	if err != nil {
		return nil, nil, fmt.Errorf("%sRELAYER_PRIVATE_KEY: %w", prefix, err)
	}
	want := wallet.DefaultChain(env)
	addrs, err := configuredAddresses(ep, want)
	if err != nil {
		return nil, nil, err
	}
	dialCtx, cancel := context.WithTimeout(ctx, cc.DialTimeout)
	defer cancel()
	rpcURL := ep.RPCURL.reveal()
	if err := checkChainID(dialCtx, rpcURL, want); err != nil {
		var wrong wrongChainError
		if errors.As(err, &wrong) {
			return nil, nil, fmt.Errorf("%sCHAIN_RPC_URL (%s): %s; %s needs chain %d", prefix, redactURL(rpcURL), redactErr(err, rpcURL), env, want)
		}
		return nil, nil, chainUnreachableError{err: fmt.Errorf("%sCHAIN_RPC_URL (%s): the node did not answer its chain id: %s",
			prefix, redactURL(rpcURL), redactErr(err, rpcURL))}
	}
	adapter, err := chain.Dial(dialCtx, rpcURL, key, addrs, chain.DialOptions{RPCTimeout: cc.RPCTimeout})
	if err != nil {
		return nil, nil, fmt.Errorf("%sCHAIN_RPC_URL (%s): %s", prefix, redactURL(rpcURL), redactErr(err, rpcURL))
	}
	log.Info("chain ready", "environment", env, "chainId", adapter.ChainID(), "rpc", redactURL(ep.RPCURL.reveal()),
		"usdc", addrs.USDC.Hex(), "relayer", adapter.RelayerAddress().Hex())
	return adapter, func() { _ = adapter.Close() }, nil
}

// checkChainID asks the node for its chain id before anything else is checked, so a URL of the
// wrong network says so rather than "no contract at …".
func checkChainID(ctx context.Context, rpcURL string, want int64) error {
	client, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return err
	}
	defer client.Close()
	id, err := client.ChainID(ctx)
	if err != nil {
		return err
	}
	if id.Int64() != want {
		return wrongChainError{served: id.Int64()}
	}
	return nil
}

// wrongChainError: the node answered with another chain id than the environment's.
type wrongChainError struct{ served int64 }

func (e wrongChainError) Error() string { return fmt.Sprintf("it serves chain %d", e.served) }

// chainUnreachableError: a configured node gave no chain id (it did not answer within
// CHAIN_DIAL_TIMEOUT, refused the connection, or answered something else than JSON-RPC), as
// opposed to a node of the wrong chain or without the contracts, which is a configuration error.
type chainUnreachableError struct{ err error }

func (e chainUnreachableError) Error() string { return e.err.Error() }
func (e chainUnreachableError) Unwrap() error { return e.err }

func configuredAddresses(ep chainEndpoint, chainID int64) (chain.Addresses, error) {
	if ep.AddressesFile != "" {
		recorded, err := devchain.ReadAddresses(ep.AddressesFile)
		if err != nil {
			return chain.Addresses{}, fmt.Errorf("chain addresses file: %w", err)
		}
		if recorded.ChainID != 0 && recorded.ChainID != chainID {
			return chain.Addresses{}, fmt.Errorf("chain addresses file %s is for chain %d, not %d", ep.AddressesFile, recorded.ChainID, chainID)
		}
		return recorded.Addresses, nil
	}
	addrs, ok := chain.CanonicalAddresses(chainID)
	if !ok {
		return chain.Addresses{}, fmt.Errorf("no canonical contracts for chain %d: set an addresses file", chainID)
	}
	if ep.USDC != "" {
		addrs.USDC = common.HexToAddress(ep.USDC)
	}
	return addrs, nil
}

// startDevChain brings up the local geth dev chain under the data directory (reusing one that
// runs there) and connects to it. The release function stops geth only if this process started
// it, with SIGTERM, waiting for it to exit.
func startDevChain(ctx context.Context, cfg Config, log *slog.Logger) (ports.Chain, func(), error) {
	dev, err := devchain.Ensure(ctx, devchain.Options{
		DataDir: filepath.Join(cfg.Service.DataDir, "chain"), Binary: cfg.Chain.GethBinary, Port: cfg.Chain.DevPort,
		Logf: func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) },
	})
	if err != nil {
		return nil, nil, fmt.Errorf("local dev chain: %w", err)
	}
	stop := func() {
		if !dev.StartedHere() {
			return
		}
		stopCtx, cancel := context.WithTimeout(context.Background(), devchain.DefaultStopTimeout)
		defer cancel()
		if err := dev.Stop(stopCtx); err != nil {
			log.Error("stopping the local dev chain failed", "error", err.Error())
			return
		}
		log.Info("local dev chain stopped", "dataDir", dev.DataDir())
	}
	adapter, err := dev.Dial(ctx, chain.DialOptions{RPCTimeout: cfg.Chain.RPCTimeout})
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("local dev chain: %w", err)
	}
	log.Info("local dev chain ready", "environment", core.EnvTest, "chainId", adapter.ChainID(), "rpc", dev.URL(),
		"usdc", adapter.USDCAddress().Hex(), "relayer", adapter.RelayerAddress().Hex(), "startedHere", dev.StartedHere())
	return adapter, func() { _ = adapter.Close(); stop() }, nil
}

// parseKey reads a hex private key; its errors never quote the value.
func parseKey(s secret) (*ecdsa.PrivateKey, error) {
	key, err := crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(s.reveal()), "0x"))
	if err != nil {
		return nil, errors.New("not a hex secp256k1 private key")
	}
	return key, nil
}

// redactURL keeps scheme and host: provider URLs carry API keys in their path or query.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "[unparseable URL]"
	}
	return u.Scheme + "://" + u.Host
}

// redactErr removes the URL from a dial error's text.
func redactErr(err error, raw string) string {
	return strings.ReplaceAll(err.Error(), raw, redactURL(raw))
}

// confirmations are the indexers' depths per environment. The bounds (min, max) were checked at
// load, so the conversions cannot overflow.
func (c chainConfig) confirmations() map[core.Environment]uint64 {
	return map[core.Environment]uint64{
		core.EnvTest: uint64(max(c.TestConfirmations, 0)), //nolint:gosec // 0..1000, checked at load
		core.EnvLive: uint64(max(c.LiveConfirmations, 0)), //nolint:gosec // 1..1000, checked at load
	}
}

// absentChains are the environments whose configured node did not answer as the process
// started: it serves without them (they answer CHAIN_UNAVAILABLE, as an environment without a
// chain does) rather than stay down for as long as the node does, and restarts in place once
// a node answers (errReattach).
type absentChains []core.Environment

// startServedChains is startChainsSkipping for a serving process: an environment whose node is
// unreachable (chainUnreachableError) is left out and reported, any other failure (a wrong
// chain id, missing contracts, a bad key) stops the start as before.
func startServedChains(ctx context.Context, cfg Config, log *slog.Logger) (map[core.Environment]ports.Chain, func(), absentChains, error) {
	var absent absentChains
	chains, release, err := startChainsSkipping(ctx, cfg, log, func(env core.Environment, err error) bool {
		var unreachable chainUnreachableError
		if !errors.As(err, &unreachable) {
			return false
		}
		log.Error("chain node unreachable at start: serving without it (CHAIN_UNAVAILABLE) until it answers, then restarting to attach it",
			"environment", env, "error", err.Error(), "probeEvery", cfg.Chain.ReattachInterval.String())
		absent = append(absent, env)
		return true
	})
	return chains, release, absent, err
}

// errReattach ends a serve whose absent node answered: main restarts the process in place.
var errReattach = errors.New("a chain node that was unreachable at start answers: restarting to attach it")

// watch probes each absent environment's node every ReattachInterval and reports the first
// that answers its chain id with the environment's; nil when nothing is absent.
func (a absentChains) watch(ctx context.Context, cfg Config) <-chan core.Environment {
	if len(a) == 0 {
		return nil
	}
	answered := make(chan core.Environment, 1)
	go func() {
		tick := time.NewTicker(cfg.Chain.ReattachInterval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			for _, env := range a {
				probe, cancel := context.WithTimeout(ctx, cfg.Chain.DialTimeout)
				err := checkChainID(probe, cfg.Chain.endpoint(env).RPCURL.reveal(), wallet.DefaultChain(env))
				cancel()
				if err == nil {
					answered <- env
					return
				}
			}
		}
	}()
	return answered
}
