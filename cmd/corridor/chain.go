package main

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"corridor/adapters/chain"
	"corridor/adapters/devchain"
	"corridor/core"
	"corridor/core/wallet"
	"corridor/ports"
)

// chainConfig is the chain configuration per environment. TEST is served by CHAIN_RPC_URL, or
// under `corridor run` by the local dev chain when that is unset; LIVE by LIVE_CHAIN_RPC_URL on
// Base (8453). An environment without a chain answers CHAIN_UNAVAILABLE where it needs one and
// capabilities reports it unavailable (D1).
type chainConfig struct {
	Test, Live chainEndpoint
	// DevChain is on for `corridor run` (set by runLocal, not by the environment).
	DevChain bool
	// DevChainOff (CORRIDOR_DEV_CHAIN=off) runs `corridor run` without a chain.
	DevChainOff bool
	GethBinary  string // GETH_BINARY, default bin/geth
	DevPort     int    // CORRIDOR_CHAIN_PORT, default 0: the previous port, else 8545, else any
}

// chainEndpoint is one environment's node: its RPC URL, the relayer key that pays gas, and
// where the contract addresses come from.
type chainEndpoint struct {
	RPCURL        secret // may carry a provider API key in its path
	RelayerKey    secret // hex secp256k1 private key
	AddressesFile string // JSON with safeSingleton, safeProxyFactory, fallbackHandler, usdc
	USDC          string // overrides the canonical USDC when no addresses file is given
}

// secret is a configuration value that must never reach a log: it formats as [redacted].
type secret string

func (secret) String() string               { return "[redacted]" }
func (secret) GoString() string             { return "[redacted]" }
func (secret) LogValue() slog.Value         { return slog.StringValue("[redacted]") }
func (s secret) reveal() string             { return string(s) }
func (s secret) set() bool                  { return s != "" }
func (secret) MarshalText() ([]byte, error) { return []byte("[redacted]"), nil }

func loadChainConfig() (chainConfig, error) {
	c := chainConfig{
		Test: chainEndpoint{
			RPCURL: secret(os.Getenv("CHAIN_RPC_URL")), RelayerKey: secret(os.Getenv("RELAYER_PRIVATE_KEY")),
			AddressesFile: os.Getenv("CHAIN_ADDRESSES_FILE"), USDC: os.Getenv("USDC_ADDRESS"),
		},
		Live: chainEndpoint{
			RPCURL: secret(os.Getenv("LIVE_CHAIN_RPC_URL")), RelayerKey: secret(os.Getenv("LIVE_RELAYER_PRIVATE_KEY")),
			AddressesFile: os.Getenv("LIVE_CHAIN_ADDRESSES_FILE"), USDC: os.Getenv("LIVE_USDC_ADDRESS"),
		},
		GethBinary: envOr("GETH_BINARY", filepath.Join("bin", "geth")),
	}
	switch v := strings.ToLower(os.Getenv("CORRIDOR_DEV_CHAIN")); v {
	case "", "on", "true", "1":
	case "off", "false", "0":
		c.DevChainOff = true
	default:
		return c, fmt.Errorf("CORRIDOR_DEV_CHAIN must be on or off, got %q", v)
	}
	var err error
	c.DevPort, err = envInt("CORRIDOR_CHAIN_PORT", 0)
	errs := []error{err}
	for _, e := range []struct {
		prefix string
		ep     chainEndpoint
	}{{"", c.Test}, {"LIVE_", c.Live}} {
		if e.ep.RPCURL.set() && !e.ep.RelayerKey.set() {
			errs = append(errs, fmt.Errorf("%sCHAIN_RPC_URL is set but %sRELAYER_PRIVATE_KEY is not: the relayer pays gas", e.prefix, e.prefix))
		}
		if e.ep.USDC != "" && !common.IsHexAddress(e.ep.USDC) {
			errs = append(errs, fmt.Errorf("%sUSDC_ADDRESS is not an address", e.prefix))
		}
	}
	return c, errors.Join(errs...)
}

// chainDialTimeout bounds connecting to a configured node and checking its contracts.
const chainDialTimeout = 30 * time.Second

// startChains connects the chains of both environments and returns them with a function that
// releases them (and stops a dev chain this process started). Nothing configured is no chain.
func startChains(ctx context.Context, cfg config, log *slog.Logger) (map[core.Environment]ports.Chain, func(), error) {
	chains := map[core.Environment]ports.Chain{}
	var closers []func()
	release := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	for _, env := range []core.Environment{core.EnvTest, core.EnvLive} {
		c, closer, err := startChain(ctx, cfg, env, log)
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

func startChain(ctx context.Context, cfg config, env core.Environment, log *slog.Logger) (ports.Chain, func(), error) {
	ep := cfg.Chain.Test
	if env == core.EnvLive {
		ep = cfg.Chain.Live
	}
	switch {
	case ep.RPCURL.set():
		return dialConfigured(ctx, env, ep, log)
	case env == core.EnvTest && cfg.Chain.DevChain && !cfg.Chain.DevChainOff:
		return startDevChain(ctx, cfg, log)
	}
	return nil, nil, nil
}

// dialConfigured connects to a configured node: the environment's chain id is required (84532
// for TEST, 8453 for LIVE), and the contracts come from the addresses file or are Safe's
// canonical v1.4.1 deployments with Circle's USDC (or USDC_ADDRESS).
func dialConfigured(ctx context.Context, env core.Environment, ep chainEndpoint, log *slog.Logger) (ports.Chain, func(), error) {
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
	dialCtx, cancel := context.WithTimeout(ctx, chainDialTimeout)
	defer cancel()
	rpcURL := ep.RPCURL.reveal()
	if err := checkChainID(dialCtx, rpcURL, want); err != nil {
		return nil, nil, fmt.Errorf("%sCHAIN_RPC_URL (%s): %s; %s needs chain %d", prefix, redactURL(rpcURL), redactErr(err, rpcURL), env, want)
	}
	adapter, err := chain.Dial(dialCtx, rpcURL, key, addrs)
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
		return fmt.Errorf("it serves chain %d", id)
	}
	return nil
}

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
func startDevChain(ctx context.Context, cfg config, log *slog.Logger) (ports.Chain, func(), error) {
	dev, err := devchain.Ensure(ctx, devchain.Options{
		DataDir: filepath.Join(cfg.DataDir, "chain"), Binary: cfg.Chain.GethBinary, Port: cfg.Chain.DevPort,
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
	adapter, err := dev.Dial(ctx)
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
