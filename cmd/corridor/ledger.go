package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/adapters/postgres"
)

// errLedgerBroken makes `corridor ledger verify` exit with status 1 after printing the report.
var errLedgerBroken = errors.New("ledger verification failed")

// ledgerCmd runs `corridor ledger <subcommand>`.
func ledgerCmd(ctx context.Context, cfg Config, log *slog.Logger, args []string) error {
	if len(args) != 1 || args[0] != "verify" {
		return errors.New("usage: corridor ledger verify")
	}
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
	if !v.OK() {
		return errLedgerBroken
	}
	return nil
}

// printVerification writes the report: OK with counts, or the first broken transfer (id,
// environment, stripe, position), every broken stripe and the other problems found.
func printVerification(w io.Writer, v postgres.LedgerVerification) {
	if v.OK() {
		fmt.Fprintf(w, "ledger OK: %d transfers in %d hash chains (%d stripes per environment), %d accounts; "+
			"balances match the history and every trial balance sums to zero\n", v.Transfers, v.Chains, postgres.ChainStripes, v.Accounts)
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
