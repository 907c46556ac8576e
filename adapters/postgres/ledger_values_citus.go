package postgres

import (
	"strconv"
	"strings"
)

// Citus plans an INSERT ... SELECT whose rows come from unnest (no distributed table in its
// SELECT) as "pull to coordinator": the coordinator computes the rows and COPYs them into the
// shard, and that COPY makes Citus commit the whole transaction with two-phase commit (a
// PREPARE on the worker, a pg_dist_transaction row on the coordinator, a COMMIT PREPARED), even
// when every row goes to one shard and nothing else was written on the coordinator. A
// multi-row INSERT ... VALUES naming one home is a router statement instead: Citus sends it,
// as it is, to the home's shard, and a transaction that wrote one worker commits in one phase.
// So on Citus the ledger's inserts are VALUES statements, built per row count and split into
// chunks of citusRowsPerInsert rows (a bounded set of statement texts, each prepared once per
// connection). TestCitus_LedgerWriteCommitsInOnePhase asserts it.

// citusRowsPerInsert bounds the rows of one multi-row insert.
const citusRowsPerInsert = 32

// valuesInsert is a multi-row insert: its head (INSERT INTO ... (columns)), one template per
// column (a "%d" takes the row's next parameter; "$1" is the home every row names) and its tail.
type valuesInsert struct {
	head, tail string
	cols       []string
	texts      []string // texts[n]: the statement for n rows, n = 1..citusRowsPerInsert
}

func newValuesInsert(head, tail string, cols ...string) *valuesInsert {
	v := &valuesInsert{head: head, tail: tail, cols: cols, texts: make([]string, citusRowsPerInsert+1)}
	for n := 1; n <= citusRowsPerInsert; n++ {
		v.texts[n] = v.build(n)
	}
	return v
}

// perRow is how many parameters a row takes.
func (v *valuesInsert) perRow() int {
	k := 0
	for _, c := range v.cols {
		k += strings.Count(c, "%d")
	}
	return k
}

// build writes the statement for n rows: parameter 1 is the home, rows' parameters follow.
func (v *valuesInsert) build(n int) string {
	var b strings.Builder
	b.WriteString(v.head)
	b.WriteString(" VALUES ")
	p := 2
	for r := range n {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for i, c := range v.cols {
			if i > 0 {
				b.WriteString(", ")
			}
			for strings.Contains(c, "%d") {
				c = strings.Replace(c, "%d", strconv.Itoa(p), 1)
				p++
			}
			b.WriteString(c)
		}
		b.WriteByte(')')
	}
	b.WriteString(v.tail)
	return b.String()
}

// exec runs the insert for home's rows (each a row's parameters, in column order), in chunks.
func (v *valuesInsert) exec(home string, rows [][]any, exec func(sql string, args ...any) error) error {
	for len(rows) > 0 {
		chunk := rows[:min(len(rows), citusRowsPerInsert)]
		rows = rows[len(chunk):]
		args := make([]any, 0, 1+len(chunk)*v.perRow())
		args = append(args, home)
		for _, r := range chunk {
			args = append(args, r...)
		}
		if err := exec(v.texts[len(chunk)], args...); err != nil {
			return err
		}
	}
	return nil
}

// citusTransfersInsert inserts one home's transfers of a batch with their sequence values
// already taken; the batch links them itself (chain_linked).
var citusTransfersInsert = newValuesInsert(`
INSERT INTO ledger_transfers (id, environment, reference, type, asset, pending_id, reversed_id, amount,
    expires_at, metadata, created_at, status, canonical, chain_linked, posting_accounts, posting_amounts,
    home_tenant_id, sequence) OVERRIDING SYSTEM VALUE`, "",
	"$%d::text", "$%d::text", "$%d::text", "$%d::text", "$%d::text", "$%d::text", "$%d::text", "$%d::int8",
	"$%d::timestamptz", "$%d::jsonb", "$%d::timestamptz", "$%d::text", "$%d::bytea", "true", "$%d::text[]",
	"$%d::int8[]", "$1::text", "$%d::int8")

// citusPostingsInsert inserts the postings on one home's accounts.
var citusPostingsInsert = newValuesInsert(`
INSERT INTO ledger_postings (transfer_id, account_id, sequence, created_at, amount, posted_delta,
    pending_debits_delta, pending_credits_delta, posted_after, pending_debits_after, pending_credits_after,
    home_tenant_id, transfer_home_tenant_id)`, "",
	"$%d::text", "$%d::text", "$%d::int8", "$%d::timestamptz", "$%d::int8", "$%d::int8", "$%d::int8",
	"$%d::int8", "$%d::int8", "$%d::int8", "$%d::int8", "$1::text", "$%d::text")
