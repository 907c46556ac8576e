// Package chain is the go-ethereum adapter of ports.Chain and ports.ClaimEscrow: Safe v1.4.1
// wallets, a USDC token and Corridor's claim escrow on one EVM chain, with a relayer key that
// pays gas. NewSimulated runs an in-process chain (tests), Dial a real node (geth --dev in the
// sandbox, Base and Base Sepolia), and DeployContracts puts the Safe contracts, TestUSDC and
// ClaimEscrow on a fresh dev chain once.
package chain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/corridorhq/corridor/adapters/chain/bindings"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/ports"
)

var (
	_ ports.Chain       = (*Adapter)(nil)
	_ ports.AnchorChain = (*Adapter)(nil)
)

// Addresses are the contracts the adapter works with on one chain: configuration on real
// chains (Safe's canonical v1.4.1 deployments and Circle's USDC), recorded by DeployContracts
// on a dev chain.
type Addresses struct {
	SafeSingleton    common.Address `json:"safeSingleton"` // SafeL2
	SafeProxyFactory common.Address `json:"safeProxyFactory"`
	FallbackHandler  common.Address `json:"fallbackHandler"` // CompatibilityFallbackHandler
	USDC             common.Address `json:"usdc"`
	// ClaimEscrow is contracts/src/ClaimEscrow.sol with the relayer as operator; zero when the
	// chain has none (its methods then say the escrow is not configured).
	ClaimEscrow common.Address `json:"claimEscrow"`
	// CardSpendModule is contracts/src/CardSpendModule.sol with the relayer as operator; zero
	// when the chain has none (cards are then unavailable there).
	CardSpendModule common.Address `json:"cardSpendModule"`
	// CheckoutFactory is contracts/src/CheckoutDepositFactory.sol with the relayer as operator
	// and settlement; zero when the chain has none (hosted checkout is then unavailable there).
	CheckoutFactory common.Address `json:"checkoutFactory,omitempty"`
}

// Adapter implements ports.Chain over a node client, and through its embedded contract parts
// ports.ClaimEscrow, ports.CardSpendModule and ports.CheckoutDeposits.
type Adapter struct {
	// reader answers every read (balances, Safe state, blocks, logs); Adapter adds what sends:
	// Safe deployment and execution, USDC and ETH from the relayer, receipts, fee bumps.
	*reader
	relay      *relayer
	deployment safe.Deployment
	close      func() error
	factory    *bindings.SafeProxyFactory

	// The project's own contracts, each with its own type: the claim escrow, the card spend
	// module and the checkout deposit factory.
	*ClaimEscrow
	*CardModule
	*CheckoutFactory

	// adjustTime moves the simulated chain's clock (nil on a real node).
	adjustTime func(time.Duration) error
	// fork and mine rewind and extend the simulated chain (nil on a real node).
	fork func(parent common.Hash) error
	mine func() common.Hash
}

var (
	executionFailureTopic = bindings.NewSafeL2().GetABI().Events["ExecutionFailure"].ID
	transferTopic         = bindings.NewTestUSDC().GetABI().Events["Transfer"].ID
)

// DialOptions bound the connection to a real node.
type DialOptions struct {
	// RPCTimeout bounds every call to the node, the checks Dial makes included (0:
	// DefaultRPCTimeout). See WithRPCTimeout.
	RPCTimeout time.Duration
}

// Dial connects to a node at rpcURL and checks that the configured contracts are deployed there.
// relayerKey pays gas for every transaction (and mints TestUSDC on a dev chain, where it is
// the minter). Every call to the node, from here on, ends within opts.RPCTimeout.
func Dial(ctx context.Context, rpcURL string, relayerKey *ecdsa.PrivateKey, addrs Addresses, opts DialOptions) (*Adapter, error) {
	if opts.RPCTimeout <= 0 {
		opts.RPCTimeout = DefaultRPCTimeout
	}
	client, err := dialRedacted(ctx, rpcURL, opts.RPCTimeout)
	if err != nil {
		return nil, fmt.Errorf("chain: dialing %s: %w", redactedURL(rpcURL), err)
	}
	a, err := New(ctx, WithTracing(WithRPCTimeout(client, opts.RPCTimeout)), relayerKey, addrs, nil)
	if err != nil {
		client.Close()
		return nil, err
	}
	a.close = func() error { client.Close(); return nil }
	return a, nil
}

// UseNonceKeeper makes the relayer take its nonces from keeper, under a lock shared by every
// replica. The first keeper stays: services built over one adapter (as tests build several
// over one simulated chain) share it.
func (a *Adapter) UseNonceKeeper(keeper NonceKeeper) {
	a.relay.mu.Lock()
	defer a.relay.mu.Unlock()
	if a.relay.keeper == nil {
		a.relay.keeper = keeper
	}
}

// New builds an adapter over any client. afterSend, when not nil, runs after each transaction
// the relayer sends (the simulated chain commits a block there). It reads the chain id, the
// factory's proxy creation code and the claim escrow's settings, and fails when a configured
// contract has no code or the escrow is not operated by relayerKey for this USDC.
func New(ctx context.Context, client Client, relayerKey *ecdsa.PrivateKey, addrs Addresses, afterSend func()) (*Adapter, error) {
	if relayerKey == nil {
		return nil, errors.New("chain: a relayer key is required")
	}
	chainID, err := client.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("chain: reading the chain id: %w", err)
	}
	r := &reader{client: client, chainID: chainID.Int64(), addrs: addrs, safeL2: bindings.NewSafeL2(), usdc: bindings.NewTestUSDC()}
	relay := newRelayer(client, relayerKey, chainID, afterSend)
	a := &Adapter{
		reader: r, relay: relay, close: func() error { return nil }, factory: bindings.NewSafeProxyFactory(),
		ClaimEscrow:     &ClaimEscrow{reader: r, relay: relay, escrow: bindings.NewClaimEscrow()},
		CardModule:      &CardModule{reader: r, relay: relay, cardModule: bindings.NewCardSpendModule()},
		CheckoutFactory: &CheckoutFactory{reader: r, relay: relay, checkoutFactory: bindings.NewCheckoutDepositFactory()},
	}
	for name, addr := range map[string]common.Address{
		"Safe singleton": addrs.SafeSingleton, "SafeProxyFactory": addrs.SafeProxyFactory,
		"fallback handler": addrs.FallbackHandler, "USDC": addrs.USDC,
	} {
		deployed, err := a.IsDeployed(ctx, addr)
		if err != nil {
			return nil, err
		}
		if !deployed {
			return nil, fmt.Errorf("chain: no %s contract at %s on chain %d", name, addr.Hex(), a.chainID)
		}
	}
	out, err := a.call(ctx, addrs.SafeProxyFactory, a.factory.PackProxyCreationCode())
	if err != nil {
		return nil, err
	}
	proxyCode, err := a.factory.UnpackProxyCreationCode(out)
	if err != nil {
		return nil, fmt.Errorf("chain: proxyCreationCode: %w", err)
	}
	a.deployment = safe.Deployment{Factory: addrs.SafeProxyFactory, Singleton: addrs.SafeSingleton, ProxyCreationCode: proxyCode}
	if a.escrowConfig, err = a.readEscrowConfig(ctx); err != nil {
		return nil, err
	}
	if a.cardSettlement, err = a.readCardModuleConfig(ctx); err != nil {
		return nil, err
	}
	if a.checkoutCodeHash, err = a.readCheckoutFactoryConfig(ctx); err != nil {
		return nil, err
	}
	return a, nil
}

// Close releases the connection (and stops the simulated chain).
func (a *Adapter) Close() error { return a.close() }

// Addresses returns the contracts in use, for configuration output and capabilities.
func (a *Adapter) Addresses() Addresses { return a.addrs }

// RelayerAddress is the account that pays gas.
func (a *Adapter) RelayerAddress() common.Address { return a.relay.from }

// SafeDeployment implements ports.Chain.
func (a *Adapter) SafeDeployment() ports.SafeDeployment {
	return ports.SafeDeployment{ProxyFactory: a.addrs.SafeProxyFactory, Singleton: a.addrs.SafeSingleton, FallbackHandler: a.addrs.FallbackHandler}
}

// safeConfig is the Safe cfg decides; with a SetupModule, setup delegatecalls its
// enableOnSetup (the card spend module's interface), so the Safe starts with it enabled.
func (a *Adapter) safeConfig(cfg ports.SafeConfig) safe.Config {
	c := safe.Config{Owners: cfg.Owners, Threshold: cfg.Threshold, FallbackHandler: a.addrs.FallbackHandler, SaltNonce: cfg.SaltNonce}
	if cfg.SetupModule != (common.Address{}) {
		c.SetupTo, c.SetupData = cfg.SetupModule, a.cardModule.PackEnableOnSetup()
	}
	return c
}

// PredictSafeAddress implements ports.Chain.
func (a *Adapter) PredictSafeAddress(cfg ports.SafeConfig) (common.Address, error) {
	return safe.PredictAddress(a.deployment, a.safeConfig(cfg))
}

// DeploySafe implements ports.Chain.
func (a *Adapter) DeploySafe(ctx context.Context, cfg ports.SafeConfig) (common.Hash, common.Address, error) {
	address, err := a.PredictSafeAddress(cfg)
	if err != nil {
		return common.Hash{}, common.Address{}, err
	}
	initializer, err := safe.Initializer(a.safeConfig(cfg))
	if err != nil {
		return common.Hash{}, common.Address{}, err
	}
	if deployed, err := a.IsDeployed(ctx, address); err != nil {
		return common.Hash{}, common.Address{}, err
	} else if deployed {
		return common.Hash{}, address, nil
	}
	alreadyDeployed := errors.New("already deployed")
	notDeployed := func(ctx context.Context) error {
		deployed, err := a.IsDeployed(ctx, address)
		if err == nil && deployed {
			return alreadyDeployed
		}
		return err
	}
	data := a.factory.PackCreateProxyWithNonce(a.addrs.SafeSingleton, initializer, cfg.SaltNonce)
	hash, err := a.relay.sendOnce(ctx, "deploy:"+address.Hex(), notDeployed, call{to: &a.addrs.SafeProxyFactory, data: data})
	if errors.Is(err, alreadyDeployed) {
		return common.Hash{}, address, nil
	}
	if err != nil {
		return common.Hash{}, common.Address{}, err
	}
	return hash, address, nil
}

// ExecSafeTransaction implements ports.Chain.
func (a *Adapter) ExecSafeTransaction(ctx context.Context, safeAddress common.Address, tx safe.Transaction, signatures []byte) (common.Hash, error) {
	if err := tx.Validate(); err != nil {
		return common.Hash{}, err
	}
	if len(signatures) == 0 || len(signatures)%safe.SignatureLength != 0 {
		return common.Hash{}, fmt.Errorf("chain: signatures must be packed 65-byte signatures, got %d bytes", len(signatures))
	}
	safeTxHash := safe.TransactionHash(a.chainID, safeAddress, tx)
	nonceIsCurrent := func(ctx context.Context) error {
		current, err := a.SafeNonce(ctx, safeAddress)
		switch {
		case err != nil:
			return err
		case current > tx.Nonce:
			return ports.ErrSafeNonceUsed
		case current < tx.Nonce:
			return fmt.Errorf("chain: Safe %s is at nonce %d; transaction %s is for nonce %d", safeAddress.Hex(), current, safeTxHash.Hex(), tx.Nonce)
		}
		return nil
	}
	data := a.safeL2.PackExecTransaction(tx.To, orZero(tx.Value), tx.Data, uint8(tx.Operation),
		orZero(tx.SafeTxGas), orZero(tx.BaseGas), orZero(tx.GasPrice), tx.GasToken, tx.RefundReceiver, signatures)
	return a.relay.sendOnce(ctx, "exec:"+safeTxHash.Hex(), nonceIsCurrent, call{to: &safeAddress, data: data})
}

// MintUSDC implements ports.Chain.
func (a *Adapter) MintUSDC(ctx context.Context, to common.Address, amountBaseUnits *big.Int) (common.Hash, error) {
	if err := positive(amountBaseUnits); err != nil {
		return common.Hash{}, err
	}
	return a.relay.sendOnce(ctx, "", nil, call{to: &a.addrs.USDC, data: a.usdc.PackMint(to, amountBaseUnits)})
}

// TransferUSDC implements ports.Chain.
func (a *Adapter) TransferUSDC(ctx context.Context, to common.Address, amountBaseUnits *big.Int) (common.Hash, error) {
	if err := positive(amountBaseUnits); err != nil {
		return common.Hash{}, err
	}
	return a.relay.sendOnce(ctx, "", nil, call{to: &a.addrs.USDC, data: a.usdc.PackTransfer(to, amountBaseUnits)})
}

// SendETH implements ports.Chain.
func (a *Adapter) SendETH(ctx context.Context, to common.Address, amountWei *big.Int) (common.Hash, error) {
	if err := positive(amountWei); err != nil {
		return common.Hash{}, err
	}
	return a.relay.sendOnce(ctx, "", nil, call{to: &to, value: amountWei})
}

// Receipt implements ports.Chain.
func (a *Adapter) Receipt(ctx context.Context, txHash common.Hash) (ports.Receipt, error) {
	// The nonce is the identity: a fee-bumped replacement that was mined answers for txHash.
	return a.relay.receipt(ctx, txHash)
}

func positive(amount *big.Int) error {
	if amount == nil || amount.Sign() <= 0 || amount.BitLen() > 256 {
		return fmt.Errorf("chain: amount must be a positive uint256, got %v", amount)
	}
	return nil
}

// executionSuccessTopic is Safe's ExecutionSuccess(bytes32 indexed txHash, uint256 payment).
var executionSuccessTopic = crypto.Keccak256Hash([]byte("ExecutionSuccess(bytes32,uint256)"))

// dialRedacted dials an HTTP(S) endpoint under its bare scheme://host and lets a transport put
// the real path and query (where providers keep API keys) back on each request. Errors that Go
// wraps with the request URL then name only the host, so no key reaches logs or job errors.
// Other schemes (ws, ipc) are dialled as given, within timeout. An HTTP request, connecting
// included, also ends within timeout, whatever context its caller gave.
func dialRedacted(ctx context.Context, rawURL string, timeout time.Duration) (*ethclient.Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		dialCtx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return ethclient.DialContext(dialCtx, rawURL)
	}
	hc := &http.Client{Timeout: timeout, Transport: secretURLTransport{real: u, base: http.DefaultTransport}}
	rc, err := rpc.DialOptions(ctx, redactedURL(rawURL), rpc.WithHTTPClient(hc))
	if err != nil {
		return nil, err
	}
	return ethclient.NewClient(rc), nil
}

// redactedURL is scheme://host of an endpoint.
func redactedURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "[unparseable RPC URL]"
	}
	return u.Scheme + "://" + u.Host
}

// secretURLTransport sends every request to the real endpoint URL.
type secretURLTransport struct {
	real *url.URL
	base http.RoundTripper
}

func (t secretURLTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	real := *t.real
	out.URL = &real
	out.Host = real.Host
	if real.User != nil {
		if pw, ok := real.User.Password(); ok {
			out.SetBasicAuth(real.User.Username(), pw)
		}
		out.URL.User = nil
	}
	return t.base.RoundTrip(out)
}
