package fake

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/ports"
)

// Chain is an in-memory EVM as the application sees it through ports.Chain: USDC and ETH
// balances, blocks with hashes, USDC Transfer logs in chain order, receipts, and Safes with
// owners, threshold and nonce. Like the simulated chain, every transaction is mined in its own
// block before the call returns. A Safe execution checks the nonce and that threshold owners
// signed the SafeTx hash, runs a USDC transfer(to, amount) it carries, and is idempotent per
// SafeTx hash. It does not run other contract calls, gas, reorgs or pending transactions.
type Chain struct {
	mu         sync.Mutex
	chainID    int64
	relayer    common.Address
	usdc       common.Address
	deployment ports.SafeDeployment
	blocks     []common.Hash
	usdcOf     map[common.Address]*big.Int
	ethOf      map[common.Address]*big.Int
	logs       []ports.TransferLog
	receipts   map[common.Hash]ports.Receipt
	safes      map[common.Address]*fakeSafe
	executed   map[common.Hash]common.Hash // SafeTx hash -> transaction
	unreadable map[common.Address]bool
	sent       int
}

type fakeSafe struct {
	owners    []common.Address
	threshold int
	nonce     uint64
}

var _ ports.Chain = (*Chain)(nil)

// proxyCreationCode stands in for SafeProxy's creation code: any fixed bytes make CREATE2
// predictions deterministic.
var proxyCreationCode = []byte("corridor fake SafeProxy")

// NewChain returns a chain at block 0 with chain id chainID and a relayer holding plenty of ETH.
func NewChain(chainID int64) *Chain {
	c := &Chain{
		chainID: chainID,
		relayer: common.HexToAddress("0x00000000000000000000000000000000000fa4e0"),
		usdc:    common.HexToAddress("0x000000000000000000000000000000000000a5dc"),
		deployment: ports.SafeDeployment{ProxyFactory: common.HexToAddress("0x00000000000000000000000000000000000000fa"),
			Singleton: common.HexToAddress("0x00000000000000000000000000000000000000f1"), FallbackHandler: common.HexToAddress("0x00000000000000000000000000000000000000fb")},
		usdcOf: map[common.Address]*big.Int{}, ethOf: map[common.Address]*big.Int{}, receipts: map[common.Hash]ports.Receipt{},
		safes: map[common.Address]*fakeSafe{}, executed: map[common.Hash]common.Hash{},
	}
	c.ethOf[c.relayer] = new(big.Int).Exp(big.NewInt(10), big.NewInt(24), nil)
	c.blocks = []common.Hash{crypto.Keccak256Hash([]byte("genesis"), big.NewInt(chainID).Bytes())}
	return c
}

// RelayerAddress is the account that pays for every transaction and sends TransferUSDC.
func (c *Chain) RelayerAddress() common.Address { return c.relayer }

func (c *Chain) ChainID() int64                       { return c.chainID }
func (c *Chain) USDCAddress() common.Address          { return c.usdc }
func (c *Chain) SafeDeployment() ports.SafeDeployment { return c.deployment }

func (c *Chain) safeConfig(cfg ports.SafeConfig) safe.Config {
	sc := safe.Config{Owners: cfg.Owners, Threshold: cfg.Threshold, FallbackHandler: c.deployment.FallbackHandler, SaltNonce: cfg.SaltNonce}
	if cfg.SetupModule != (common.Address{}) {
		sc.SetupTo, sc.SetupData = cfg.SetupModule, []byte("enableOnSetup")
	}
	return sc
}

// PredictSafeAddress is CREATE2 over the fake deployment.
func (c *Chain) PredictSafeAddress(cfg ports.SafeConfig) (common.Address, error) {
	return safe.PredictAddress(safe.Deployment{Factory: c.deployment.ProxyFactory, Singleton: c.deployment.Singleton,
		ProxyCreationCode: proxyCreationCode}, c.safeConfig(cfg))
}

// mine appends a block holding one transaction and returns the transaction's hash and block.
// Callers hold mu.
func (c *Chain) mine() (common.Hash, uint64) {
	c.sent++
	number := uint64(len(c.blocks))
	tx := crypto.Keccak256Hash([]byte("tx"), big.NewInt(int64(c.sent)).Bytes(), big.NewInt(c.chainID).Bytes())
	c.blocks = append(c.blocks, crypto.Keccak256Hash(c.blocks[number-1][:], tx[:]))
	c.receipts[tx] = ports.Receipt{TxHash: tx, Status: ports.TxSucceeded, BlockNumber: number, GasUsed: 21_000}
	return tx, number
}

// DeploySafe deploys at the predicted address; a deployed Safe sends nothing (zero hash).
func (c *Chain) DeploySafe(_ context.Context, cfg ports.SafeConfig) (common.Hash, common.Address, error) {
	address, err := c.PredictSafeAddress(cfg)
	if err != nil {
		return common.Hash{}, common.Address{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.safes[address]; ok {
		return common.Hash{}, address, nil
	}
	c.safes[address] = &fakeSafe{owners: safe.SortedOwners(cfg.Owners), threshold: cfg.Threshold}
	tx, _ := c.mine()
	return tx, address, nil
}

func (c *Chain) IsDeployed(_ context.Context, address common.Address) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.safes[address]
	return ok || address == c.usdc, nil
}

func (c *Chain) deployedSafe(address common.Address) (*fakeSafe, error) {
	s, ok := c.safes[address]
	if !ok {
		return nil, fmt.Errorf("chain: no Safe deployed at %s", address.Hex())
	}
	return s, nil
}

func (c *Chain) SafeNonce(_ context.Context, address common.Address) (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, err := c.deployedSafe(address)
	if err != nil {
		return 0, err
	}
	return s.nonce, nil
}

func (c *Chain) SafeOwners(_ context.Context, address common.Address) ([]common.Address, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, err := c.deployedSafe(address)
	if err != nil {
		return nil, err
	}
	return append([]common.Address(nil), s.owners...), nil
}

func (c *Chain) SafeThreshold(_ context.Context, address common.Address) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, err := c.deployedSafe(address)
	if err != nil {
		return 0, err
	}
	return s.threshold, nil
}

// erc20Transfer is the selector of transfer(address,uint256).
var erc20Transfer = crypto.Keccak256([]byte("transfer(address,uint256)"))[:4]

// ExecSafeTransaction checks and runs a SafeTx as the Safe contract would (see Chain).
func (c *Chain) ExecSafeTransaction(_ context.Context, address common.Address, tx safe.Transaction, signatures []byte) (common.Hash, error) {
	if err := tx.Validate(); err != nil {
		return common.Hash{}, err
	}
	if len(signatures) == 0 || len(signatures)%safe.SignatureLength != 0 {
		return common.Hash{}, fmt.Errorf("chain: signatures must be packed 65-byte signatures, got %d bytes", len(signatures))
	}
	hash := safe.TransactionHash(c.chainID, address, tx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if sent, ok := c.executed[hash]; ok {
		return sent, nil
	}
	s, err := c.deployedSafe(address)
	if err != nil {
		return common.Hash{}, err
	}
	switch {
	case s.nonce > tx.Nonce:
		return common.Hash{}, ports.ErrSafeNonceUsed
	case s.nonce < tx.Nonce:
		return common.Hash{}, fmt.Errorf("chain: Safe %s is at nonce %d; transaction is for nonce %d", address.Hex(), s.nonce, tx.Nonce)
	}
	if err := c.checkSigners(s, hash, signatures); err != nil {
		return common.Hash{}, err
	}
	move, err := c.usdcMove(address, tx)
	if err != nil {
		return common.Hash{}, err
	}
	s.nonce++
	sent, block := c.mine()
	if move != nil {
		move(sent, block)
	}
	c.executed[hash] = sent
	return sent, nil
}

// checkSigners requires threshold distinct owners among the signatures (GS026 otherwise).
func (c *Chain) checkSigners(s *fakeSafe, hash common.Hash, signatures []byte) error {
	signers := map[common.Address]bool{}
	for i := 0; i < len(signatures); i += safe.SignatureLength {
		var sig safe.Signature
		copy(sig[:], signatures[i:i+safe.SignatureLength])
		signer, err := safe.Recover(hash, sig)
		if err != nil {
			return &ports.RevertError{Reason: "GS026", Meaning: "invalid owner provided"}
		}
		for _, o := range s.owners {
			if o == signer {
				signers[signer] = true
			}
		}
	}
	if len(signers) < s.threshold {
		return &ports.RevertError{Reason: "GS026", Meaning: "invalid owner provided"}
	}
	return nil
}

// usdcMove checks a SafeTx that calls USDC's transfer and returns the move to make once mined.
func (c *Chain) usdcMove(from common.Address, tx safe.Transaction) (func(common.Hash, uint64), error) {
	if tx.To != c.usdc || len(tx.Data) != 4+64 || !bytes.Equal(tx.Data[:4], erc20Transfer) {
		return nil, nil
	}
	to := common.BytesToAddress(tx.Data[4:36])
	amount := new(big.Int).SetBytes(tx.Data[36:68])
	if c.balance(c.usdcOf, from).Cmp(amount) < 0 {
		return nil, &ports.RevertError{Reason: "GS013", Meaning: "Safe transaction failed when gasPrice and safeTxGas were 0"}
	}
	return func(txHash common.Hash, block uint64) { c.moveUSDC(txHash, block, from, to, amount) }, nil
}

func (c *Chain) balance(of map[common.Address]*big.Int, a common.Address) *big.Int {
	if b, ok := of[a]; ok {
		return b
	}
	return new(big.Int)
}

// moveUSDC changes balances and appends the Transfer log. Callers hold mu.
func (c *Chain) moveUSDC(txHash common.Hash, block uint64, from, to common.Address, amount *big.Int) {
	if from != (common.Address{}) {
		c.usdcOf[from] = new(big.Int).Sub(c.balance(c.usdcOf, from), amount)
	}
	c.usdcOf[to] = new(big.Int).Add(c.balance(c.usdcOf, to), amount)
	c.logs = append(c.logs, ports.TransferLog{TxHash: txHash, LogIndex: 0, BlockNumber: block, BlockHash: c.blocks[block],
		From: from, To: to, AmountBaseUnits: new(big.Int).Set(amount)})
}

func positiveAmount(amount *big.Int) error {
	if amount == nil || amount.Sign() <= 0 || amount.BitLen() > 256 {
		return fmt.Errorf("chain: amount must be a positive uint256, got %v", amount)
	}
	return nil
}

// MintUSDC creates USDC for to: a Transfer from the zero address.
func (c *Chain) MintUSDC(_ context.Context, to common.Address, amount *big.Int) (common.Hash, error) {
	if err := positiveAmount(amount); err != nil {
		return common.Hash{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	tx, block := c.mine()
	c.moveUSDC(tx, block, common.Address{}, to, amount)
	return tx, nil
}

// TransferUSDC sends USDC from the relayer; more than it holds reverts.
func (c *Chain) TransferUSDC(_ context.Context, to common.Address, amount *big.Int) (common.Hash, error) {
	if err := positiveAmount(amount); err != nil {
		return common.Hash{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.balance(c.usdcOf, c.relayer).Cmp(amount) < 0 {
		return common.Hash{}, &ports.RevertError{Reason: "ERC20: transfer amount exceeds balance"}
	}
	tx, block := c.mine()
	c.moveUSDC(tx, block, c.relayer, to, amount)
	return tx, nil
}

// SendETH sends wei from the relayer.
func (c *Chain) SendETH(_ context.Context, to common.Address, amount *big.Int) (common.Hash, error) {
	if err := positiveAmount(amount); err != nil {
		return common.Hash{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.balance(c.ethOf, c.relayer).Cmp(amount) < 0 {
		return common.Hash{}, errors.New("chain: insufficient funds for transfer")
	}
	c.ethOf[c.relayer] = new(big.Int).Sub(c.balance(c.ethOf, c.relayer), amount)
	c.ethOf[to] = new(big.Int).Add(c.balance(c.ethOf, to), amount)
	tx, _ := c.mine()
	return tx, nil
}

// FailBalanceReads makes USDCBalance of address fail, as a node that times out for it would.
func (c *Chain) FailBalanceReads(address common.Address) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unreadable == nil {
		c.unreadable = map[common.Address]bool{}
	}
	c.unreadable[address] = true
}

// ServeBalanceReads undoes FailBalanceReads for address: the node answers for it again.
func (c *Chain) ServeBalanceReads(address common.Address) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.unreadable, address)
}

// USDCBalance is the address's USDC, or an error for an address made unreadable.
func (c *Chain) USDCBalance(_ context.Context, address common.Address) (*big.Int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unreadable[address] {
		return nil, fmt.Errorf("chain: balance of %s: read timed out", address.Hex())
	}
	return new(big.Int).Set(c.balance(c.usdcOf, address)), nil
}

func (c *Chain) ETHBalance(_ context.Context, address common.Address) (*big.Int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return new(big.Int).Set(c.balance(c.ethOf, address)), nil
}

// Receipt answers PENDING for a transaction the chain does not know.
func (c *Chain) Receipt(_ context.Context, txHash common.Hash) (ports.Receipt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.receipts[txHash]; ok {
		return r, nil
	}
	return ports.Receipt{TxHash: txHash, Status: ports.TxPending}, nil
}

func (c *Chain) LatestBlock(context.Context) (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return uint64(len(c.blocks)) - 1, nil
}

func (c *Chain) BlockHash(_ context.Context, number uint64) (common.Hash, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if number >= uint64(len(c.blocks)) {
		return common.Hash{}, false, nil
	}
	return c.blocks[number], true, nil
}

// USDCTransferLogs keeps the adapter's bounds and order.
func (c *Chain) USDCTransferLogs(_ context.Context, fromBlock, toBlock uint64, parties []common.Address) ([]ports.TransferLog, error) {
	if err := ports.CheckLogRange(fromBlock, toBlock, len(parties)); err != nil {
		return nil, err
	}
	wanted := map[common.Address]bool{}
	for _, p := range parties {
		wanted[p] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []ports.TransferLog
	for _, l := range c.logs {
		if l.BlockNumber >= fromBlock && l.BlockNumber <= toBlock && (len(parties) == 0 || wanted[l.From] || wanted[l.To]) {
			l.AmountBaseUnits = new(big.Int).Set(l.AmountBaseUnits)
			out = append(out, l)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].BlockNumber < out[j].BlockNumber })
	return out, nil
}

// SafeExecution finds the transaction that executed safeTxHash on the Safe.
func (c *Chain) SafeExecution(_ context.Context, address common.Address, safeTxHash common.Hash) (common.Hash, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tx, ok := c.executed[safeTxHash]
	return tx, ok, nil
}
