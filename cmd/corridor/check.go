package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
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
	chains, unreachable, release, err := checkChains(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer release()
	rep, err := postgres.CheckInvariants(ctx, db, chains)
	skipUnreachable(&rep, unreachable)
	if err != nil {
		// What ran is printed; the check that could not run is named by the error.
		printChecks(os.Stdout, rep)
		return fmt.Errorf("check: %w", err)
	}
	printInvariants(os.Stdout, rep)
	if !rep.OK() {
		return errInvariantsBroken
	}
	return nil
}

// checkChains dials the configured chains of both environments, as the service does. A node
// that does not answer is no reason to leave the database unchecked (an on-call engineer runs
// the check during a chain outage too): its environment is checked without a chain and its
// chain checks say why they were skipped. A node of the wrong chain still stops the check.
func checkChains(ctx context.Context, cfg Config, log *slog.Logger) (map[core.Environment]ports.Chain, map[core.Environment]string, func(), error) {
	unreachable := map[core.Environment]string{}
	chains, release, err := startChainsSkipping(ctx, cfg, log, func(env core.Environment, err error) bool {
		var down chainUnreachableError
		if !errors.As(err, &down) {
			return false
		}
		unreachable[env] = down.Error()
		log.Warn("chain checks skipped: the node does not answer", "environment", env, "error", down.Error())
		return true
	})
	return chains, unreachable, release, err
}

// skipUnreachable gives the chain checks of an environment whose node did not answer the real
// reason they were skipped, instead of "no chain configured".
func skipUnreachable(rep *postgres.InvariantReport, unreachable map[core.Environment]string) {
	for env, why := range unreachable {
		reason := "not checked against the chain: " + why
		for i, c := range rep.Checks {
			switch {
			case c.Skipped == "":
			case c.Name == "ledger-vs-chain "+string(env), c.Name == "escrow-vs-chain "+string(env),
				c.Name == "ledger-anchors" && strings.HasPrefix(c.Skipped, fmt.Sprintf("anchors are on the %s chain", env)):
				rep.Checks[i].Skipped = reason
			}
		}
	}
}

// printInvariants writes one line per check (ok, SKIPPED with why, or FAILED) and, under a
// failed check, each problem it named, then the verdict.
func printInvariants(w io.Writer, rep postgres.InvariantReport) {
	printChecks(w, rep)
	if rep.OK() {
		fmt.Fprintln(w, "check OK")
	} else {
		fmt.Fprintln(w, "check FAILED")
	}
}

// printChecks writes one line per check and, under a failed check, each problem it named.
func printChecks(w io.Writer, rep postgres.InvariantReport) {
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
}
