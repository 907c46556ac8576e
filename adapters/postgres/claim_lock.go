package postgres

import (
	"context"
	"database/sql"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// The claim that locks. Inside a pipeline batch, a request's unit sends the claim of its
// Idempotency-Key first and, once its use case posts, the batch's locking read of the balance
// rows and references the transfer needs (ledger_batch.go): two statements, two round trips in
// the lane. When the request named those rows before it ran (ports.LedgerIntent), the claim
// locks and reads them in its own statement, and the transfer finds them known.
//
// The rows are locked only when the claim took the key and found no stored outcome: a replay
// or a key held by another request locks nothing. They are locked as the unit's own locking
// read would lock them (waiting when the batch held no lock when the unit began its statements,
// skipping rows another transaction holds otherwise), by the unit's savepoint, so a unit that
// fails gives them back with everything else it did.

// The statement runs on its generic plan (plan_cache_mode, set for it alone and reset after it,
// both waiting on the connection and sent with it and with the next exchange: no round trip).
// With its array parameters PostgreSQL would otherwise plan it again on every call, and planning
// was more than half its cost (docs/performance.md). On Citus the coordinator plans distributed
// statements itself, and the setting is left alone.

// claimLockSQL is idempotency_claim ($1-$5) and the batch's locking read in one statement:
// $6 the rows it waits for, in account-id order; $7 the rows it takes unless another
// transaction holds them; $8 and $9 the references (environment, reference); $10 the homes
// (lockSQL's $5). kind tells the rows apart: 0 the claim, 1 a balance row, 2 a reference.
const claimLockSQL = `
WITH c AS MATERIALIZED (
    SELECT * FROM idempotency_claim($1, $2, $3, $4, $5)
), ok AS MATERIALIZED (
    SELECT coalesce(bool_and(c.claimed AND NOT c.stored), false) AS go FROM c
), w AS MATERIALIZED (
    SELECT b.account_id, b.posted, b.pending_debits, b.pending_credits, b.last_transfer_at
    FROM ledger_balances b WHERE b.account_id = ANY($6::text[]) AND b.home_tenant_id = ANY($10::text[])
        AND (SELECT go FROM ok)
    ORDER BY b.account_id FOR UPDATE
), s AS MATERIALIZED (
    SELECT b.account_id, b.posted, b.pending_debits, b.pending_credits, b.last_transfer_at
    FROM ledger_balances b WHERE b.account_id = ANY($7::text[]) AND b.home_tenant_id = ANY($10::text[])
        AND (SELECT go FROM ok)
    ORDER BY b.account_id FOR UPDATE SKIP LOCKED
)
SELECT 0 AS kind, c.claimed, c.stored, c.rec_fingerprint, c.rec_status_code, c.rec_body, c.rec_content_type,
    c.rec_created_at, c.rec_expires_at, NULL::text AS account_id, 0::int8 AS posted, 0::int8 AS pending_debits,
    0::int8 AS pending_credits, NULL::timestamptz AS last_transfer_at, ''::text AS environment, ''::text AS reference
FROM c
UNION ALL
SELECT 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, account_id, posted, pending_debits, pending_credits,
    last_transfer_at, '', '' FROM w
UNION ALL
SELECT 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, account_id, posted, pending_debits, pending_credits,
    last_transfer_at, '', '' FROM s
UNION ALL
SELECT 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, x.id, 0, 0, 0, NULL, x.environment, x.reference
FROM unnest($8::text[], $9::text[]) AS q (environment, reference)
CROSS JOIN LATERAL (` + refLookupSQL + `) x
WHERE (SELECT go FROM ok)`

// refLookupSQL looks up one reference q.environment, q.reference among the transfers of the
// homes $10. The statements that use it run on generic plans, made once per connection; on a new
// database that is while ledger_transfers is empty and never analyzed, and a join of the
// references to the table was then planned as a hash join over a sequential scan of it, kept for
// the connection's life while the table grew with every transfer (a claim that cost 0.9 ms on a
// fresh database against 0.16 later, docs/performance.md). One lookup per reference, OFFSET 0
// keeping the planner from flattening it into a join, is an index lookup whatever the
// statistics say (TestClaimPlans_GenericOnAFreshDatabase).
const refLookupSQL = `SELECT t.id, t.environment, t.reference FROM ledger_transfers t
    WHERE t.environment = q.environment AND t.reference = q.reference AND t.home_tenant_id = ANY($10::text[])
    OFFSET 0`

// claimLocking reports whether Claim can lock the intent's rows with the claim: the unit is a
// pipeline batch's, the claim is its own (not a nested unit's), and the request named rows.
func claimLocking(ctx context.Context, u *unitLedger) (ports.LedgerIntent, bool) {
	// On Citus the claim runs alone: Citus refuses a FOR UPDATE over the result of a function
	// call (the claim), and the batch's own locking read, routed to the home's shard, locks instead.
	if u == nil || u.m.b.p.citus {
		return ports.LedgerIntent{}, false
	}
	if depth, _ := ctx.Value(depthKey{}).(int); depth != 0 {
		return ports.LedgerIntent{}, false
	}
	in, ok := ports.LedgerIntentOf(ctx)
	return in, ok && (len(in.Accounts) > 0 || len(in.References) > 0)
}

// intentLocks is what the claim's statement asks for: the rows the unit does not know yet, of
// accounts the store knows to be committed (an account it does not know is left to the
// transfer's own locking read, which also finds or notes it), and the references nobody looked
// up yet.
func (u *unitLedger) intentLocks(ctx context.Context, in ports.LedgerIntent) lockSet {
	var set lockSet
	if found, ok := findsOf(ctx).cached(in.Accounts); ok {
		var ids []string
		for _, spec := range in.Accounts {
			a := found[accountKeyOf(spec)]
			if a.Spec() != spec {
				continue // a conflicting spec: OpenAccounts answers it
			}
			u.batch.accounts[a.ID] = a
			if _, known := u.get(a.ID); !known {
				ids = append(ids, a.ID)
			}
		}
		if u.m.mayWait {
			set.wait = ids
		} else {
			set.skip = ids
		}
	}
	for _, ref := range in.References {
		k := refKey{string(in.Environment), ref}
		if _, refUnknown := u.missing(nil, k); refUnknown {
			set.refs = append(set.refs, k)
		}
	}
	return set
}

// claimLocked runs the claim with the intent's locking read (claimLockSQL) in the unit's first
// exchange. The unit's turn and savepoint come first (enterSQL), as for any of its statements.
func (r idempotencyRepo) claimLocked(ctx context.Context, u *unitLedger, in ports.LedgerIntent, scope string, env core.Environment, key string, now time.Time) (ports.IdempotencyRecord, bool, bool, error) {
	u.m.enterSQL()
	set := u.intentLocks(ctx, in)
	envs, refs := make([]string, len(set.refs)), make([]string, len(set.refs))
	for i, k := range set.refs {
		envs[i], refs[i] = k.environment, k.reference
	}
	generic := !u.m.b.p.citus
	if generic {
		if _, err := u.q.ExecContext(ctx, "SET LOCAL plan_cache_mode = force_generic_plan", deferExec{}); err != nil {
			return ports.IdempotencyRecord{}, false, false, err
		}
	}
	rows, err := u.q.QueryContext(ctx, claimLockSQL, withPending{}, scopeTenant(scope), scope, string(env), key, now,
		nonNil(set.wait), nonNil(set.skip), envs, refs, homesOf(u.batch.accounts))
	if err == nil && generic {
		defer func() { _, _ = u.q.ExecContext(ctx, "SET LOCAL plan_cache_mode = DEFAULT", deferExec{}) }()
	}
	if err != nil {
		u.noteLock(err)
		return ports.IdempotencyRecord{}, false, false, err
	}
	defer rows.Close()
	c := claimRow{rec: ports.IdempotencyRecord{Scope: scope, Environment: env, Key: key}}
	var found map[refKey]string
	for rows.Next() {
		if found, err = c.scan(rows, u, found); err != nil {
			return ports.IdempotencyRecord{}, false, false, err
		}
	}
	if err := rows.Err(); err != nil {
		u.noteLock(err)
		return ports.IdempotencyRecord{}, false, false, err
	}
	if c.claimed && !c.stored {
		// The references were looked up: those not found are not recorded.
		for _, k := range set.refs {
			u.batch.dbRefs[k] = found[k]
		}
	}
	if !c.stored {
		return ports.IdempotencyRecord{}, false, c.claimed, nil
	}
	return c.rec, true, c.claimed, nil
}

// claimRow gathers claimLockSQL's rows: the claim's into rec, balance rows into the unit's
// known balances, references found into found.
type claimRow struct {
	rec             ports.IdempotencyRecord
	claimed, stored bool
}

func (c *claimRow) scan(rows *sql.Rows, u *unitLedger, found map[refKey]string) (map[refKey]string, error) {
	var (
		kind                       int
		claimed, stored            sql.NullBool
		fingerprint, ctype, id     sql.NullString
		status                     sql.NullInt64
		body                       []byte
		createdAt, expiresAt, last sql.NullTime
		bal                        ledger.Balance
		refEnv, ref                string
	)
	if err := rows.Scan(&kind, &claimed, &stored, &fingerprint, &status, &body, &ctype, &createdAt, &expiresAt,
		&id, &bal.Posted, &bal.PendingDebits, &bal.PendingCredits, &last, &refEnv, &ref); err != nil {
		return found, ledgerError("claim and lock", err)
	}
	switch kind {
	case 0:
		c.claimed, c.stored = claimed.Bool, stored.Bool
		c.rec.Fingerprint, c.rec.StatusCode, c.rec.Body, c.rec.ContentType = fingerprint.String, int(status.Int64), body, ctype.String
		c.rec.CreatedAt, c.rec.ExpiresAt = createdAt.Time.UTC(), expiresAt.Time.UTC()
	case 1:
		k := knownBalance{balance: bal}
		if last.Valid {
			k.at = last.Time.UTC()
		}
		u.known[id.String] = k
	case 2:
		if found == nil {
			found = map[refKey]string{}
		}
		found[refKey{refEnv, ref}] = id.String
	}
	return found, nil
}
