package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/corridorhq/corridor/core"
)

// DefaultRPCTimeout bounds one call to a node when no time-out is configured.
const DefaultRPCTimeout = 10 * time.Second

// WithRPCTimeout wraps a node client so that every call ends within timeout (0 takes
// DefaultRPCTimeout), whatever deadline the caller's context has, and so that a node that
// does not answer, or cannot be reached, is reported as CHAIN_UNAVAILABLE. An endpoint that
// accepts connections and never answers then costs a caller at most timeout per call instead
// of holding it (and whatever it holds, a pooled database connection included) for ever.
// The errors keep their cause: errors.Is finds context.DeadlineExceeded, errors.As the node's
// error, and the HTTP adapter renders only the CHAIN_UNAVAILABLE message.
func WithRPCTimeout(c Client, timeout time.Duration) Client {
	if timeout <= 0 {
		timeout = DefaultRPCTimeout
	}
	t := timeoutPolicy{timeout: timeout}
	return wrappedClient{c: c, run: t.run}
}

// timeoutPolicy is WithRPCTimeout's per-call deadline and error translation.
type timeoutPolicy struct {
	timeout time.Duration
}

// run runs one call under the per-call deadline and translates what it saw.
func (t timeoutPolicy) run(ctx context.Context, call func(context.Context) error) error {
	callCtx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	err := call(callCtx)
	if err != nil {
		err = t.translate(ctx, callCtx, err)
	}
	return err
}

// translate marks an error as CHAIN_UNAVAILABLE when the node did not answer within the
// per-call deadline or could not be reached. The caller's own cancellation, and every answer
// the node did give (a revert, an unknown transaction, a nonce refusal), pass unchanged.
func (t timeoutPolicy) translate(ctx, callCtx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	var netErr net.Error
	var httpErr rpc.HTTPError
	switch {
	case errors.Is(callCtx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: %w", core.E(core.CodeChainUnavailable, "the chain node did not answer within %s; retry shortly", t.timeout).Transient(core.RetryDependency), err)
	case errors.As(err, &netErr):
		return fmt.Errorf("%w: %w", core.E(core.CodeChainUnavailable, "the chain node could not be reached; retry shortly").Transient(core.RetryDependency), err)
	case errors.As(err, &httpErr) && (httpErr.StatusCode >= 500 || httpErr.StatusCode == 429):
		return fmt.Errorf("%w: %w", core.E(core.CodeChainUnavailable, "the chain node answered HTTP %d; retry shortly", httpErr.StatusCode).Transient(core.RetryDependency), err)
	}
	return err
}

// Stallable is a client that, while stalled, behaves like a node that accepts connections and
// never answers: every call blocks until its context ends. Tests put it under an adapter
// (SimulatedOptions.Intercept) to show what a hung node does to the service.
type Stallable struct {
	Client
	stalled *atomic.Bool
}

// NewStallable wraps c, answering until Stall(true).
func NewStallable(c Client) Stallable {
	s := Stallable{stalled: new(atomic.Bool)}
	s.Client = wrappedClient{c: c, run: s.run}
	return s
}

// Stall turns the stall on or off; calls already blocked stay blocked until their context ends.
func (s Stallable) Stall(on bool) { s.stalled.Store(on) }

func (s Stallable) run(ctx context.Context, call func(context.Context) error) error {
	if s.stalled.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return call(ctx)
}

// wrappedClient runs every call of c through run, which may bound, translate or hold it.
type wrappedClient struct {
	c   Client
	run func(ctx context.Context, call func(context.Context) error) error
}

func (w wrappedClient) ChainID(ctx context.Context) (id *big.Int, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { id, e = w.c.ChainID(ctx); return })
	return id, err
}

func (w wrappedClient) BlockNumber(ctx context.Context) (n uint64, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { n, e = w.c.BlockNumber(ctx); return })
	return n, err
}

func (w wrappedClient) BlockByHash(ctx context.Context, hash common.Hash) (b *types.Block, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { b, e = w.c.BlockByHash(ctx, hash); return })
	return b, err
}

func (w wrappedClient) BlockByNumber(ctx context.Context, number *big.Int) (b *types.Block, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { b, e = w.c.BlockByNumber(ctx, number); return })
	return b, err
}

func (w wrappedClient) HeaderByHash(ctx context.Context, hash common.Hash) (h *types.Header, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { h, e = w.c.HeaderByHash(ctx, hash); return })
	return h, err
}

func (w wrappedClient) HeaderByNumber(ctx context.Context, number *big.Int) (h *types.Header, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { h, e = w.c.HeaderByNumber(ctx, number); return })
	return h, err
}

func (w wrappedClient) TransactionCount(ctx context.Context, blockHash common.Hash) (n uint, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { n, e = w.c.TransactionCount(ctx, blockHash); return })
	return n, err
}

func (w wrappedClient) TransactionInBlock(ctx context.Context, blockHash common.Hash, index uint) (tx *types.Transaction, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { tx, e = w.c.TransactionInBlock(ctx, blockHash, index); return })
	return tx, err
}

// SubscribeNewHead runs setting the subscription up; the subscription itself lives on.
func (w wrappedClient) SubscribeNewHead(ctx context.Context, ch chan<- *types.Header) (sub ethereum.Subscription, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { sub, e = w.c.SubscribeNewHead(ctx, ch); return })
	return sub, err
}

func (w wrappedClient) BalanceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (b *big.Int, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { b, e = w.c.BalanceAt(ctx, account, blockNumber); return })
	return b, err
}

func (w wrappedClient) StorageAt(ctx context.Context, account common.Address, key common.Hash, blockNumber *big.Int) (v []byte, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { v, e = w.c.StorageAt(ctx, account, key, blockNumber); return })
	return v, err
}

func (w wrappedClient) CodeAt(ctx context.Context, account common.Address, blockNumber *big.Int) (code []byte, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { code, e = w.c.CodeAt(ctx, account, blockNumber); return })
	return code, err
}

func (w wrappedClient) NonceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (n uint64, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { n, e = w.c.NonceAt(ctx, account, blockNumber); return })
	return n, err
}

func (w wrappedClient) CallContract(ctx context.Context, call ethereum.CallMsg, blockNumber *big.Int) (out []byte, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { out, e = w.c.CallContract(ctx, call, blockNumber); return })
	return out, err
}

func (w wrappedClient) EstimateGas(ctx context.Context, call ethereum.CallMsg) (gas uint64, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { gas, e = w.c.EstimateGas(ctx, call); return })
	return gas, err
}

func (w wrappedClient) SuggestGasTipCap(ctx context.Context) (tip *big.Int, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { tip, e = w.c.SuggestGasTipCap(ctx); return })
	return tip, err
}

func (w wrappedClient) FilterLogs(ctx context.Context, q ethereum.FilterQuery) (logs []types.Log, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { logs, e = w.c.FilterLogs(ctx, q); return })
	return logs, err
}

// SubscribeFilterLogs runs setting the subscription up; the subscription itself lives on.
func (w wrappedClient) SubscribeFilterLogs(ctx context.Context, q ethereum.FilterQuery, ch chan<- types.Log) (sub ethereum.Subscription, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { sub, e = w.c.SubscribeFilterLogs(ctx, q, ch); return })
	return sub, err
}

func (w wrappedClient) PendingBalanceAt(ctx context.Context, account common.Address) (b *big.Int, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { b, e = w.c.PendingBalanceAt(ctx, account); return })
	return b, err
}

func (w wrappedClient) PendingStorageAt(ctx context.Context, account common.Address, key common.Hash) (v []byte, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { v, e = w.c.PendingStorageAt(ctx, account, key); return })
	return v, err
}

func (w wrappedClient) PendingCodeAt(ctx context.Context, account common.Address) (code []byte, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { code, e = w.c.PendingCodeAt(ctx, account); return })
	return code, err
}

func (w wrappedClient) PendingNonceAt(ctx context.Context, account common.Address) (n uint64, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { n, e = w.c.PendingNonceAt(ctx, account); return })
	return n, err
}

func (w wrappedClient) PendingTransactionCount(ctx context.Context) (n uint, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { n, e = w.c.PendingTransactionCount(ctx); return })
	return n, err
}

func (w wrappedClient) TransactionByHash(ctx context.Context, hash common.Hash) (tx *types.Transaction, pending bool, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { tx, pending, e = w.c.TransactionByHash(ctx, hash); return })
	return tx, pending, err
}

func (w wrappedClient) TransactionReceipt(ctx context.Context, hash common.Hash) (r *types.Receipt, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { r, e = w.c.TransactionReceipt(ctx, hash); return })
	return r, err
}

// SubscribeTransactionReceipts runs setting the subscription up; the subscription itself
// lives on.
func (w wrappedClient) SubscribeTransactionReceipts(ctx context.Context, q *ethereum.TransactionReceiptsQuery, ch chan<- []*types.Receipt) (sub ethereum.Subscription, err error) {
	err = w.run(ctx, func(ctx context.Context) (e error) { sub, e = w.c.SubscribeTransactionReceipts(ctx, q, ch); return })
	return sub, err
}

func (w wrappedClient) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	return w.run(ctx, func(ctx context.Context) error { return w.c.SendTransaction(ctx, tx) })
}
