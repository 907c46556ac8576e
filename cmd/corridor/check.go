package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/corridorhq/corridor/adapters/postgres"
)

// errInvariantsBroken makes `corridor check` exit with status 1 after printing the report.
var errInvariantsBroken = errors.New("invariant check failed")

// checkCmd runs `corridor check`: the ledger's verification plus the cross-checks of
// postgres.CheckInvariants, against DATABASE_URL (or the local cluster) and the chains
// configured by CHAIN_RPC_URL / LIVE_CHAIN_RPC_URL (none: ledger against chain is skipped).
func checkCmd(ctx context.Context, cfg Config, log *slog.Logger) error {
	// As `ledger verify`: one long read, which the serving time-outs would cut short.
	db, release, err := openLongRead(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer release()
	cfg.Local = false // dial configured chains only; never start a dev chain to check against
	chains, release, err := startChains(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer release()
	rep, err := postgres.CheckInvariants(ctx, db, chains)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	printInvariants(os.Stdout, rep)
	if !rep.OK() {
		return errInvariantsBroken
	}
	return nil
}

// printInvariants writes one line per check (ok, SKIPPED with why, or FAILED) and, under a
// failed check, each problem it named.
func printInvariants(w io.Writer, rep postgres.InvariantReport) {
	for _, c := range rep.Checks {
		switch {
		case !c.OK():
			fmt.Fprintf(w, "FAILED  %s: %d problem(s)\n", c.Name, len(c.Problems))
			for _, p := range c.Problems {
				fmt.Fprintf(w, "        - %s\n", p)
			}
		case c.Skipped != "":
			fmt.Fprintf(w, "SKIPPED %s: %s\n", c.Name, c.Skipped)
		case c.Note != "":
			fmt.Fprintf(w, "ok      %s (%s)\n", c.Name, c.Note)
		default:
			fmt.Fprintf(w, "ok      %s\n", c.Name)
		}
	}
	if rep.OK() {
		fmt.Fprintln(w, "check OK")
	} else {
		fmt.Fprintln(w, "check FAILED")
	}
}
