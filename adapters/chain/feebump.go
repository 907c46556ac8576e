package chain

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/corridorhq/corridor/ports"
)

// feeBumpPercent raises both the fee cap and the tip of a replacement: nodes refuse a
// replacement that does not raise both by their minimum (geth: 10%, many providers: 12.5%).
const feeBumpPercent = 20

// maxStuckPerPass bounds the transactions one bump pass looks at.
const maxStuckPerPass = 100

// SentTx is one transaction the relayer sent (ports.RelayerTx).
type SentTx = ports.RelayerTx

// TxLog records the relayer's transactions (ports.RelayerTxLog).
type TxLog = ports.RelayerTxLog

// NonceLocker is implemented by a NonceKeeper that can hold its key's lock without handing out
// a new nonce, so a fee bump and a new send never race for one nonce across replicas.
type NonceLocker interface {
	WithNonceLock(ctx context.Context, chainID int64, from string, fn func() error) error
}

// UseTxLog makes the relayer record its transactions in log (shared by every replica) instead
// of this process's memory. The first log stays, as with UseNonceKeeper.
func (a *Adapter) UseTxLog(log TxLog) {
	a.relay.mu.Lock()
	defer a.relay.mu.Unlock()
	if !a.relay.txLogSet {
		a.relay.txLog, a.relay.txLogSet = log, true
	}
}

// record stores a sent transaction; a failure is logged, not returned: the transaction is
// out, and without its record it is only never bumped.
func (r *relayer) record(ctx context.Context, tx *types.Transaction, sentAt time.Time) {
	err := r.txLog.RecordTx(ctx, SentTx{
		ChainID: r.chainID.Int64(), From: r.from.Hex(), Nonce: tx.Nonce(), Hash: tx.Hash(), To: tx.To(),
		Value: tx.Value(), Data: tx.Data(), Gas: tx.Gas(), FeeCap: tx.GasFeeCap(), TipCap: tx.GasTipCap(), SentAt: sentAt,
	})
	if err != nil {
		slog.WarnContext(ctx, "relayer transaction not recorded; it will not be fee-bumped", "tx", tx.Hash().Hex(), "err", err)
	}
}

// receipt is receiptOf with the nonce as identity: while hash has no receipt, a recorded
// replacement of it (same nonce) that is mined answers instead, its hash in TxHash.
func (r *relayer) receipt(ctx context.Context, hash common.Hash) (ports.Receipt, error) {
	out, err := receiptOf(ctx, r.client, hash)
	if err != nil || out.Status != ports.TxPending {
		return out, err
	}
	siblings, err := r.txLog.Siblings(ctx, r.chainID.Int64(), hash)
	if err != nil {
		return ports.Receipt{}, fmt.Errorf("chain: replacements of %s: %w", hash.Hex(), err)
	}
	for _, other := range siblings {
		if other == hash {
			continue
		}
		receipt, err := receiptOf(ctx, r.client, other)
		if err != nil {
			return ports.Receipt{}, err
		}
		if receipt.Status != ports.TxPending {
			return receipt, nil
		}
	}
	return out, nil
}

// waitMined is the package's waitMined with replacements counted (see receipt).
func (r *relayer) waitMined(ctx context.Context, hash common.Hash) (ports.Receipt, error) {
	for {
		receipt, err := r.receipt(ctx, hash)
		if err != nil {
			return receipt, err
		}
		switch receipt.Status {
		case ports.TxSucceeded:
			return receipt, nil
		case ports.TxFailed:
			return receipt, fmt.Errorf("chain: transaction %s failed: %s", receipt.TxHash.Hex(), receipt.FailureReason)
		}
		select {
		case <-ctx.Done():
			return receipt, fmt.Errorf("chain: waiting for %s: %w", hash.Hex(), ctx.Err())
		case <-time.After(receiptPollInterval):
		}
	}
}

// BumpOptions configures BumpStuck.
type BumpOptions struct {
	// After is how long a transaction may stay unmined before it is replaced.
	After time.Duration
	// MaxFeeCap is the ceiling of a replacement's fee cap in wei; a bump that would pass it is
	// not sent (and logged). Nil or zero: no bump at all.
	MaxFeeCap *big.Int
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Logger receives the bumps and the refusals (slog.Default when nil).
	Logger *slog.Logger
}

// BumpReport counts what one BumpStuck pass did.
type BumpReport struct {
	Settled int // nonces found mined (or used) and marked done
	Bumped  int // replacements sent
	Capped  int // replacements not sent: the raised fee cap would pass MaxFeeCap
}

// BumpStuck looks at every relayer transaction not yet settled: a nonce with a mined
// transaction is settled; one whose latest transaction is older than opts.After is sent again
// with the same payload and nonce and fee cap and tip raised by feeBumpPercent, under the nonce
// lock, and the replacement recorded. Receipt then answers for either transaction.
func (a *Adapter) BumpStuck(ctx context.Context, opts BumpOptions) (BumpReport, error) {
	return a.relay.bumpStuck(ctx, opts)
}

func (r *relayer) bumpStuck(ctx context.Context, opts BumpOptions) (BumpReport, error) {
	var report BumpReport
	now, log := opts.Now, opts.Logger
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	chainID, from := r.chainID.Int64(), r.from.Hex()
	stuck, err := r.txLog.Unsettled(ctx, chainID, from, maxStuckPerPass)
	if err != nil || len(stuck) == 0 {
		return report, err
	}
	mined, err := r.client.NonceAt(ctx, r.from, nil)
	if err != nil {
		return report, fmt.Errorf("chain: relayer nonce: %w", err)
	}
	for _, sent := range stuck {
		if sent.Nonce < mined {
			// Some transaction of this nonce is in a block: the nonce is done.
			if err := r.txLog.Settle(ctx, chainID, from, sent.Nonce); err != nil {
				return report, err
			}
			report.Settled++
			continue
		}
		if now().Sub(sent.SentAt) < opts.After {
			continue
		}
		feeCap, tipCap := raised(sent.FeeCap), raised(sent.TipCap)
		if opts.MaxFeeCap == nil || opts.MaxFeeCap.Sign() <= 0 || feeCap.Cmp(opts.MaxFeeCap) > 0 {
			log.WarnContext(ctx, "relayer transaction stuck: fee bump refused by the ceiling RELAYER_MAX_FEE_GWEI",
				"tx", sent.Hash.Hex(), "nonce", sent.Nonce, "fee_cap_wei", feeCap.String(), "ceiling_wei", fmt.Sprint(opts.MaxFeeCap))
			report.Capped++
			continue
		}
		if tipCap.Cmp(feeCap) > 0 {
			tipCap = new(big.Int).Set(feeCap)
		}
		hash, err := r.replace(ctx, sent, feeCap, tipCap, now())
		if errors.Is(err, errNonceUsed) {
			if err := r.txLog.Settle(ctx, chainID, from, sent.Nonce); err != nil {
				return report, err
			}
			report.Settled++
			continue
		}
		if err != nil {
			return report, err
		}
		log.InfoContext(ctx, "relayer transaction fee-bumped", "replaced", sent.Hash.Hex(), "replacement", hash.Hex(),
			"nonce", sent.Nonce, "fee_cap_wei", feeCap.String(), "tip_wei", tipCap.String())
		report.Bumped++
	}
	return report, nil
}

var errNonceUsed = errors.New("chain: the nonce is already used")

func isNonceTooLow(err error) bool {
	return strings.Contains(strings.ToLower(err.Error()), "nonce too low")
}

// replace signs and sends sent's payload again with the given fees, under the relayer's lock
// and, across replicas, the keeper's lock on the key.
func (r *relayer) replace(ctx context.Context, sent SentTx, feeCap, tipCap *big.Int, at time.Time) (common.Hash, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var hash common.Hash
	send := func() error {
		tx, err := types.SignNewTx(r.key, r.signer, &types.DynamicFeeTx{
			ChainID: r.chainID, Nonce: sent.Nonce, GasTipCap: tipCap, GasFeeCap: feeCap,
			Gas: sent.Gas, To: sent.To, Value: orZero(sent.Value), Data: sent.Data,
		})
		if err != nil {
			return fmt.Errorf("chain: signing: %w", err)
		}
		err = r.client.SendTransaction(ctx, tx)
		switch {
		case err == nil || isAlreadyKnown(err):
			hash = tx.Hash()
			r.record(ctx, tx, at)
			r.afterSend()
			return nil
		case isNonceTooLow(err):
			return errNonceUsed
		default:
			return fmt.Errorf("chain: sending replacement of %s: %w", sent.Hash.Hex(), err)
		}
	}
	if locker, ok := r.keeper.(NonceLocker); ok {
		return hash, locker.WithNonceLock(ctx, sent.ChainID, sent.From, send)
	}
	return hash, send()
}

// raised is v plus feeBumpPercent, rounded up, and at least v+1.
func raised(v *big.Int) *big.Int {
	v = orZero(v)
	out := new(big.Int).Mul(v, big.NewInt(100+feeBumpPercent))
	out.Add(out, big.NewInt(99))
	out.Div(out, big.NewInt(100))
	if out.Cmp(v) <= 0 {
		out.Add(v, big.NewInt(1))
	}
	return out
}

// memTxLog is the TxLog of a relayer without a database: this process's memory.
type memTxLog struct {
	mu      sync.Mutex
	txs     map[common.Hash]SentTx
	settled map[string]bool
}

func newMemTxLog() *memTxLog {
	return &memTxLog{txs: make(map[common.Hash]SentTx), settled: make(map[string]bool)}
}

func nonceKey(chainID int64, from string, nonce uint64) string {
	return fmt.Sprintf("%d/%s/%d", chainID, from, nonce)
}

func (m *memTxLog) RecordTx(_ context.Context, tx SentTx) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.txs[tx.Hash] = tx
	return nil
}

func (m *memTxLog) Unsettled(_ context.Context, chainID int64, from string, limit int) ([]SentTx, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	latest := map[uint64]SentTx{}
	for _, tx := range m.txs {
		if tx.ChainID != chainID || tx.From != from || m.settled[nonceKey(chainID, from, tx.Nonce)] {
			continue
		}
		if cur, ok := latest[tx.Nonce]; !ok || tx.SentAt.After(cur.SentAt) {
			latest[tx.Nonce] = tx
		}
	}
	out := make([]SentTx, 0, len(latest))
	for _, tx := range latest {
		out = append(out, tx)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Nonce < out[j].Nonce })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (m *memTxLog) Siblings(_ context.Context, chainID int64, hash common.Hash) ([]common.Hash, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	self, ok := m.txs[hash]
	if !ok || self.ChainID != chainID {
		return nil, nil
	}
	var out []common.Hash
	for h, tx := range m.txs {
		if tx.ChainID == chainID && tx.From == self.From && tx.Nonce == self.Nonce {
			out = append(out, h)
		}
	}
	return out, nil
}

func (m *memTxLog) Settle(_ context.Context, chainID int64, from string, nonce uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settled[nonceKey(chainID, from, nonce)] = true
	// Settled records stay for Siblings (a caller may still ask about a replaced hash) until
	// the memory passes its bound; then the settled ones go.
	if len(m.txs) > 2*rememberedSends {
		for h, tx := range m.txs {
			if key := nonceKey(tx.ChainID, tx.From, tx.Nonce); m.settled[key] {
				delete(m.txs, h)
				delete(m.settled, key)
			}
		}
	}
	return nil
}
