package ports

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core/safe"
)

// Chain is what the application needs from one EVM chain: Safe wallets (predict, deploy, read,
// execute), the USDC token (balances, faucet, Transfer logs for the ledger mirror), ETH for gas
// and receipts. A relayer key held by the adapter pays gas for every transaction it sends.
//
// Amounts are *big.Int base units as the chain holds them (USDC: 6 decimals; ETH: wei), since a
// chain balance is a uint256 and an ETH balance in wei overflows int64 at about 9.2 ETH. The
// application converts USDC to the ledger's int64 with an overflow check.
//
// Transactions are submitted, not awaited: methods that send return the transaction hash once
// the node accepted it, and Receipt tells when it is mined. Methods never run inside a database
// transaction (docs/architecture.md): a job calls them after commit and records the outcome.
type Chain interface {
	// ChainID is the EIP-155 chain id, e.g. 84532 in the sandbox.
	ChainID() int64
	// USDCAddress is the USDC token contract (our TestUSDC in the sandbox, Circle's elsewhere).
	USDCAddress() common.Address
	// SafeDeployment names the factory, singleton and fallback handler new Safes are made from.
	SafeDeployment() SafeDeployment

	// PredictSafeAddress is the CREATE2 address DeploySafe will deploy cfg to. It is pure given
	// the deployment, so it answers without a network call once the adapter has started.
	PredictSafeAddress(cfg SafeConfig) (common.Address, error)
	// DeploySafe sends SafeProxyFactory.createProxyWithNonce for cfg and returns the transaction
	// and the Safe's address (equal to PredictSafeAddress). Retries are harmless: when the Safe
	// is already deployed it sends nothing and returns a zero hash, and while a deployment this
	// adapter sent is still pending it returns that transaction again.
	DeploySafe(ctx context.Context, cfg SafeConfig) (txHash common.Hash, safeAddress common.Address, err error)
	// IsDeployed reports whether address holds contract code.
	IsDeployed(ctx context.Context, address common.Address) (bool, error)
	// SafeNonce is the Safe's current nonce: the nonce the next SafeTx must carry. It fails for
	// an address without a deployed Safe (an undeployed wallet's first SafeTx has nonce 0).
	SafeNonce(ctx context.Context, safeAddress common.Address) (uint64, error)
	// SafeOwners lists the Safe's on-chain owners.
	SafeOwners(ctx context.Context, safeAddress common.Address) ([]common.Address, error)
	// SafeThreshold is the Safe's on-chain signature threshold.
	SafeThreshold(ctx context.Context, safeAddress common.Address) (int, error)
	// ExecSafeTransaction relays execTransaction(tx, signatures) to the Safe. signatures are
	// packed and sorted by signer (safe.PackSignatures). The call is idempotent per safeTxHash
	// within one adapter: a repeated or concurrent call for a transaction it already sent
	// returns the same txHash without sending again. Errors: *RevertError when the execution
	// would revert (for example GS026, a signature that is not an owner's), ErrSafeNonceUsed
	// when the Safe's nonce has already moved past tx.Nonce.
	ExecSafeTransaction(ctx context.Context, safeAddress common.Address, tx safe.Transaction, signatures []byte) (txHash common.Hash, err error)

	// MintUSDC creates USDC for to (sandbox faucet; the relayer is the test token's minter).
	MintUSDC(ctx context.Context, to common.Address, amountBaseUnits *big.Int) (txHash common.Hash, err error)
	// TransferUSDC sends USDC from the relayer's own balance.
	TransferUSDC(ctx context.Context, to common.Address, amountBaseUnits *big.Int) (txHash common.Hash, err error)
	// SendETH sends wei from the relayer (faucet ETH for gas).
	SendETH(ctx context.Context, to common.Address, amountWei *big.Int) (txHash common.Hash, err error)
	// USDCBalance is address's USDC balance in base units at the latest block.
	USDCBalance(ctx context.Context, address common.Address) (*big.Int, error)
	// ETHBalance is address's balance in wei at the latest block.
	ETHBalance(ctx context.Context, address common.Address) (*big.Int, error)

	// Receipt tells whether txHash is pending, succeeded or failed, and in which block.
	Receipt(ctx context.Context, txHash common.Hash) (Receipt, error)
	// LatestBlock is the number of the newest block.
	LatestBlock(ctx context.Context) (uint64, error)
	// BlockHash is the hash of the canonical block at number; found=false when the chain's
	// head is below number (a reorg can shorten the chain). Indexers compare it with the hash
	// they recorded to detect a reorg.
	BlockHash(ctx context.Context, number uint64) (hash common.Hash, found bool, err error)
	// USDCTransferLogs returns the USDC Transfer events in blocks [fromBlock, toBlock] in chain
	// order. With parties given, only transfers from or to one of them (at most
	// MaxLogParties); with none, every transfer. The range may span at most MaxLogBlockRange
	// blocks and end at LatestBlock at the latest, so an indexer walks the chain in bounded
	// steps. Each log's (TxHash, LogIndex) is unique: post it to the ledger idempotently.
	USDCTransferLogs(ctx context.Context, fromBlock, toBlock uint64, parties []common.Address) ([]TransferLog, error)
	// SafeExecution finds the transaction whose execution of safeTxHash succeeded on the Safe
	// (Safe's ExecutionSuccess event) within the last SafeExecutionLookback blocks. It tells a
	// caller whose send outcome was unknown whether the money moved, so a payment is never
	// reported FAILED while its transfer executed.
	SafeExecution(ctx context.Context, safeAddress common.Address, safeTxHash common.Hash) (txHash common.Hash, found bool, err error)
}

// SafeExecutionLookback bounds how far back SafeExecution looks: payments execute within
// minutes of being sent, and 10,000 blocks is hours on Base.
const SafeExecutionLookback = 10_000

// Bounds of USDCTransferLogs (and of the other log reads' block ranges).
const (
	MaxLogBlockRange = 2000
	MaxLogParties    = 500
)

// CheckLogRange refuses a log query whose block range is backwards or wider than
// MaxLogBlockRange, or that names more than MaxLogParties parties: the bounds every log read of
// the chain port keeps, adapters and fakes alike.
func CheckLogRange(fromBlock, toBlock uint64, parties int) error {
	switch {
	case toBlock < fromBlock:
		return fmt.Errorf("chain: log range %d..%d is backwards", fromBlock, toBlock)
	case toBlock-fromBlock >= MaxLogBlockRange:
		return fmt.Errorf("chain: log range %d..%d spans more than %d blocks", fromBlock, toBlock, MaxLogBlockRange)
	case parties > MaxLogParties:
		return fmt.Errorf("chain: %d parties, at most %d per log query", parties, MaxLogParties)
	}
	return nil
}

// SafeConfig is what decides a new Safe: its owners (any order; they are encoded sorted),
// threshold and salt nonce (safe.SaltNonceFor(walletID)). The fallback handler is the
// adapter's configured one. SetupModule, when not zero, is a module the Safe enables in its own
// setup (the card spend module, through its enableOnSetup); it changes the Safe's address, so
// a wallet records it to keep its address reproducible.
type SafeConfig struct {
	Owners      []common.Address
	Threshold   int
	SaltNonce   *big.Int
	SetupModule common.Address
}

// SafeDeployment names the Safe contracts on one chain.
type SafeDeployment struct {
	ProxyFactory    common.Address
	Singleton       common.Address // SafeL2 v1.4.1
	FallbackHandler common.Address // CompatibilityFallbackHandler v1.4.1
}

// TxStatus is where a submitted transaction stands.
type TxStatus string

const (
	// TxPending: not (yet) in a block the node knows. A transaction can stay pending forever if
	// the node dropped it; callers bound their polling.
	TxPending TxStatus = "PENDING"
	// TxSucceeded: mined with status 1 (and, for a Safe execution, no ExecutionFailure event).
	TxSucceeded TxStatus = "SUCCEEDED"
	// TxFailed: mined but reverted, or a Safe execution whose inner call failed.
	TxFailed TxStatus = "FAILED"
)

// Receipt is a transaction's outcome.
type Receipt struct {
	TxHash        common.Hash
	Status        TxStatus
	BlockNumber   uint64 // zero while pending
	GasUsed       uint64
	FailureReason string // for TxFailed: the revert reason when it can be recovered
}

// TransferLog is one ERC-20 Transfer event. (TxHash, LogIndex) identifies it uniquely, which
// makes posting it to the ledger idempotent.
type TransferLog struct {
	TxHash          common.Hash
	LogIndex        uint
	BlockNumber     uint64
	BlockHash       common.Hash
	From            common.Address
	To              common.Address
	AmountBaseUnits *big.Int
}

// RevertError is a transaction the chain refused to execute (found when estimating it, before
// anything was sent). Reason is the decoded revert reason, e.g. "GS026", with Meaning spelling
// out Safe's code when known.
type RevertError struct {
	Reason  string
	Meaning string
}

func (e *RevertError) Error() string {
	if e.Meaning != "" {
		return "chain: execution reverted: " + e.Reason + " (" + e.Meaning + ")"
	}
	return "chain: execution reverted: " + e.Reason
}

// ErrSafeNonceUsed: the Safe already executed a transaction with this nonce. For a payment that
// Corridor itself executed this means it is done (check the Safe's ExecutionSuccess), otherwise
// the SafeTx is stale and must be proposed again at the current nonce.
var ErrSafeNonceUsed = errors.New("chain: the Safe nonce of this transaction has already been used")
