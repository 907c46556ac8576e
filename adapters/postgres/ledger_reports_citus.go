package postgres

// The tenant's trial balance on Citus. The ledger's tables are distributed by home, and a
// tenant's transfers may hold legs in other homes (the platform accounts proper, '', through
// the sweeps; another tenant, in a transfer from before money between tenants was split). The
// PostgreSQL statement (trialBalanceSQL) joins a posting to its transfer and each leg to its
// account across homes in one plan, which Citus refuses. Here each step is a materialized
// result: the tenant's own rows in one statement on its shard, the transfers its postings
// name (read where their homes say), their other legs' homes from the coordinator's lookup
// rows, and those legs' postings and accounts in their homes; the results are then joined on
// the coordinator. It is still one statement, so it reads the tenant's shard in one snapshot.

// trialBalanceCitusSteps is every step but the tenant's own rows, for both variants: $3, when
// asOf, bounds the postings read.
func trialBalanceCitusSteps(asOf bool) string {
	bound, opened := "", ""
	if asOf {
		bound, opened = " AND p.created_at <= $3", " AND a.created_at <= $3"
	}
	return `
WITH own AS MATERIALIZED (
    SELECT a.id FROM ledger_accounts a WHERE a.tenant_id = $1 AND a.home_tenant_id = $1 AND a.environment = $2` + opened + `
), tt AS MATERIALIZED (
    SELECT DISTINCT p.transfer_id, p.transfer_home_tenant_id FROM ledger_postings p
    WHERE p.account_id IN (SELECT id FROM own) AND p.home_tenant_id = $1` + bound + `
), tl AS MATERIALIZED (
    SELECT l.account_id, t.created_at, t.sequence
    FROM ledger_transfers t JOIN tt ON t.id = tt.transfer_id AND t.home_tenant_id = tt.transfer_home_tenant_id
    CROSS JOIN LATERAL unnest(t.posting_accounts) AS l (account_id)
), legs AS MATERIALIZED (
    SELECT tl.account_id, h.home_tenant_id AS home, tl.created_at, tl.sequence
    FROM tl JOIN ledger_account_homes h ON h.account_id = tl.account_id
    WHERE tl.account_id NOT IN (SELECT id FROM own)
), lp AS MATERIALIZED (
    SELECT p.account_id, p.home_tenant_id AS home, sum(p.posted_delta)::int8 AS pd,
        sum(p.pending_debits_delta)::int8 AS pdd, sum(p.pending_credits_delta)::int8 AS pcd
    FROM ledger_postings p JOIN legs l ON p.account_id = l.account_id AND p.created_at = l.created_at
        AND p.sequence = l.sequence AND p.home_tenant_id = l.home
    GROUP BY p.account_id, p.home_tenant_id
), other AS MATERIALIZED (
    SELECT ` + accountColumns + `, false AS own, lp.pd, lp.pdd, lp.pcd
    FROM ledger_accounts a JOIN lp ON a.id = lp.account_id AND a.home_tenant_id = lp.home
)`
}

// trialBalanceCitusSQL is trialBalanceSQL's result on Citus.
var trialBalanceCitusSQL = trialBalanceCitusSteps(false) + `, mine AS MATERIALIZED (
    SELECT ` + accountColumns + `, true AS own, b.posted, b.pending_debits, b.pending_credits
    FROM ledger_accounts a JOIN ledger_balances b ON b.account_id = a.id AND b.home_tenant_id = a.home_tenant_id
    WHERE a.id IN (SELECT id FROM own) AND a.home_tenant_id = $1 AND b.home_tenant_id = $1
)
SELECT * FROM (SELECT * FROM mine UNION ALL SELECT * FROM other) r ORDER BY 3, 9 DESC, 1`

// trialBalanceAsOfCitusSQL is trialBalanceAsOfSQL's result on Citus.
var trialBalanceAsOfCitusSQL = trialBalanceCitusSteps(true) + `, mine AS MATERIALIZED (
    SELECT ` + accountColumns + `, true AS own, coalesce(h.posted_after, 0)::int8, coalesce(h.pending_debits_after, 0)::int8,
        coalesce(h.pending_credits_after, 0)::int8
    FROM ledger_accounts a
    LEFT JOIN LATERAL (
        SELECT posted_after, pending_debits_after, pending_credits_after FROM ledger_postings
        WHERE account_id = a.id AND home_tenant_id = a.home_tenant_id AND home_tenant_id = $1 AND created_at <= $3
        ORDER BY created_at DESC, sequence DESC LIMIT 1
    ) h ON true
    WHERE a.id IN (SELECT id FROM own) AND a.home_tenant_id = $1
)
SELECT * FROM (SELECT * FROM mine UNION ALL SELECT * FROM other) r ORDER BY 3, 9 DESC, 1`

// statementLinesCitusSQL is statementLinesSQL on Citus: the page of the account's history is
// read first on its home's shard, then its transfers where each posting says they are (a
// platform account's postings belong to transfers of many homes: its sweeps).
const statementLinesCitusSQL = `
WITH p AS MATERIALIZED (
    SELECT * FROM ledger_postings p
    WHERE p.account_id = $1 AND p.home_tenant_id = $6 AND p.created_at >= $2 AND ($3::timestamptz IS NULL OR p.created_at < $3)
    ORDER BY p.created_at, p.sequence LIMIT $4 OFFSET $5
)
SELECT ` + transferColumns + `, p.amount, p.posted_delta, p.pending_debits_delta, p.pending_credits_delta,
    p.posted_after, p.pending_debits_after, p.pending_credits_after
FROM p JOIN ledger_transfers t ON t.id = p.transfer_id AND t.home_tenant_id = p.transfer_home_tenant_id
ORDER BY p.created_at, p.sequence`
