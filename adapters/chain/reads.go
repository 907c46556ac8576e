package chain

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/adapters/chain/bindings"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/ports"
)

// reader is the reading side of one chain: the node, the contracts the adapter was given, and
// the calls and log queries that change nothing (balances, Safe state, blocks, USDC Transfer
// logs, Safe executions). The Adapter and its contract parts (ClaimEscrow, CardModule,
// CheckoutFactory) share one; what sends transactions holds the relayer besides.
type reader struct {
	client  Client
	chainID int64
	addrs   Addresses
	safeL2  *bindings.SafeL2
	usdc    *bindings.TestUSDC
}

// ChainID implements ports.Chain.
func (a *reader) ChainID() int64 { return a.chainID }

// USDCAddress implements ports.Chain.
func (a *reader) USDCAddress() common.Address { return a.addrs.USDC }

// IsDeployed implements ports.Chain.
func (a *reader) IsDeployed(ctx context.Context, address common.Address) (bool, error) {
	code, err := a.client.CodeAt(ctx, address, nil)
	if err != nil {
		return false, fmt.Errorf("chain: code at %s: %w", address.Hex(), err)
	}
	return len(code) > 0, nil
}

// SafeNonce implements ports.Chain.
func (a *reader) SafeNonce(ctx context.Context, safeAddress common.Address) (uint64, error) {
	out, err := a.callSafe(ctx, safeAddress, a.safeL2.PackNonce())
	if err != nil {
		return 0, err
	}
	nonce, err := a.safeL2.UnpackNonce(out)
	if err != nil || !nonce.IsUint64() {
		return 0, fmt.Errorf("chain: Safe %s nonce %v: %v", safeAddress.Hex(), nonce, err)
	}
	return nonce.Uint64(), nil
}

// SafeOwners implements ports.Chain.
func (a *reader) SafeOwners(ctx context.Context, safeAddress common.Address) ([]common.Address, error) {
	out, err := a.callSafe(ctx, safeAddress, a.safeL2.PackGetOwners())
	if err != nil {
		return nil, err
	}
	return a.safeL2.UnpackGetOwners(out)
}

// SafeThreshold implements ports.Chain.
func (a *reader) SafeThreshold(ctx context.Context, safeAddress common.Address) (int, error) {
	out, err := a.callSafe(ctx, safeAddress, a.safeL2.PackGetThreshold())
	if err != nil {
		return 0, err
	}
	threshold, err := a.safeL2.UnpackGetThreshold(out)
	if err != nil || !threshold.IsInt64() || threshold.Int64() > math.MaxInt32 {
		return 0, fmt.Errorf("chain: Safe %s threshold %v: %v", safeAddress.Hex(), threshold, err)
	}
	return int(threshold.Int64()), nil
}

// SafeTransactionHash asks the Safe contract for its getTransactionHash of tx. The application
// computes the hash itself with safe.TransactionHash; this exists to prove the two agree.
func (a *reader) SafeTransactionHash(ctx context.Context, safeAddress common.Address, tx safe.Transaction) (common.Hash, error) {
	out, err := a.callSafe(ctx, safeAddress, a.safeL2.PackGetTransactionHash(tx.To, orZero(tx.Value), tx.Data, uint8(tx.Operation),
		orZero(tx.SafeTxGas), orZero(tx.BaseGas), orZero(tx.GasPrice), tx.GasToken, tx.RefundReceiver, new(big.Int).SetUint64(tx.Nonce)))
	if err != nil {
		return common.Hash{}, err
	}
	hash, err := a.safeL2.UnpackGetTransactionHash(out)
	return common.Hash(hash), err
}

// USDCBalance implements ports.Chain.
func (a *reader) USDCBalance(ctx context.Context, address common.Address) (*big.Int, error) {
	out, err := a.call(ctx, a.addrs.USDC, a.usdc.PackBalanceOf(address))
	if err != nil {
		return nil, err
	}
	return a.usdc.UnpackBalanceOf(out)
}

// ETHBalance implements ports.Chain.
func (a *reader) ETHBalance(ctx context.Context, address common.Address) (*big.Int, error) {
	balance, err := a.client.BalanceAt(ctx, address, nil)
	if err != nil {
		return nil, fmt.Errorf("chain: balance of %s: %w", address.Hex(), err)
	}
	return balance, nil
}

// LatestBlock implements ports.Chain.
func (a *reader) LatestBlock(ctx context.Context) (uint64, error) {
	n, err := a.client.BlockNumber(ctx)
	if err != nil {
		return 0, fmt.Errorf("chain: block number: %w", err)
	}
	return n, nil
}

// BlockHash implements ports.Chain.
func (a *reader) BlockHash(ctx context.Context, number uint64) (common.Hash, bool, error) {
	head, err := a.client.BlockNumber(ctx)
	if err != nil {
		return common.Hash{}, false, fmt.Errorf("chain: block number: %w", err)
	}
	if number > head {
		return common.Hash{}, false, nil
	}
	h, err := a.client.HeaderByNumber(ctx, new(big.Int).SetUint64(number))
	if errors.Is(err, ethereum.NotFound) {
		return common.Hash{}, false, nil
	}
	if err != nil {
		return common.Hash{}, false, fmt.Errorf("chain: header %d: %w", number, err)
	}
	return h.Hash(), true, nil
}

// USDCTransferLogs implements ports.Chain. With parties it runs two topic-filtered queries
// (parties as sender, parties as recipient) and merges them, so a busy public USDC contract is
// never scanned whole.
func (a *reader) USDCTransferLogs(ctx context.Context, fromBlock, toBlock uint64, parties []common.Address) ([]ports.TransferLog, error) {
	if err := ports.CheckLogRange(fromBlock, toBlock, len(parties)); err != nil {
		return nil, err
	}
	base := ethereum.FilterQuery{
		FromBlock: new(big.Int).SetUint64(fromBlock), ToBlock: new(big.Int).SetUint64(toBlock),
		Addresses: []common.Address{a.addrs.USDC},
	}
	queries := [][][]common.Hash{{{transferTopic}}}
	if len(parties) > 0 {
		topics := make([]common.Hash, len(parties))
		for i, p := range parties {
			topics[i] = common.BytesToHash(p.Bytes())
		}
		queries = [][][]common.Hash{{{transferTopic}, topics}, {{transferTopic}, nil, topics}}
	}
	seen := map[string]bool{}
	var out []ports.TransferLog
	for _, topics := range queries {
		q := base
		q.Topics = topics
		logs, err := a.client.FilterLogs(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("chain: USDC logs %d..%d: %w", fromBlock, toBlock, err)
		}
		for i := range logs {
			key := fmt.Sprintf("%s/%d", logs[i].TxHash.Hex(), logs[i].Index)
			if logs[i].Removed || seen[key] {
				continue
			}
			seen[key] = true
			event, err := a.usdc.UnpackTransferEvent(&logs[i])
			if err != nil {
				return nil, fmt.Errorf("chain: USDC Transfer log %s: %w", key, err)
			}
			out = append(out, ports.TransferLog{
				TxHash: logs[i].TxHash, LogIndex: logs[i].Index, BlockNumber: logs[i].BlockNumber, BlockHash: logs[i].BlockHash,
				From: event.From, To: event.To, AmountBaseUnits: event.Value,
			})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].BlockNumber != out[j].BlockNumber {
			return out[i].BlockNumber < out[j].BlockNumber
		}
		return out[i].LogIndex < out[j].LogIndex
	})
	return out, nil
}

func (a *reader) call(ctx context.Context, to common.Address, data []byte) ([]byte, error) {
	out, err := a.client.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		return nil, fmt.Errorf("chain: call to %s: %w", to.Hex(), asRevert(err))
	}
	return out, nil
}

// callSafe calls a Safe and says so plainly when there is no contract at the address (an
// undeployed wallet answers every call with empty data).
func (a *reader) callSafe(ctx context.Context, safeAddress common.Address, data []byte) ([]byte, error) {
	out, err := a.call(ctx, safeAddress, data)
	if err == nil && len(out) == 0 {
		return nil, fmt.Errorf("chain: no Safe deployed at %s", safeAddress.Hex())
	}
	return out, err
}

// SafeExecution scans the lookback window in bounded ranges, newest first.
func (a *reader) SafeExecution(ctx context.Context, safeAddress common.Address, safeTxHash common.Hash) (common.Hash, bool, error) {
	latest, err := a.client.BlockNumber(ctx)
	if err != nil {
		return common.Hash{}, false, err
	}
	floor := uint64(0)
	if latest > ports.SafeExecutionLookback {
		floor = latest - ports.SafeExecutionLookback
	}
	for to := latest; ; {
		from := floor
		if to-floor >= ports.MaxLogBlockRange {
			from = to - ports.MaxLogBlockRange + 1
		}
		logs, err := a.client.FilterLogs(ctx, ethereum.FilterQuery{
			FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(to),
			Addresses: []common.Address{safeAddress},
			Topics:    [][]common.Hash{{executionSuccessTopic}, {safeTxHash}},
		})
		if err != nil {
			return common.Hash{}, false, err
		}
		for _, l := range logs {
			if !l.Removed {
				return l.TxHash, true, nil
			}
		}
		if from == floor {
			return common.Hash{}, false, nil
		}
		to = from - 1
	}
}

// caller reads from the chain: the Adapter and each of its contract parts, through their
// shared reader.
type caller interface {
	call(ctx context.Context, to common.Address, data []byte) ([]byte, error)
}
