package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/adapters/chain"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
)

// errLedgerBroken makes `corridor ledger verify` exit with status 1 after printing the report.
var errLedgerBroken = errors.New("ledger verification failed")

const ledgerUsage = "usage: corridor ledger verify [--anchors] | corridor ledger anchors | corridor ledger proof --anchor ID"

// ledgerCmd runs `corridor ledger <subcommand>`.
func ledgerCmd(ctx context.Context, cfg Config, log *slog.Logger, args []string) error {
	if len(args) == 0 {
		return errors.New(ledgerUsage)
	}
	switch {
	case args[0] == "verify" && len(args) == 1:
		return ledgerVerify(ctx, cfg, log, false)
	case args[0] == "verify" && len(args) == 2 && args[1] == "--anchors":
		return ledgerVerify(ctx, cfg, log, true)
	case args[0] == "anchors" && len(args) == 1:
		return ledgerAnchors(ctx, cfg, log)
	case args[0] == "proof" && len(args) == 3 && args[1] == "--anchor":
		id, err := strconv.ParseInt(args[2], 10, 64)
		if err != nil || id <= 0 {
			return fmt.Errorf("ledger proof: --anchor takes an anchor's number, got %q", args[2])
		}
		return ledgerProof(ctx, cfg, log, id)
	}
	return errors.New(ledgerUsage)
}

// ledgerVerify checks the journal, and with anchors every anchor against it and the chain.
func ledgerVerify(ctx context.Context, cfg Config, log *slog.Logger, anchors bool) error {
	db, release, err := openLongRead(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer release()
	v, err := postgres.VerifyLedger(ctx, db)
	if err != nil {
		return fmt.Errorf("ledger verify: %w", err)
	}
	printVerification(os.Stdout, v)
	ok := v.OK()
	if anchors {
		a, err := postgres.VerifyAnchors(ctx, db, anchorReader(cfg))
		if err != nil {
			return fmt.Errorf("ledger verify --anchors: %w", err)
		}
		printAnchors(os.Stdout, a)
		ok = ok && a.OK()
	}
	if !ok {
		return errLedgerBroken
	}
	return nil
}

// anchorReader reads anchor transactions from the node configured for their environment
// (CHAIN_RPC_URL or LIVE_CHAIN_RPC_URL), checking that it serves the anchor's chain.
func anchorReader(cfg Config) postgres.AnchorTxReader {
	readers := map[string]*chain.AnchorReader{}
	return func(ctx context.Context, env string, chainID int64, txHash string) ([]byte, uint64, error) {
		r, ok := readers[env]
		if !ok {
			url := cfg.Chain.endpoint(core.Environment(env)).RPCURL.reveal()
			if url == "" {
				variable := "CHAIN_RPC_URL"
				if env == string(core.EnvLive) {
					variable = "LIVE_CHAIN_RPC_URL"
				}
				return nil, 0, fmt.Errorf("no node to read it from: set %s", variable)
			}
			var err error
			if r, err = chain.DialAnchorReader(ctx, url); err != nil {
				return nil, 0, err
			}
			readers[env] = r
		}
		if r.ChainID != chainID {
			return nil, 0, fmt.Errorf("the %s node serves chain %d", env, r.ChainID)
		}
		return r.Read(ctx, common.HexToHash(txHash))
	}
}

// printAnchors writes the anchors' report: OK with the last anchor, or every problem.
func printAnchors(w io.Writer, v postgres.AnchorVerification) {
	switch {
	case v.Anchors == 0:
		fmt.Fprintln(w, "anchors: none mined yet; nothing is proven on chain")
	case v.OK():
		last := v.Last
		fmt.Fprintf(w, "anchors OK: %d anchors match the journal and the chain; the last, %d, is transaction %s in block %d (chain %d), mined %s\n",
			v.Anchors, last.ID, last.TxHash, last.BlockNumber, last.ChainID, last.MinedAt.Format(time.RFC3339))
	case len(v.Problems) > 0:
		fmt.Fprintf(w, "anchors BROKEN: the journal was changed before an anchor (%d anchors checked)\n", v.Anchors)
		for _, p := range append(v.Problems, v.Unread...) {
			fmt.Fprintf(w, "  %s\n", p)
		}
	default:
		// Nothing contradicts the journal: the roots follow from it, but some transactions
		// could not be read, so those anchors are not proven on chain (not a rewrite).
		fmt.Fprintf(w, "anchors NOT VERIFIED: the journal gives every recorded root, but %d of %d anchor transactions could not be read from the chain\n",
			len(v.Unread), v.Anchors)
		for _, p := range v.Unread {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
}

// maxListedAnchors bounds `corridor ledger anchors`; an hourly anchor makes it over a year.
const maxListedAnchors = 10_000

// ledgerAnchors lists the mined anchors, oldest first, each with its transaction and the range
// of transfer sequences it added per environment: which anchor proves a journal period.
func ledgerAnchors(ctx context.Context, cfg Config, log *slog.Logger) error {
	db, release, err := openLongRead(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer release()
	anchors, err := postgres.NewLedgerAnchors(db).Mined(ctx, maxListedAnchors)
	if err != nil {
		return fmt.Errorf("ledger anchors: %w", err)
	}
	if len(anchors) == 0 {
		fmt.Println("no anchor mined yet")
	}
	for _, a := range anchors {
		fmt.Printf("anchor %d  root %x  chain %d  tx %s  block %d  mined %s%s\n", a.ID, a.Root, a.ChainID, a.TxHash,
			a.BlockNumber, a.MinedAt.Format(time.RFC3339), anchorRanges(a))
	}
	return nil
}

// anchorRanges is the sequences an anchor added, per environment ("  TEST 12..40"): the
// journal's sequence column says which anchor covers a row.
func anchorRanges(a postgres.LedgerAnchor) string {
	type span struct{ first, last int64 }
	spans := map[string]span{}
	var envs []string
	for _, h := range a.Heads {
		if h.FirstSequence == 0 {
			continue
		}
		s, seen := spans[h.Environment]
		if !seen {
			envs, s = append(envs, h.Environment), span{h.FirstSequence, h.LastSequence}
		}
		spans[h.Environment] = span{min(s.first, h.FirstSequence), max(s.last, h.LastSequence)}
	}
	out := ""
	for _, env := range envs {
		out += fmt.Sprintf("  %s sequences %d..%d", env, spans[env].first, spans[env].last)
	}
	return out
}

// ledgerProof prints one anchor's proof as JSON (docs/ledger.md: how an auditor checks it).
func ledgerProof(ctx context.Context, cfg Config, log *slog.Logger, id int64) error {
	db, release, err := openLongRead(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer release()
	proof, err := postgres.NewLedgerAnchors(db).ExportAnchorProof(ctx, id)
	if err != nil {
		return fmt.Errorf("ledger proof: %w", err)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(proof)
}

// printVerification writes the report: OK with counts, or the first broken transfer (id,
// environment, stripe, position), every broken stripe and the other problems found.
func printVerification(w io.Writer, v postgres.LedgerVerification) {
	if v.OK() {
		fmt.Fprintf(w, "ledger OK: %d transfers in %d hash chains (%d stripes per environment: %d of before, %d tenant buckets × %d; "+
			"walked in parallel), %d accounts; every transfer in exactly one stripe of its tenant's bucket, "+
			"balances match the history and every trial balance sums to zero\n", v.Transfers, v.Chains, postgres.ChainStripes,
			postgres.ChainStripesBefore, postgres.ChainBuckets, postgres.ChainLanes, v.Accounts)
		return
	}
	if b, ok := v.FirstBreak(); ok {
		fmt.Fprintf(w, "ledger BROKEN: first break at transfer %s (environment %s, stripe %d, position %d): %s\n",
			b.TransferID, b.Environment, b.Stripe, b.Position, b.Reason)
		for _, other := range v.Breaks[1:] {
			fmt.Fprintf(w, "  also broken: transfer %s (environment %s, stripe %d, position %d): %s\n",
				other.TransferID, other.Environment, other.Stripe, other.Position, other.Reason)
		}
	} else {
		fmt.Fprintf(w, "ledger BROKEN: every hash chain verifies (%d transfers), but the history disagrees with the stored state\n", v.Transfers)
	}
	for _, p := range v.Problems {
		fmt.Fprintf(w, "  problem: %s\n", p)
	}
	if v.MoreProblems > 0 {
		fmt.Fprintf(w, "  … and %d more problems\n", v.MoreProblems)
	}
}

// openLongRead opens DATABASE_URL (or the local cluster, started when needed) for the
// operator commands that read the whole history in one transaction: the serving time-outs
// would cut a large ledger short, and an operator can interrupt it. release closes the pool
// and stops a cluster this call started.
func openLongRead(ctx context.Context, cfg Config, log *slog.Logger) (*bun.DB, func(), error) {
	url := cfg.Service.DatabaseURL
	stop := func() {}
	if url == "" {
		cluster, err := localCluster(ctx, cfg, log)
		if err != nil {
			return nil, nil, err
		}
		if cluster.StartedHere() {
			stop = func() { _ = cluster.Stop(context.Background()) }
		}
		url = cluster.URL("corridor")
	}
	db, err := postgres.Open(ctx, url, postgres.Options{MaxOpenConns: 2, StatementTimeout: -1, IdleInTransactionTimeout: -1})
	if err != nil {
		stop()
		return nil, nil, err
	}
	return db, func() { _ = db.Close(); stop() }, nil
}
