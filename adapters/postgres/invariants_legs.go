package postgres

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// Money between tenants moves as two single-home transfers linked by the recipient leg's
// reference (ledger.MetaCrossTenantLink; docs/ledger.md, "Money between tenants"). The checks
// here hold that split: every transfer touches the rows of one home (a tenant with its shares
// of the platform accounts, or the platform accounts proper), save the sweeps that move shares
// into their platform accounts; every sender leg has its recipient leg of the same amount, or
// a live job that will post it; every recipient leg has its sender leg.

// crossTenantLegsQuery names a problem per row: a sender leg without its recipient leg and
// with no live job to post it, a recipient leg without its sender leg, a pair whose amounts
// differ.
const crossTenantLegsQuery = `WITH legs AS (
		SELECT t.id, t.environment, t.reference, t.metadata->>'crossTenantLeg' AS side,
			t.metadata->>'crossTenantLink' AS link,
			(SELECT sum(p.posted_delta) FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id
				WHERE p.transfer_id = t.id AND p.sequence = t.sequence AND p.created_at = t.created_at
				AND a.kind = 'between_tenants') AS moved
		FROM ledger_transfers t WHERE t.metadata->>'crossTenantLeg' IS NOT NULL),
	senders AS (SELECT * FROM legs WHERE side = 'sender'),
	recipients AS (SELECT * FROM legs WHERE side = 'recipient')
	SELECT 'sender leg ' || s.reference || ' (transfer ' || s.id || ') has no recipient leg ' || s.link || ' and no job left to post it'
	FROM senders s WHERE NOT EXISTS (SELECT 1 FROM recipients r WHERE r.environment = s.environment AND r.link = s.link)
		%s
	UNION ALL
	SELECT 'recipient leg ' || r.reference || ' (transfer ' || r.id || ') has no sender leg'
	FROM recipients r WHERE NOT EXISTS (SELECT 1 FROM senders s WHERE s.environment = r.environment AND s.link = r.link)
	UNION ALL
	SELECT 'legs ' || s.reference || ' and ' || r.reference || ' move ' || s.moved || ' and ' || (-r.moved) || ' between the tenants'
	FROM senders s JOIN recipients r ON r.environment = s.environment AND r.link = s.link WHERE s.moved <> -r.moved`

// liveLegJob is the clause that excuses a sender leg whose recipient leg a live job is still
// to post; a database without River's tables (a ledger-only one) has no such job.
const liveLegJob = `AND NOT EXISTS (SELECT 1 FROM river_job j WHERE j.kind = 'offramp.receive_delivery' AND j.args->>'reference' = s.link
			AND j.state NOT IN ('completed', 'discarded', 'cancelled'))`

// crossTenantPendingQuery counts the sender legs whose recipient leg a live job is still to
// post: money in flight between two tenants, not a problem.
const crossTenantPendingQuery = `SELECT count(*) FROM ledger_transfers s
	WHERE s.metadata->>'crossTenantLeg' = 'sender'
	AND NOT EXISTS (SELECT 1 FROM ledger_transfers r WHERE r.environment = s.environment
		AND r.reference = s.metadata->>'crossTenantLink' AND r.metadata->>'crossTenantLeg' = 'recipient')`

// multiHomeTransfersQuery lists the transfers whose postings touch accounts of more than one
// home, the platform sweeps (a share into its platform account) aside, from the split on
// (ledger_home_split): an upgraded database's older transfers crossed homes by design. The mark
// is read by an uncorrelated subquery, which Citus runs once whatever the ledger's placement.
const multiHomeTransfersQuery = `SELECT 'transfer ' || t.id || ' (' || t.reference || ') touches the rows of ' || count(DISTINCT a.home_tenant_id)
		|| ' homes: ' || string_agg(DISTINCT coalesce(nullif(a.home_tenant_id, ''), '(platform)'), ', ')
	FROM ledger_transfers t CROSS JOIN LATERAL unnest(t.posting_accounts) AS l (account_id)
	JOIN ledger_accounts a ON a.id = l.account_id
	WHERE coalesce(t.metadata->>'source', '') <> 'platform_share_sweep'
		AND t.created_at >= coalesce((SELECT split_at FROM ledger_home_split), '-infinity')
	GROUP BY t.id, t.reference HAVING count(DISTINCT a.home_tenant_id) > 1`

// checkCrossTenantLegs is `corridor check`'s cross-tenant-legs line: the legs pair up, with
// the legs in flight (a live job to post the recipient's) counted in its note.
func checkCrossTenantLegs(ctx context.Context, db *bun.DB) (InvariantCheck, error) {
	var river bool
	if err := db.QueryRowContext(ctx, `SELECT to_regclass('river_job') IS NOT NULL`).Scan(&river); err != nil {
		return InvariantCheck{Name: "cross-tenant-legs"}, err
	}
	jobs := ""
	if river {
		jobs = liveLegJob
	}
	c, err := runInvariantQuery(ctx, db, invariantQuery{name: "cross-tenant-legs", query: fmt.Sprintf(crossTenantLegsQuery, jobs)})
	if err != nil || !c.OK() {
		return c, err
	}
	var pending int
	if err := db.QueryRowContext(ctx, onCoordinator(isCitus(ctx, db.DB), crossTenantPendingQuery)).Scan(&pending); err != nil {
		return c, err
	}
	if pending > 0 {
		c.Note = fmt.Sprintf("%d in flight: their recipient legs are queued", pending)
	}
	return c, nil
}

// MultiHomeTransfers lists the transfers that touch more than one home (single-home-transfers),
// at most maxProblemsPerCheck of them: the tests run it after their flows to find money that
// still crosses tenants in one transfer.
func MultiHomeTransfers(ctx context.Context, db *bun.DB) ([]string, error) {
	c, err := runInvariantQuery(ctx, db, invariantQuery{name: "single-home-transfers", query: multiHomeTransfersQuery})
	return c.Problems, err
}
