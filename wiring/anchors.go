package wiring

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/adapters/chain"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// DefaultLedgerAnchorInterval paces the ledger anchor when LEDGER_ANCHOR_INTERVAL is zero: one
// transaction an hour bounds the window in which a rewrite of the journal goes unproven, at the
// cost of about 22,000 gas each.
const DefaultLedgerAnchorInterval = time.Hour

// anchorMineWait bounds how long one pass waits for the anchor's transaction to be mined before
// leaving it to the next pass (the fee-bump pass replaces it meanwhile if it is stuck).
const anchorMineWait = 90 * time.Second

// LedgerAnchorArgs is the periodic job that anchors the ledger's hash-chain heads on chain.
type LedgerAnchorArgs struct{}

// Kind names the job.
func (LedgerAnchorArgs) Kind() string { return "ledger.anchor" }

// ledgerAnchoring is the anchor pass: a capability with background work, wired only when a
// chain is configured.
type ledgerAnchoring struct {
	anchors  *postgres.LedgerAnchors
	chain    *chain.Adapter
	chainEnv core.Environment
	interval time.Duration
	log      *slog.Logger
}

var _ kernel.Jobs = (*ledgerAnchoring)(nil)

// newLedgerAnchoring picks the chain that carries the anchors: LIVE's when LIVE is served (the
// chain whose history finance relies on), else TEST's; nil when there is none. A negative
// interval schedules no pass (AnchorLedger still runs one).
func newLedgerAnchoring(anchors *postgres.LedgerAnchors, adapters map[core.Environment]ports.Chain, interval time.Duration, log *slog.Logger) *ledgerAnchoring {
	if interval == 0 {
		interval = DefaultLedgerAnchorInterval
	}
	for _, env := range []core.Environment{core.EnvLive, core.EnvTest} {
		if a, ok := adapters[env].(*chain.Adapter); ok {
			return &ledgerAnchoring{anchors: anchors, chain: a, chainEnv: env, interval: interval, log: log}
		}
	}
	return nil
}

// ledgerAnchorWorker runs one pass.
type ledgerAnchorWorker struct {
	river.WorkerDefaults[LedgerAnchorArgs]
	anchoring *ledgerAnchoring
}

// Work anchors the current heads (or finishes the anchor a previous pass left open).
func (w *ledgerAnchorWorker) Work(ctx context.Context, _ *river.Job[LedgerAnchorArgs]) error {
	_, err := w.anchoring.Pass(ctx)
	return err
}

// Timeout bounds one run: the mining wait and the reads around it.
func (w *ledgerAnchorWorker) Timeout(*river.Job[LedgerAnchorArgs]) time.Duration {
	return anchorMineWait + time.Minute
}

// RegisterWorkers adds the worker.
func (l *ledgerAnchoring) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &ledgerAnchorWorker{anchoring: l})
}

// PeriodicJobs schedules the pass every interval, and once at start so an anchor left open by
// a stopped process is finished; none when anchoring is off.
func (l *ledgerAnchoring) PeriodicJobs() []*river.PeriodicJob {
	if l.interval < 0 {
		return nil
	}
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(l.interval),
		func() (river.JobArgs, *river.InsertOpts) { return LedgerAnchorArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})}
}

// Pass runs the anchor's steps, each recorded before the next, so a pass cut short anywhere
// is finished by the next one: take the open anchor or record a new one over the current
// heads; send its transaction unless one is recorded (or, after a crash between the send and
// its record, found in the relayer's log by its payload); wait for it to be mined and record
// the transaction and block. It returns the anchor it closed, if any.
func (l *ledgerAnchoring) Pass(ctx context.Context) (postgres.LedgerAnchor, error) {
	a, ok, err := l.anchors.Open(ctx)
	if err != nil {
		return a, err
	}
	if !ok {
		if a, ok, err = l.anchors.Prepare(ctx, time.Now().UTC(), string(l.chainEnv), l.chain.ChainID()); err != nil || !ok {
			return postgres.LedgerAnchor{}, err
		}
	}
	if a.ChainID != l.chain.ChainID() {
		return a, fmt.Errorf("ledger anchor %d is for chain %d, this relayer sends on %d", a.ID, a.ChainID, l.chain.ChainID())
	}
	if a.TxHash == "" {
		if a.TxHash, err = l.send(ctx, a); err != nil {
			return a, err
		}
	}
	waitCtx, cancel := context.WithTimeout(ctx, anchorMineWait)
	defer cancel()
	receipt, err := l.waitMined(waitCtx, common.HexToHash(a.TxHash))
	if err != nil {
		return a, err
	}
	if receipt.Status == ports.TxFailed {
		// A zero-value self-transfer fails only if it ran out of gas: send it again next pass.
		return a, errors.Join(fmt.Errorf("ledger anchor %d: transaction %s failed: %s", a.ID, a.TxHash, receipt.FailureReason),
			l.anchors.ForgetSent(ctx, a.ID))
	}
	a.TxHash, a.BlockNumber, a.MinedAt = lowerHex(receipt.TxHash), receipt.BlockNumber, time.Now().UTC()
	if err := l.anchors.RecordMined(ctx, a.ID, a.TxHash, a.BlockNumber, a.MinedAt); err != nil {
		return a, err
	}
	l.log.InfoContext(ctx, "ledger anchored", "anchor", a.ID, "root", fmt.Sprintf("%x", a.Root), "tx", a.TxHash, "block", a.BlockNumber)
	return a, nil
}

func (l *ledgerAnchoring) send(ctx context.Context, a postgres.LedgerAnchor) (string, error) {
	hash, found, err := l.anchors.SentPayload(ctx, a.ChainID, a.Payload)
	if err != nil {
		return "", err
	}
	if found {
		// A logged transaction that failed on chain is why the anchor was sent again.
		receipt, err := l.chain.Receipt(ctx, common.HexToHash(hash))
		if err != nil {
			return "", err
		}
		found = receipt.Status != ports.TxFailed
	}
	if !found {
		sent, err := l.chain.SendAnchor(ctx, a.ID, a.Payload)
		if err != nil {
			return "", fmt.Errorf("ledger anchor %d: %w", a.ID, err)
		}
		hash = lowerHex(sent)
	}
	return hash, l.anchors.RecordSent(ctx, a.ID, hash)
}

// waitMined polls the receipt until the transaction (or a fee-bumped replacement) is mined.
func (l *ledgerAnchoring) waitMined(ctx context.Context, hash common.Hash) (ports.Receipt, error) {
	for {
		receipt, err := l.chain.Receipt(ctx, hash)
		if err != nil || receipt.Status != ports.TxPending {
			return receipt, err
		}
		select {
		case <-ctx.Done():
			return receipt, fmt.Errorf("ledger anchor: transaction %s not mined yet: %w", hash.Hex(), ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func lowerHex(h common.Hash) string { return "0x" + fmt.Sprintf("%x", h.Bytes()) }

// AnchorLedger runs one anchor pass now, as the periodic job does (tests and operators that
// want an anchor without waiting for the interval). It fails when no chain carries anchors.
func (s *Service) AnchorLedger(ctx context.Context) (postgres.LedgerAnchor, error) {
	if s.anchoring == nil {
		return postgres.LedgerAnchor{}, errors.New("ledger anchoring is off: no chain is configured")
	}
	return s.anchoring.Pass(ctx)
}
