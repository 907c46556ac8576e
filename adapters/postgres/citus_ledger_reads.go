package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
)

// ledgerTables are the ledger's tables distributed by home (CitusPlan).
var ledgerTables = []string{"ledger_accounts", "ledger_balances", "ledger_postings", "ledger_transfers"}

// onCoordinator rewrites one of the whole-ledger reads of `corridor check` and `corridor ledger
// verify` for Citus: each ledger table it names is read first, whole, as a materialized result
// under the table's own name, and the statement then joins those results on the coordinator.
// Those reads join the ledger's tables on ids (a posting to its account, a transfer to its
// postings, whatever their homes), which Citus refuses between distributed tables; they run at
// operator pace and read every row anyway. On PostgreSQL the statement is left as it is.
func onCoordinator(citus bool, q string) string {
	if !citus {
		return q
	}
	var ctes []string
	for _, t := range ledgerTables {
		if regexp.MustCompile(`\b` + t + `\b`).MatchString(q) {
			ctes = append(ctes, fmt.Sprintf("%s AS MATERIALIZED (SELECT * FROM public.%s)", t, t))
		}
	}
	if len(ctes) == 0 {
		return q
	}
	head := "WITH " + strings.Join(ctes, ", ")
	trimmed := strings.TrimSpace(q)
	if rest, ok := strings.CutPrefix(trimmed, "WITH "); ok {
		return head + ",\n" + rest
	}
	return head + "\n" + trimmed
}

// isCitus reports whether db is a Citus coordinator (an error reads as not).
func isCitus(ctx context.Context, db *sql.DB) bool {
	ok, err := IsCitus(ctx, db)
	return err == nil && ok
}
