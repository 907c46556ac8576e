package postgres

import (
	"context"
	"database/sql"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// The batch's claim. A deposit's unit sends one statement of its own, the claim that locks
// (claim_lock.go), and a lane runs its units one after the other: a batch of N such units cost
// N exchanges in the lane plus its COMMIT's, each exchange waiting for a core on each side. So
// the units admitted to a batch whose requests named their key's ledger rows (ports.LedgerIntent)
// do not claim one by one: each parks at its claim, and once the batch stops admitting, the lane
// claims every parked unit's key in one statement (batchClaimSQL), locks the balance rows of the
// units whose claim went (in account-id order) and looks their references up. Each unit then finds
// its claim's outcome and its rows known, and runs without a statement of its own: a batch of N
// deposits costs two exchanges, the claim (with BEGIN) and the write (with COMMIT).
//
// What keeps it right:
//   - The outcome a unit finds is its own key's: claimed (the key is the batch's), stored (the
//     record to replay) or neither (another request holds the key).
//   - A twin in the batch (two units, one key) is served as before: both claims succeed (the key's
//     advisory lock is the batch's session's), and in its turn the later unit looks for the record an
//     earlier one held for the batch's write (batch_records.go) before it uses its claim, so it
//     replays the earlier unit's answer, or applies when that unit failed.
//   - A unit that fails (an error, a panic) gives back what its claim took, in effect: its record is
//     never held, so its key is never stored; the key's advisory lock and the rows stay with the
//     batch until its COMMIT or ROLLBACK, which is also when the failed unit is answered, so a
//     concurrent request with the key meets the key in progress exactly as long as the failed
//     request is (a unit's savepoint cannot enclose a share of one statement: the claim is the
//     batch's, outside every unit's savepoint). The balance rows it read are the batch's, as the
//     database holds them: the failed unit changed none of them.
//   - Locks: the rows of the first unit whose rows are asked for are waited for while the batch holds
//     no lock yet; the others are skipped when another transaction holds them, and the unit that
//     needs them parks for them and runs again in the next batch, as with its own locking read.
//   - A unit that reaches its claim after the batch's claim ran (it ran statements first, or the
//     batch stopped admitting and claimed already) claims alone, as before (claim_lock.go).
//   - Once the batch's claim locked rows, every unit's own statements run under lock_timeout (the
//     batch holds locks), so a unit whose statement meets a held lock (a card's row another
//     transaction holds) is carried to the next batch. There it claims alone, first, before any
//     batch claim, so its statements may wait as a batch's first unit's always could: a carried
//     unit cannot be carried for ever.
//
// On Citus the claim runs alone (claimLocking): a Citus batch holds one tenant's units, and the
// coordinator's FOR UPDATE over a function's result is refused there.

// batchClaimSQL claims keys ($1-$5, one per unit, by ordinal), locks the balance rows of the
// units whose claim went ($6 ids and $7 their units' ordinals, waited for; $8 and $9 skipped when
// held) and looks up their references ($10 environments, $11 references, $13 ordinals) in the
// homes $12, and last locks the cards ($14-$19, $20 their units' ordinals) of the units whose
// claim went and whose balance rows it all locked, skipping a card another transaction holds
// (batch_claim_cards.go). The references are looked up one by one (LATERAL, kept from being
// flattened into a join by OFFSET 0), so the generic plan looks each up by its index however
// small the tables were when the plan was made (refLookupSQL says why). The card rows come last
// (the final UNION ALL runs its branches in order, and cq reads w and s): the card paths lock
// the balance rows first (docs/ledger.md, "Lock order of the card paths").
var batchClaimSQL = `
WITH k AS MATERIALIZED (
    SELECT q.i, c.* FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])
        WITH ORDINALITY AS q (tenant, scope, environment, key, at, i)
    CROSS JOIN LATERAL idempotency_claim(q.tenant, q.scope, q.environment, q.key, q.at) c
), ok AS MATERIALIZED (
    SELECT k.i FROM k WHERE k.claimed AND NOT k.stored
), w AS MATERIALIZED (
    SELECT b.account_id, b.posted, b.pending_debits, b.pending_credits, b.last_transfer_at
    FROM ledger_balances b
    WHERE b.account_id = ANY(ARRAY(SELECT r.id FROM unnest($6::text[], $7::int8[]) AS r (id, i) WHERE r.i IN (SELECT i FROM ok)))
        AND b.home_tenant_id = ANY($12::text[])
    ORDER BY b.account_id FOR UPDATE
), s AS MATERIALIZED (
    SELECT b.account_id, b.posted, b.pending_debits, b.pending_credits, b.last_transfer_at
    FROM ledger_balances b
    WHERE b.account_id = ANY(ARRAY(SELECT r.id FROM unnest($8::text[], $9::int8[]) AS r (id, i) WHERE r.i IN (SELECT i FROM ok)))
        AND b.home_tenant_id = ANY($12::text[])
    ORDER BY b.account_id FOR UPDATE SKIP LOCKED
), cq AS MATERIALIZED (
    SELECT q.* FROM unnest($14::text[], $15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::int8[])
        AS q (tenant, environment, id, day, week, month, i)
    WHERE q.i IN (SELECT i FROM ok)
        AND NOT EXISTS (SELECT 1 FROM unnest($6::text[], $7::int8[]) AS r (id, i)
            WHERE r.i = q.i AND r.id NOT IN (SELECT account_id FROM w))
        AND NOT EXISTS (SELECT 1 FROM unnest($8::text[], $9::int8[]) AS r (id, i)
            WHERE r.i = q.i AND r.id NOT IN (SELECT account_id FROM s))
)
SELECT 0 AS kind, k.i, k.claimed, k.stored, k.rec_fingerprint, k.rec_status_code, k.rec_body, k.rec_content_type,
    k.rec_created_at, k.rec_expires_at, NULL::text AS account_id, 0::int8 AS posted, 0::int8 AS pending_debits,
    0::int8 AS pending_credits, NULL::timestamptz AS last_transfer_at, ''::text AS environment, ''::text AS reference,
    ` + noCardColumns + `
FROM k
UNION ALL
SELECT 1, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, account_id, posted, pending_debits, pending_credits,
    last_transfer_at, '', '', ` + noCardColumns + ` FROM w
UNION ALL
SELECT 1, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, account_id, posted, pending_debits, pending_credits,
    last_transfer_at, '', '', ` + noCardColumns + ` FROM s
UNION ALL
SELECT 2, q.i, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, x.id, 0, 0, 0, NULL, x.environment, x.reference,
    ` + noCardColumns + `
FROM unnest($10::text[], $11::text[], $13::int8[]) AS q (environment, reference, i)
CROSS JOIN LATERAL (
    SELECT t.id, t.environment, t.reference FROM ledger_transfers t
    WHERE t.environment = q.environment AND t.reference = q.reference AND t.home_tenant_id = ANY($12::text[])
    OFFSET 0
) x
WHERE q.i IN (SELECT i FROM ok)
UNION ALL
SELECT 3, cq.i, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, NULL, '', '', ` + cardDecisionColumns + `
FROM cq CROSS JOIN LATERAL card_lock_for_decision(cq.tenant, cq.environment, cq.id, cq.day, cq.week, cq.month, true) AS r`

// claimNeed is a unit parked for its batch's claim: its key and intent, then its outcome.
type claimNeed struct {
	scope, env, key string
	now             time.Time
	intent          ports.LedgerIntent
	finds           *accountFinds
	rec             ports.IdempotencyRecord
	claimed, stored bool
	done            bool      // the batch's claim answered it
	card            *cardRead // the card the batch's claim read for its decision (batch_claim_cards.go)
}

// batchClaim parks m for its batch's claim and returns the claim's outcome for its key. It is
// false when the batch claimed already, m ran statements first or m was carried: m then claims
// alone.
func (m *member) batchClaim(ctx context.Context, in ports.LedgerIntent, scope string, env core.Environment, key string, now time.Time) (*claimNeed, bool) {
	b := m.b
	if b.claimRan || m.sql || m.u.carried {
		return nil, false
	}
	if b.poisoned != nil || m.abort {
		panic(errGaveUp)
	}
	m.claim = &claimNeed{scope: scope, env: string(env), key: key, now: now, intent: in, finds: findsOf(ctx)}
	if m.park(memberParkedClaim, loadNeed{}) || !m.claim.done {
		panic(errGaveUp) // nothing of the unit ran: it runs again (a failed batch runs it alone)
	}
	// Its turn: every unit before it has ended and handed the batch its records.
	if !m.awaitTurn() {
		panic(errGaveUp)
	}
	return m.claim, true
}

// claimsParked counts the units waiting for the batch's claim. Each may open a savepoint once it
// runs (a statement of its own after the claim, as a card's), so they count against the batch's
// savepoints while it admits.
func (b *batch) claimsParked() int {
	n := 0
	for _, m := range b.members[b.head:] {
		if m.state == memberParkedClaim && !m.abort {
			n++
		}
	}
	return n
}

// claimArgs are batchClaimSQL's arrays.
type claimArgs struct {
	tenants, scopes, envs, keys []string
	nows                        []time.Time
	wait, skip                  []string
	waitOf, skipOf              []int64
	refEnvs, refs               []string
	refOf                       []int64
	cardTenants, cardEnvs       []string
	cardIDs, days, weeks        []string
	months                      []string
	cardOf                      []int64
}

// claimArgs gathers the parked units' keys, the balance rows they name that the batch does not
// know, and their references nobody looked up, of the units whose accounts the store knows to be
// committed (the others' are left to their transfers' own locking reads). The first unit with rows waits for them
// when the batch holds no lock; every later unit's rows are skipped when held.
func (b *batch) claimArgs(parked []*member) claimArgs {
	var a claimArgs
	placed := map[string]bool{} // true: in wait
	seenRef, seenCard := map[refKey]bool{}, map[string]bool{}
	for i, m := range parked {
		c, ord := m.claim, int64(i+1)
		a.tenants, a.scopes, a.envs = append(a.tenants, scopeTenant(c.scope)), append(a.scopes, c.scope), append(a.envs, c.env)
		a.keys, a.nows = append(a.keys, c.key), append(a.nows, c.now)
		found, ok := c.finds.cached(c.intent.Accounts)
		if !ok {
			// Accounts the store does not know yet: the transfer's own locking read finds them
			// and its references in their homes (a lookup here, in other units' homes, could
			// miss a reference and take it for unrecorded).
			continue
		}
		b.claimRows(&a, c.intent.Accounts, found, ord, placed)
		claimCard(&a, c, ord, seenCard)
		for _, ref := range c.intent.References {
			k := refKey{string(c.intent.Environment), ref}
			_, inBatch := b.ledger.refs[k]
			_, looked := b.ledger.dbRefs[k]
			if !inBatch && !looked && !seenRef[k] {
				seenRef[k] = true
				a.refEnvs, a.refs, a.refOf = append(a.refEnvs, k.environment), append(a.refs, k.reference), append(a.refOf, ord)
			}
		}
	}
	return a
}

// claimRows adds the balance rows of one unit's accounts the batch does not know: waited for
// when it is the first unit with rows and the batch holds no lock, else skipped when held. A row
// two units share is asked for once per unit, in the list of its first asker.
func (b *batch) claimRows(a *claimArgs, specs []ledger.AccountSpec, found map[accountKey]ledger.Account, ord int64, placed map[string]bool) {
	waits := !b.holdsLocks && len(a.wait) == 0 && len(a.skip) == 0
	for _, spec := range specs {
		acct := found[accountKeyOf(spec)]
		if acct.Spec() != spec {
			continue // a conflicting spec: OpenAccounts answers it
		}
		b.ledger.accounts[acct.ID] = acct
		if _, known := b.ledger.known[acct.ID]; known {
			continue
		}
		inWait, seen := placed[acct.ID]
		if !seen {
			inWait = waits
			placed[acct.ID] = waits
		}
		if inWait {
			a.wait, a.waitOf = append(a.wait, acct.ID), append(a.waitOf, ord)
		} else {
			a.skip, a.skipOf = append(a.skip, acct.ID), append(a.skipOf, ord)
		}
	}
}

// claimAll runs the batch's claim for every unit parked on it and hands each its outcome. A
// failure poisons the batch: every unit runs again alone.
func (b *batch) claimAll(ctx context.Context) {
	b.claimRan = true
	var parked []*member
	for _, m := range b.members[b.head:] {
		if m.state == memberParkedClaim && !m.abort {
			parked = append(parked, m)
		}
	}
	a := b.claimArgs(parked)
	b.p.stats.claims.Add(1)
	// Approvals of units that ended before the claim are written first: it reads cards.
	if err := writeApprovals(ctx, b.tx.Tx, b.ledger.approvals, &b.p.stats.approvalWrites); err != nil {
		b.poison(err)
		return
	}
	b.ledger.approvals = nil
	// Its generic plan (claim_lock.go says why), set for it alone; both settings wait on the
	// connection and travel with it and with the next exchange.
	if _, err := b.q.ExecContext(ctx, "SET LOCAL plan_cache_mode = force_generic_plan", deferExec{}); err != nil {
		b.poison(err)
		return
	}
	homes := homesOf(b.ledger.accounts)
	rows, err := b.q.QueryContext(ctx, batchClaimSQL, withPending{}, a.tenants, a.scopes, a.envs, a.keys, a.nows,
		nonNil(a.wait), nonNil64(a.waitOf), nonNil(a.skip), nonNil64(a.skipOf), nonNil(a.refEnvs), nonNil(a.refs),
		homes, nonNil64(a.refOf), nonNil(a.cardTenants), nonNil(a.cardEnvs), nonNil(a.cardIDs), nonNil(a.days),
		nonNil(a.weeks), nonNil(a.months), nonNil64(a.cardOf))
	if err != nil {
		b.poison(ledgerError("claim the batch's keys", err))
		return
	}
	found, err := b.scanClaims(rows, parked)
	if err == nil {
		_, err = b.q.ExecContext(ctx, "SET LOCAL plan_cache_mode = DEFAULT", deferExec{})
	}
	if err != nil {
		b.poison(err)
		return
	}
	for i := range a.refs {
		if c := parked[a.refOf[i]-1].claim; c.claimed && !c.stored {
			k := refKey{a.refEnvs[i], a.refs[i]}
			b.ledger.dbRefs[k] = found[k] // looked up: not found means not recorded
		}
	}
	for _, m := range parked {
		m.claim.done = true
		if m.claim.claimed && !m.claim.stored && len(a.wait)+len(a.skip) > 0 || m.claim.card != nil {
			b.holdsLocks = true
		}
	}
}

// scanClaims reads batchClaimSQL's rows: each unit's outcome into its claimNeed, balance rows
// into the batch's known balances (nothing of the batch changed them yet where it did not know
// them), references found into the map returned.
func (b *batch) scanClaims(rows *sql.Rows, parked []*member) (map[refKey]string, error) {
	defer rows.Close()
	found := map[refKey]string{}
	// One set of targets for every row (each Scan sets all of them; what a row hands on is
	// copied or newly allocated by the scan), so a row costs no allocation of its own.
	var (
		kind                       int
		ord                        int64
		claimed, stored            sql.NullBool
		fingerprint, ctype, id     sql.NullString
		status                     sql.NullInt64
		body                       []byte
		createdAt, expiresAt, last sql.NullTime
		bal                        ledger.Balance
		refEnv, ref                string
		cs                         cardScan
	)
	dest := append([]any{&kind, &ord, &claimed, &stored, &fingerprint, &status, &body, &ctype, &createdAt,
		&expiresAt, &id, &bal.Posted, &bal.PendingDebits, &bal.PendingCredits, &last, &refEnv, &ref}, cs.targets()...)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, ledgerError("claim the batch's keys", err)
		}
		switch kind {
		case 0:
			n := parked[ord-1].claim
			n.claimed, n.stored = claimed.Bool, stored.Bool
			if n.stored {
				n.rec = ports.IdempotencyRecord{Scope: n.scope, Environment: core.Environment(n.env), Key: n.key,
					Fingerprint: fingerprint.String, StatusCode: int(status.Int64), Body: body, ContentType: ctype.String,
					CreatedAt: createdAt.Time.UTC(), ExpiresAt: expiresAt.Time.UTC()}
			}
		case 1:
			if _, known := b.ledger.known[id.String]; !known {
				k := knownBalance{balance: bal}
				if last.Valid {
					k.at = last.Time.UTC()
				}
				b.ledger.known[id.String] = k
			}
		case 2:
			found[refKey{refEnv, ref}] = id.String
		case 3:
			n := parked[ord-1].claim
			d, err := cs.rows()
			if err != nil {
				return nil, ledgerError("claim the batch's keys", err)
			}
			n.card = &cardRead{env: core.Environment(n.env), want: n.intent.Card, rows: d}
		}
	}
	return found, ledgerError("claim the batch's keys", rows.Err())
}

func nonNil64(v []int64) []int64 {
	if v == nil {
		return []int64{}
	}
	return v
}
