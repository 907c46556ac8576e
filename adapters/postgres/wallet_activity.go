package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// walletActivityRepo reads the secondary transaction lists in SQL: Safe payments and the
// ledger mirror's lines, merged, filtered, ordered and paged by the database.
type walletActivityRepo struct {
	db    bun.IDB
	citus bool // the mirror's lines read only the transfers homed at the tenant (activityMirrorCitusSQL)
}

var _ ports.WalletActivityRepo = walletActivityRepo{}

type walletActivityRow struct {
	ID           string    `bun:"id"`
	WalletID     string    `bun:"wallet_id"`
	Type         string    `bun:"type"`
	Amount       int64     `bun:"amount"`
	Status       string    `bun:"status"`
	TxHash       string    `bun:"tx_hash"`
	Counterparty string    `bun:"counterparty"`
	Note         string    `bun:"note"`
	CreatedAt    time.Time `bun:"created_at"`
}

// The mirror account's reference is "wallet:<id>:onchain" (ledger.WalletOnchainRef).
const (
	activityWalletOfReference = "substr(a.reference, 8, length(a.reference) - 15)"

	activityPaymentsSQL = `SELECT sp.id, sp.source_wallet_id AS wallet_id, 'withdrawal' AS type, sp.amount_base_units AS amount,
    CASE WHEN sp.status = 'CREATED' THEN 'AWAITING_SIGNATURE' ELSE sp.status END AS status,
    coalesce(sp.executed_tx_hash, '') AS tx_hash, sp.destination_address AS counterparty, coalesce(sp.memo, '') AS note, sp.created_at
  FROM safe_payments sp
  WHERE sp.tenant_id = ?tenant AND sp.environment = ?env AND sp.kind = 'transfer' AND (?wallet = '' OR sp.source_wallet_id = ?wallet)`

	// activityMirrorSQL: the mirror's lines. A line is a posting that moved the mirror's posted balance (the finance report's rule), or
	// an open hold on it (a card authorization not yet captured or released, status PENDING). A
	// Safe payment's own hold is not a line: the payment's row is.
	// A hold's resolution moves the balance by what was captured, so a resolved hold and the
	// release of a void show nothing: a card spend is one line, its hold while open, then its
	// capture (docs/api.md, "Secondary surface").
	activityMirrorSQL = `SELECT t.id, ` + activityWalletOfReference + ` AS wallet_id,
    CASE WHEN p.posted_delta > 0 OR (p.posted_delta = 0 AND p.amount > 0) THEN 'payment' ELSE 'withdrawal' END AS type,
    CASE WHEN p.posted_delta <> 0 THEN abs(p.posted_delta) ELSE abs(p.amount) END AS amount,
    CASE WHEN p.posted_delta <> 0 THEN 'COMPLETED' ELSE 'PENDING' END AS status,
    coalesce(t.metadata->>'txHash', '') AS tx_hash,
    coalesce(CASE WHEN p.amount >= 0 THEN t.metadata->>'from' ELSE t.metadata->>'to' END, '') AS counterparty,
    coalesce('card authorization ' || (t.metadata->>'cardAuthorizationId'), '') AS note, t.created_at
  FROM ledger_accounts a
  JOIN ledger_postings p ON p.account_id = a.id AND p.home_tenant_id = a.home_tenant_id
  JOIN ledger_transfers t ON t.id = p.transfer_id AND t.home_tenant_id = p.transfer_home_tenant_id
  WHERE a.tenant_id = ?tenant AND a.home_tenant_id = ?tenant AND p.home_tenant_id = ?tenant AND a.environment = ?env AND a.kind = ?kind
    AND (?wallet = '' OR a.reference = 'wallet:' || ?wallet || ':onchain')
    AND (p.posted_delta <> 0 OR (t.type = 'PENDING' AND t.status = 'PENDING' AND t.reference NOT LIKE 'safe-payment:%:hold'))
    AND NOT (p.amount < 0 AND EXISTS (SELECT 1 FROM executed e
      WHERE e.wallet_id = ` + activityWalletOfReference + ` AND e.tx_hash = lower(t.metadata->>'txHash')))`

	// activityExecutedSQL names the tenant's executed Safe transfers, whose mirror lines the
	// payments' rows already show. It is read once, before the sources, rather than as a
	// subquery of the mirror's lines: on Citus the Safe payments are on the tenant's shard and
	// the ledger on the coordinator, and Citus refuses a correlated subquery joining the two,
	// while a materialized CTE is planned on its own (one shard) and joined as its result.
	activityExecutedSQL = `WITH executed AS MATERIALIZED (SELECT sp.source_wallet_id AS wallet_id, lower(sp.executed_tx_hash) AS tx_hash
  FROM safe_payments sp
  WHERE sp.tenant_id = ?tenant AND sp.kind = 'transfer' AND sp.executed_tx_hash IS NOT NULL
    AND (?wallet = '' OR sp.source_wallet_id = ?wallet))
`

	// activityCheckoutsSQL: a completed checkout is a payment received, at the moment it
	// completed, for the amount its deposit address received. Checkouts are paid into the
	// merchant's service balance, not a wallet, so a wallet's own list leaves them out.
	activityCheckoutsSQL = `SELECT c.id, '' AS wallet_id, 'payment' AS type, c.received AS amount, 'COMPLETED' AS status,
    c.transaction_hash AS tx_hash, c.payer_address AS counterparty, c.description AS note,
    coalesce(c.completed_at, c.created_at) AS created_at
  FROM checkouts c
  WHERE c.tenant_id = ?tenant AND c.environment = ?env AND ?wallet = '' AND c.status = 'COMPLETED'`

	// activityRefundsSQL: a checkout refund is a refund, EXECUTING until its transfer to the
	// payer is processed; like checkouts it leaves the service balance, not a wallet.
	activityRefundsSQL = `SELECT r.id, '' AS wallet_id, 'refund' AS type, r.amount_base_units AS amount,
    CASE WHEN r.status = 'PROCESSED' THEN 'COMPLETED' ELSE 'EXECUTING' END AS status,
    r.tx_hash, r.destination AS counterparty, 'refund of ' || r.checkout_id AS note, r.created_at
  FROM checkout_refunds r
  WHERE r.tenant_id = ?tenant AND r.environment = ?env AND ?wallet = ''`

	// activityFilterSQL applies the list's filters to a source's rows.
	activityFilterSQL = `(?type = '' OR type = ?type) AND (?status = '' OR status = ?status)
    AND (?from::timestamptz IS NULL OR created_at >= ?from) AND (?to::timestamptz IS NULL OR created_at < ?to)`
)

// activityMirrorCitusSQL is the mirror's lines on Citus: the transfers are read in the
// tenant's home as well, so every table of the statement names the tenant and Citus routes
// it to the tenant's shard (it refuses the join on the posting's transfer_home_tenant_id).
// Since money between tenants is two single-home legs, a tenant's mirror postings belong to
// its own transfers; a chain log between two tenants' wallets booked as one transfer before
// that split, homed at the other tenant, is left out of this list on Citus.
var activityMirrorCitusSQL = strings.Replace(activityMirrorSQL, "AND t.home_tenant_id = p.transfer_home_tenant_id",
	"AND t.home_tenant_id = p.transfer_home_tenant_id AND t.home_tenant_id = ?tenant", 1)

// ListWalletActivity reads one page of four sources (Safe payments, mirror lines, completed
// checkouts, checkout refunds): each source contributes at most skip+take rows, newest
// first, so the merge sorts a bounded set; the total is a count over both sources.
func (r walletActivityRepo) ListWalletActivity(ctx context.Context, q ports.ActivityQuery, page ports.Page) ([]ports.WalletActivity, int, error) {
	if page.Skip < 0 || page.Skip > ports.MaxActivitySkip || page.Take <= 0 || page.Take > ports.MaxTake {
		panic(fmt.Sprintf("postgres: wallet activity page out of bounds: %+v", page))
	}
	args := newActivityArgs(q)
	depth := page.Skip + page.Take
	mirror := activityMirrorSQL
	if r.citus {
		mirror = activityMirrorCitusSQL
	}
	sources := []string{activityPaymentsSQL, mirror, activityCheckoutsSQL, activityRefundsSQL}
	parts, counts := make([]string, len(sources)), make([]string, len(sources))
	for i, src := range sources {
		parts[i] = fmt.Sprintf("(SELECT * FROM (%s) s WHERE %s ORDER BY created_at DESC, id DESC LIMIT %d)", src, activityFilterSQL, depth)
		counts[i] = fmt.Sprintf("(SELECT count(*) FROM (%s) s WHERE %s)", src, activityFilterSQL)
	}
	pageSQL := activityExecutedSQL + fmt.Sprintf("SELECT * FROM (\n%s\n) u ORDER BY created_at DESC, id DESC LIMIT %d OFFSET %d",
		strings.Join(parts, "\n  UNION ALL\n"), page.Take, page.Skip)
	var rows []walletActivityRow
	if err := r.db.NewRaw(pageSQL, args).Scan(ctx, &rows); err != nil {
		return nil, 0, err
	}
	countSQL := activityExecutedSQL + "SELECT " + strings.Join(counts, " + ")
	var total int
	if err := r.db.NewRaw(countSQL, args).Scan(ctx, &total); err != nil {
		return nil, 0, err
	}
	return infallibleRows(rows), total, nil
}

func (row walletActivityRow) domain() ports.WalletActivity {
	return ports.WalletActivity{ID: row.ID, WalletID: row.WalletID, Type: row.Type, AmountBaseUnits: row.Amount,
		Status: row.Status, TxHash: row.TxHash, Counterparty: row.Counterparty, Note: row.Note, CreatedAt: row.CreatedAt.UTC()}
}

// activityArgs are the named arguments of the activity queries (a nil time filters nothing).
type activityArgs struct {
	Tenant string     `bun:"tenant"`
	Env    string     `bun:"env"`
	Wallet string     `bun:"wallet"`
	Kind   string     `bun:"kind"`
	Type   string     `bun:"type"`
	Status string     `bun:"status"`
	From   *time.Time `bun:"from"`
	To     *time.Time `bun:"to"`
}

func newActivityArgs(q ports.ActivityQuery) *activityArgs {
	a := &activityArgs{Tenant: q.TenantID, Env: string(q.Environment), Wallet: q.WalletID,
		Kind: ledger.KindWalletOnchain, Type: q.Type, Status: q.Status}
	if !q.From.IsZero() {
		a.From = &q.From
	}
	if !q.To.IsZero() {
		a.To = &q.To
	}
	return a
}
