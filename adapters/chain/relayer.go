package chain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/corridorhq/corridor/adapters/outside"
	"github.com/corridorhq/corridor/ports"
)

// Client is the part of a node's JSON-RPC API the adapter uses. go-ethereum's ethclient.Client
// and the simulated backend's client both provide it.
type Client interface {
	ethereum.ChainIDReader
	ethereum.BlockNumberReader
	ethereum.ChainReader
	ethereum.ChainStateReader
	ethereum.ContractCaller
	ethereum.GasEstimator
	ethereum.GasPricer1559
	ethereum.LogFilterer
	ethereum.PendingStateReader
	ethereum.TransactionReader
	ethereum.TransactionSender
}

// Limits of the relayer.
const (
	// gasHeadroomPercent is added to every estimate: Safe's execTransaction keeps 1/64 of the
	// gas back for its own bookkeeping, so an exact estimate can run short on chain.
	gasHeadroomPercent = 25
	// sendAttempts bounds retries of a send after the node refused our nonce.
	sendAttempts = 3
	// rememberedSends bounds the per-idempotency-key memory of sent transactions.
	rememberedSends = 4096
	// receiptPollInterval paces waitMined.
	receiptPollInterval = 250 * time.Millisecond
)

// relayer signs and sends transactions from one funded key. Every send goes through one mutex
// around estimate → nonce → sign → send (→ commit on the simulated chain), so concurrent callers
// never reuse a nonce. The nonce is tracked locally from the node's pending nonce and re-read
// whenever the node says it is wrong or a send fails in an unknown way.
type relayer struct {
	client  Client
	key     *ecdsa.PrivateKey
	from    common.Address
	chainID *big.Int
	signer  types.Signer
	// afterSend runs after each accepted transaction, still under the lock; the simulated
	// backend commits a block here so the transaction is mined when the call returns.
	afterSend func()

	// keeper, when set, hands out the key's nonces under a lock shared by every replica
	// (UseNonceKeeper); without it the nonce is tracked in this process only.
	keeper NonceKeeper
	// txLog records every transaction sent, for fee bumps and for receipts of replaced
	// transactions (feebump.go); this process's memory until UseTxLog.
	txLog    TxLog
	txLogSet bool

	mu         sync.Mutex
	nonce      uint64
	nonceKnown bool
	sent       map[string]common.Hash // idempotency key → transaction, see sendOnce
	sentOrder  []string
}

func newRelayer(client Client, key *ecdsa.PrivateKey, chainID *big.Int, afterSend func()) *relayer {
	if afterSend == nil {
		afterSend = func() {}
	}
	return &relayer{
		client: client, key: key, from: crypto.PubkeyToAddress(key.PublicKey),
		chainID: chainID, signer: types.LatestSignerForChainID(chainID), afterSend: afterSend,
		sent: make(map[string]common.Hash), txLog: newMemTxLog(),
	}
}

// call is one transaction to send: to nil deploys data as contract creation code.
type call struct {
	to    *common.Address
	value *big.Int
	data  []byte
}

// sendOnce sends c unless a transaction under the same idempotency key was already sent by this
// relayer and has not failed, in which case it returns that transaction's hash. check runs under
// the lock before sending (nil for none) and may refuse the send. The memory is per process:
// after a restart the chain itself (Safe nonces, CREATE2 addresses, the card module's references,
// the checkout factory's refund ids) is the guard.
func (r *relayer) sendOnce(ctx context.Context, key string, check func(ctx context.Context) error, c call) (common.Hash, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if key != "" {
		if hash, ok := r.sent[key]; ok {
			receipt, err := r.receipt(ctx, hash)
			if err != nil {
				return common.Hash{}, err
			}
			if receipt.Status != ports.TxFailed {
				return hash, nil
			}
		}
	}
	if check != nil {
		if err := check(ctx); err != nil {
			return common.Hash{}, err
		}
	}
	hash, err := r.sendLocked(ctx, c)
	if err == nil && key != "" {
		r.remember(key, hash)
	}
	return hash, err
}

func (r *relayer) remember(key string, hash common.Hash) {
	if _, ok := r.sent[key]; !ok {
		r.sentOrder = append(r.sentOrder, key)
	}
	r.sent[key] = hash
	for len(r.sentOrder) > rememberedSends {
		delete(r.sent, r.sentOrder[0])
		r.sentOrder = r.sentOrder[1:]
	}
}

// sendLocked estimates, signs and sends c. The caller holds r.mu.
func (r *relayer) sendLocked(ctx context.Context, c call) (common.Hash, error) {
	if err := outside.Check(ctx, "Chain.send"); err != nil {
		return common.Hash{}, err
	}
	msg := ethereum.CallMsg{From: r.from, To: c.to, Value: c.value, Data: c.data}
	gas, err := r.client.EstimateGas(ctx, msg)
	if err != nil {
		return common.Hash{}, asRevert(err)
	}
	gas += gas * gasHeadroomPercent / 100
	tipCap, feeCap, err := r.fees(ctx)
	if err != nil {
		return common.Hash{}, err
	}
	if r.keeper != nil {
		return r.sendKept(ctx, c, gas, tipCap, feeCap)
	}
	for attempt := 1; ; attempt++ {
		if !r.nonceKnown {
			if r.nonce, err = r.client.PendingNonceAt(ctx, r.from); err != nil {
				return common.Hash{}, fmt.Errorf("chain: relayer nonce: %w", err)
			}
			r.nonceKnown = true
		}
		tx, err := types.SignNewTx(r.key, r.signer, &types.DynamicFeeTx{
			ChainID: r.chainID, Nonce: r.nonce, GasTipCap: tipCap, GasFeeCap: feeCap,
			Gas: gas, To: c.to, Value: orZero(c.value), Data: c.data,
		})
		if err != nil {
			return common.Hash{}, fmt.Errorf("chain: signing: %w", err)
		}
		err = r.client.SendTransaction(ctx, tx)
		switch {
		case err == nil || isAlreadyKnown(err):
			r.nonce++
			r.record(ctx, tx, time.Now())
			r.afterSend()
			return tx.Hash(), nil
		case isNonceProblem(err) && attempt < sendAttempts:
			// Someone else used the key, or the node dropped a transaction: re-read and retry.
			r.nonceKnown = false
		default:
			// The node may or may not have taken the transaction: re-read the nonce next time.
			r.nonceKnown = false
			return common.Hash{}, fmt.Errorf("chain: sending transaction: %w", err)
		}
	}
}

// NonceKeeper hands out a relayer key's nonces under a lock that every replica of the service
// shares (a database row), so two replicas sending with one key never sign the same nonce.
// WithNonce locks the key's record, picks the larger of the recorded next nonce and the node's
// pending nonce, runs send with it, and records nonce+1 when send reports the nonce used.
type NonceKeeper interface {
	WithNonce(ctx context.Context, chainID int64, from string, pending uint64, send func(nonce uint64) (used bool, err error)) error
}

// sendKept is sendLocked's loop with the nonce taken from the keeper: the node's pending nonce
// is read afresh for every attempt (another replica may have sent since), and a send whose
// outcome is unknown does not advance the record, so no gap is left when the node did not take
// it (the next send then uses the node's pending nonce again).
func (r *relayer) sendKept(ctx context.Context, c call, gas uint64, tipCap, feeCap *big.Int) (common.Hash, error) {
	var hash common.Hash
	for attempt := 1; ; attempt++ {
		pending, err := r.client.PendingNonceAt(ctx, r.from)
		if err != nil {
			return common.Hash{}, fmt.Errorf("chain: relayer nonce: %w", err)
		}
		retry := false
		err = r.keeper.WithNonce(ctx, r.chainID.Int64(), r.from.Hex(), pending, func(nonce uint64) (bool, error) {
			tx, err := types.SignNewTx(r.key, r.signer, &types.DynamicFeeTx{
				ChainID: r.chainID, Nonce: nonce, GasTipCap: tipCap, GasFeeCap: feeCap,
				Gas: gas, To: c.to, Value: orZero(c.value), Data: c.data,
			})
			if err != nil {
				return false, fmt.Errorf("chain: signing: %w", err)
			}
			err = r.client.SendTransaction(ctx, tx)
			switch {
			case err == nil || isAlreadyKnown(err):
				hash = tx.Hash()
				r.record(ctx, tx, time.Now())
				r.afterSend()
				return true, nil
			case isNonceProblem(err) && attempt < sendAttempts:
				retry = true
				return false, nil
			default:
				return false, fmt.Errorf("chain: sending transaction: %w", err)
			}
		})
		if err != nil || !retry {
			return hash, err
		}
	}
}

// fees prices an EIP-1559 transaction: the node's suggested tip, and a fee cap of twice the
// latest base fee plus the tip, which survives several full blocks of base-fee growth.
func (r *relayer) fees(ctx context.Context) (tipCap, feeCap *big.Int, err error) {
	tipCap, err = r.client.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("chain: gas tip: %w", err)
	}
	head, err := r.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("chain: latest header: %w", err)
	}
	baseFee := orZero(head.BaseFee)
	feeCap = new(big.Int).Add(tipCap, new(big.Int).Mul(baseFee, big.NewInt(2)))
	return tipCap, feeCap, nil
}

func isNonceProblem(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "nonce too low") || strings.Contains(msg, "nonce too high") ||
		strings.Contains(msg, "replacement transaction underpriced")
}

func isAlreadyKnown(err error) bool {
	return strings.Contains(strings.ToLower(err.Error()), "already known")
}

// asRevert turns a node's "execution reverted" answer into *ports.RevertError with the decoded
// reason; any other error is returned wrapped.
func asRevert(err error) error {
	var dataErr rpc.DataError
	if errors.As(err, &dataErr) {
		if text, ok := dataErr.ErrorData().(string); ok {
			if data, decodeErr := hexutil.Decode(text); decodeErr == nil {
				return revertFromData(data)
			}
		}
	}
	if strings.Contains(err.Error(), "execution reverted") {
		reason := strings.TrimSpace(strings.TrimPrefix(err.Error(), "execution reverted"))
		reason = strings.TrimSpace(strings.TrimPrefix(reason, ":"))
		return newRevert(reason)
	}
	return fmt.Errorf("chain: estimating gas: %w", err)
}

func revertFromData(data []byte) *ports.RevertError {
	reason, err := abi.UnpackRevert(data)
	if err != nil {
		reason = hexutil.Encode(data)
		if len(data) == 0 {
			reason = "no reason given"
		}
	}
	return newRevert(reason)
}

func newRevert(reason string) *ports.RevertError {
	if reason == "" {
		reason = "no reason given"
	}
	meaning, ok := safeErrorMeanings[reason]
	if !ok {
		meaning, ok = escrowErrorMeanings[reason]
	}
	if !ok {
		meaning, ok = cardModuleErrorMeanings[reason]
	}
	if !ok {
		meaning = checkoutFactoryErrorMeanings[reason]
	}
	return &ports.RevertError{Reason: reason, Meaning: meaning}
}

// escrowErrorMeanings spells out ClaimEscrow's revert codes (contracts/src/ClaimEscrow.sol).
var escrowErrorMeanings = map[string]string{
	"CE:operator":   "only the escrow's operator (the relayer) may do this",
	"CE:state":      "the claim is not in a state that allows this",
	"CE:zero":       "a zero amount, claim id, recipient or decision hash",
	"CE:expired":    "the claim's expiry has passed (or, for a fund, is not in the future)",
	"CE:notExpired": "a funded claim is refundable only from its expiry",
	"CE:grace":      "a locked claim is refundable only from its expiry plus the grace period",
	"CE:token":      "the token address holds no contract",
	"CE:transfer":   "the token refused the transfer",
}

// cardModuleErrorMeanings spells out CardSpendModule's revert codes
// (contracts/src/CardSpendModule.sol).
var cardModuleErrorMeanings = map[string]string{
	"CSM:operator": "only the card module's operator (the relayer) may settle",
	"CSM:zero":     "a zero amount, reference or address",
	"CSM:token":    "the token address holds no contract",
	"CSM:noSafe":   "no contract at the Safe's address",
	"CSM:refUsed":  "the settlement reference was already used",
	"CSM:direct":   "enableOnSetup only works as a Safe setup's delegate call",
	"CSM:transfer": "the token refused the transfer",
}

// checkoutFactoryErrorMeanings spells out CheckoutDepositFactory's revert codes
// (contracts/src/CheckoutDepositFactory.sol).
var checkoutFactoryErrorMeanings = map[string]string{
	"CDF:operator": "only the checkout factory's operator (the relayer) may sweep or refund",
	"CDF:zero":     "a zero address, salt, refund id or amount",
	"CDF:token":    "the token address holds no contract",
	"CDF:factory":  "only the factory that created a deposit may sweep it",
	"CDF:refunded": "the refund id was already paid",
	"CDF:transfer": "the token refused the transfer",
}

// safeErrorMeanings spells out Safe v1.4.1's revert codes that a relayed call can hit.
var safeErrorMeanings = map[string]string{
	"GS000": "could not finish initialization",
	"GS104": "the caller is not a module enabled on the Safe (the card module was never enabled or the owners disabled it)",
	"GS001": "threshold needs to be defined",
	"GS010": "not enough gas to execute the Safe transaction",
	"GS011": "could not pay gas costs with ether",
	"GS012": "could not pay gas costs with token",
	"GS013": "the Safe transaction's call failed (with safeTxGas and gasPrice 0 the whole execution reverts)",
	"GS020": "signatures data too short for the threshold",
	"GS021": "invalid contract signature location: inside static part",
	"GS022": "invalid contract signature location: length not present",
	"GS023": "invalid contract signature location: data not complete",
	"GS024": "invalid contract signature provided",
	"GS025": "hash has not been approved",
	"GS026": "a signature does not recover to an owner, or signatures are not sorted by owner ascending (an EIP-191 prefixed signature recovers to a non-owner)",
	"GS030": "only owners can approve a hash",
	"GS031": "method can only be called from the Safe itself",
	"GS200": "owners have already been set up",
	"GS201": "threshold cannot exceed owner count",
	"GS202": "threshold needs to be greater than 0",
	"GS203": "invalid owner address provided",
	"GS204": "address is already an owner",
}

// receiptOf looks a transaction up: pending when the node has no receipt yet.
func receiptOf(ctx context.Context, client Client, hash common.Hash) (ports.Receipt, error) {
	receipt, err := client.TransactionReceipt(ctx, hash)
	if errors.Is(err, ethereum.NotFound) {
		return ports.Receipt{TxHash: hash, Status: ports.TxPending}, nil
	}
	if err != nil {
		return ports.Receipt{}, fmt.Errorf("chain: receipt of %s: %w", hash.Hex(), err)
	}
	out := ports.Receipt{TxHash: hash, Status: ports.TxSucceeded, BlockNumber: receipt.BlockNumber.Uint64(), GasUsed: receipt.GasUsed}
	if receipt.Status != types.ReceiptStatusSuccessful {
		out.Status = ports.TxFailed
		out.FailureReason = replayRevert(ctx, client, hash, receipt)
		return out, nil
	}
	for _, l := range receipt.Logs {
		if len(l.Topics) > 0 && l.Topics[0] == executionFailureTopic {
			out.Status = ports.TxFailed
			out.FailureReason = "Safe execution failed: the transaction's call reverted (ExecutionFailure)"
		}
	}
	return out, nil
}

// replayRevert re-runs a failed transaction against the state before its block to recover the
// revert reason. Best effort: other transactions earlier in the same block are not replayed.
func replayRevert(ctx context.Context, client Client, hash common.Hash, receipt *types.Receipt) string {
	const unknown = "transaction reverted"
	tx, _, err := client.TransactionByHash(ctx, hash)
	if err != nil || receipt.BlockNumber.Sign() == 0 {
		return unknown
	}
	from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
	if err != nil {
		return unknown
	}
	before := new(big.Int).Sub(receipt.BlockNumber, big.NewInt(1))
	_, err = client.CallContract(ctx, ethereum.CallMsg{From: from, To: tx.To(), Gas: tx.Gas(), Value: tx.Value(), Data: tx.Data()}, before)
	if err == nil {
		return unknown
	}
	var revert *ports.RevertError
	if errors.As(asRevert(err), &revert) {
		return revert.Error()
	}
	return unknown
}

// waitMined polls until hash is mined (or ctx ends) and fails unless it succeeded.
func waitMined(ctx context.Context, client Client, hash common.Hash) (ports.Receipt, error) {
	for {
		receipt, err := receiptOf(ctx, client, hash)
		if err != nil {
			return receipt, err
		}
		switch receipt.Status {
		case ports.TxSucceeded:
			return receipt, nil
		case ports.TxFailed:
			return receipt, fmt.Errorf("chain: transaction %s failed: %s", hash.Hex(), receipt.FailureReason)
		}
		select {
		case <-ctx.Done():
			return receipt, fmt.Errorf("chain: waiting for %s: %w", hash.Hex(), ctx.Err())
		case <-time.After(receiptPollInterval):
		}
	}
}

func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}
