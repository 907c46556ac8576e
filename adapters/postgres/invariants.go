package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// InvariantCheck is one invariant `corridor check` verified: OK, or the problems it found, or
// why it could not be checked (Skipped).
type InvariantCheck struct {
	Name     string
	Problems []string
	Skipped  string
	// Note is what a passing check adds for the reader (citus-distribution: shards per worker).
	Note string
}

// OK reports a check that ran and found nothing wrong.
func (c InvariantCheck) OK() bool { return len(c.Problems) == 0 }

// InvariantReport is every check of one run.
type InvariantReport struct{ Checks []InvariantCheck }

// OK reports a report without problems (skipped checks are not problems).
func (r InvariantReport) OK() bool {
	for _, c := range r.Checks {
		if !c.OK() {
			return false
		}
	}
	return true
}

// maxProblemsPerCheck bounds a check's list; the first ones name what to look at.
const maxProblemsPerCheck = 50

// invariantQuery is one SQL check: every row it returns is a problem, described by its one
// text column.
type invariantQuery struct {
	name  string
	query string
}

// invariantQueries are the checks that need only the database. Each names a violation per row.
var invariantQueries = []invariantQuery{
	// A payout reaches its recipient once: one deliver transfer per payment, whatever the
	// attempts, retries and webhooks.
	{"payouts-delivered-once", `SELECT 'off-ramp payment ' || (metadata->>'offrampPaymentId') || ' delivered ' || count(*) || ' times'
		FROM ledger_transfers WHERE reference LIKE 'offramp:%:deliver:%'
		GROUP BY metadata->>'offrampPaymentId' HAVING count(*) > 1`},
	// A claim's escrow is released once: to the payment (lock), back to the sender (reject)
	// or refunded on expiry, never two of these.
	{"claims-released-once", `SELECT 'claim ' || (metadata->>'claimId') || ' released ' || count(*) || ' times (' || string_agg(reference, ', ' ORDER BY reference) || ')'
		FROM ledger_transfers WHERE reference ~ '^offramp:[^:]+:claim-(lock|reject|refund)$'
		GROUP BY metadata->>'claimId' HAVING count(*) > 1`},
	// A unit of work commits its state with its ledger effects: a payment past FUNDS_LOCKED
	// holds its lock, one at a provider its submit, a delivered one its deliver transfer.
	// The payments are read first (a materialized CTE): on Citus they are distributed and the
	// ledger's transfers are not, and Citus joins the two only through such a result.
	{"offramp-units-whole", `WITH p AS MATERIALIZED (SELECT id, status FROM offramp_payments
			WHERE status IN ('FUNDS_LOCKED', 'PROVIDER_SUBMITTED', 'PROVIDER_PROCESSING', 'DELIVERED'))
		SELECT 'off-ramp payment ' || p.id || ' is ' || p.status || ' without its ' || need || ' transfer'
		FROM p
		CROSS JOIN LATERAL (VALUES ('lock', ARRAY['FUNDS_LOCKED','PROVIDER_SUBMITTED','PROVIDER_PROCESSING','DELIVERED']),
			('submit', ARRAY['PROVIDER_SUBMITTED','PROVIDER_PROCESSING','DELIVERED']),
			('deliver', ARRAY['DELIVERED'])) AS steps(need, statuses)
		WHERE p.status = ANY (steps.statuses) AND NOT EXISTS (SELECT 1 FROM ledger_transfers t
			WHERE t.reference LIKE 'offramp:' || p.id || ':' || steps.need || '%'
			OR (steps.need = 'lock' AND t.reference = 'offramp:' || p.id || ':claim-lock'))`},
	// Every ledger effect of a payment or a card authorization belongs to a recorded one.
	// (The payments' ids through a materialized CTE, for Citus, as above.)
	{"ledger-effects-owned", `WITH p AS MATERIALIZED (SELECT id FROM offramp_payments)
		SELECT 'transfer ' || t.id || ' (' || t.reference || ') names ' || owner.what || ' ' || owner.id || ', which does not exist'
		FROM ledger_transfers t
		CROSS JOIN LATERAL (VALUES ('off-ramp payment', t.metadata->>'offrampPaymentId')) AS owner(what, id)
		WHERE owner.id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM p WHERE p.id = owner.id)`},
	// The trial balance holds per tenant group (a tenant's accounts with its shares of the
	// platform accounts, which live in its shard group; the platform accounts proper form the
	// group ''): a group's balances sum to what the transfers crossing groups (the sweeps, money
	// between tenants) brought it, so a group's own transfers sum to zero; and every
	// environment and asset sums to zero in total.
	{"trial-balance-per-tenant", `WITH acct AS (
			SELECT a.id, a.environment, a.asset, a.home_tenant_id AS grp, b.posted
			FROM ledger_accounts a JOIN ledger_balances b ON b.account_id = a.id AND b.home_tenant_id = a.home_tenant_id),
		crossing AS (
			SELECT t.id, t.sequence, t.created_at FROM ledger_transfers t
			CROSS JOIN LATERAL unnest(t.posting_accounts) AS l (account_id) JOIN acct a ON a.id = l.account_id
			GROUP BY t.id, t.sequence, t.created_at HAVING count(DISTINCT a.grp) > 1),
		inflow AS (
			SELECT a.environment, a.asset, a.grp, sum(p.posted_delta) AS n FROM crossing c
			JOIN ledger_postings p ON p.transfer_id = c.id AND p.sequence = c.sequence AND p.created_at = c.created_at
			JOIN acct a ON a.id = p.account_id GROUP BY 1, 2, 3),
		grp AS (SELECT environment, asset, grp, sum(posted) AS posted FROM acct GROUP BY 1, 2, 3)
		SELECT 'tenant group ' || coalesce(nullif(g.grp, ''), '(platform)') || ', ' || g.environment || ' ' || g.asset
			|| ': its balances sum to ' || g.posted || ', transfers from other groups brought ' || coalesce(i.n, 0)
		FROM grp g LEFT JOIN inflow i USING (environment, asset, grp) WHERE g.posted <> coalesce(i.n, 0)
		UNION ALL
		SELECT environment || ' ' || asset || ': the balances sum to ' || sum(posted) || ', not zero'
		FROM acct GROUP BY environment, asset HAVING sum(posted) <> 0`},
	// Every transfer lands on one home's rows (one shard group on Citus): money between
	// tenants is two legs (cross-tenant-legs), the sweeps are the one planned exception.
	{"single-home-transfers", multiHomeTransfersQuery},
	// The ledger's keys carry the home tenant (migration 000067), so on Citus each row lives in
	// its home's shard group and a constraint holds within one home only. What a key across homes
	// held before is checked here: a reference names one account and one transfer whatever their
	// homes, a reversal's target and a transfer's resolving one exist (a reversal's home may be
	// another), a posting lives with its account and names its transfer's home (migration 000076).
	{"ledger-keys-across-homes", `SELECT 'account reference ' || environment || ' ' || asset || ' ' || reference || ' is in '
			|| count(*) || ' homes (' || string_agg(quote_literal(home_tenant_id), ', ' ORDER BY home_tenant_id) || ')'
		FROM ledger_accounts GROUP BY environment, asset, reference HAVING count(*) > 1
		UNION ALL
		SELECT 'transfer reference ' || environment || ' ' || reference || ' is in ' || count(*) || ' homes ('
			|| string_agg(quote_literal(home_tenant_id), ', ' ORDER BY home_tenant_id) || ')'
		FROM ledger_transfers GROUP BY environment, reference HAVING count(*) > 1
		UNION ALL
		SELECT 'reversal ' || t.id || ' reverses ' || t.reversed_id || ', which does not exist'
		FROM ledger_transfers t WHERE t.reversed_id IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM ledger_transfers x WHERE x.id = t.reversed_id)
		UNION ALL
		SELECT 'transfer ' || t.id || ' is resolved by ' || t.resolved_by || ', which does not exist'
		FROM ledger_transfers t WHERE t.resolved_by IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM ledger_transfers x WHERE x.id = t.resolved_by)
		UNION ALL
		SELECT 'posting of transfer ' || p.transfer_id || ' on ' || p.account_id || ' lives in home '
			|| quote_literal(p.home_tenant_id) || ', its account in ' || coalesce(quote_literal(a.home_tenant_id), 'none')
		FROM ledger_postings p LEFT JOIN ledger_accounts a ON a.id = p.account_id
		WHERE a.home_tenant_id IS DISTINCT FROM p.home_tenant_id
		UNION ALL
		SELECT 'posting of transfer ' || p.transfer_id || ' on ' || p.account_id || ' names its transfer''s home '
			|| quote_literal(p.transfer_home_tenant_id) || ', the transfer is in ' || coalesce(quote_literal(t.home_tenant_id), 'none')
		FROM ledger_postings p LEFT JOIN ledger_transfers t ON t.id = p.transfer_id AND t.sequence = p.sequence
		WHERE t.home_tenant_id IS DISTINCT FROM p.transfer_home_tenant_id`},
	// The authorizations are read first (a materialized CTE): on Citus they are distributed
	// and the ledger's transfers are not, and Citus joins the two only through such a result.
	{"card-holds-whole", `WITH a AS MATERIALIZED (SELECT id, status, hold_transfer_id FROM card_authorizations
			WHERE status <> 'DECLINED')
		SELECT 'card authorization ' || a.id || ' is ' || a.status || ' but its hold transfer ' || coalesce(a.hold_transfer_id, '(none)') || ' is missing'
		FROM a WHERE NOT EXISTS (SELECT 1 FROM ledger_transfers t WHERE t.id = a.hold_transfer_id)`},
	// A Safe payment's hold on its wallet's mirror goes when the payment fails or is cancelled,
	// and when the mirror books its transfer (docs/chain.md): one still standing for a payment
	// that failed, or an hour after it completed, holds USDC that card authorizations cannot
	// use. Both tables live with the tenant, so they join on Citus too.
	{"payment-holds-settled", `SELECT 'payment ' || p.id || ' is ' || p.status || ' since ' || p.updated_at
			|| ' and still holds ' || h.amount_base_units || ' base units of wallet ' || h.wallet_id || ' (transfer ' || h.transfer_id || ')'
		FROM safe_payment_holds h JOIN safe_payments p ON p.tenant_id = h.tenant_id AND p.id = h.payment_id
		WHERE p.status IN ('FAILED', 'CANCELLED') OR (p.status = 'COMPLETED' AND p.updated_at < now() - interval '1 hour')`},
}

// CheckInvariants runs `corridor check`: the ledger's own verification (trial balance per
// asset and environment, hash chains, balances against the history), the database checks
// above, every idempotency record against its effect, and the ledger against the chain for
// each environment in chains whose indexer has caught up with the chain's head.
func CheckInvariants(ctx context.Context, db *bun.DB, chains map[core.Environment]ports.Chain) (InvariantReport, error) {
	var rep InvariantReport
	v, err := VerifyLedger(ctx, db)
	if err != nil {
		return rep, fmt.Errorf("ledger verification: %w", err)
	}
	rep.Checks = append(rep.Checks, ledgerCheck(v))
	for _, q := range invariantQueries {
		c, err := runInvariantQuery(ctx, db, q)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", q.name, err)
		}
		rep.Checks = append(rep.Checks, c)
	}
	legs, err := checkCrossTenantLegs(ctx, db)
	if err != nil {
		return rep, fmt.Errorf("cross-tenant-legs: %w", err)
	}
	rep.Checks = append(rep.Checks, legs)
	idem, err := checkIdempotencyEffects(ctx, db)
	if err != nil {
		return rep, fmt.Errorf("idempotency-effects: %w", err)
	}
	rep.Checks = append(rep.Checks, idem)
	dist, err := checkCitusDistribution(ctx, db)
	if err != nil {
		return rep, fmt.Errorf("citus-distribution: %w", err)
	}
	rep.Checks = append(rep.Checks, dist)
	anchors, err := checkAnchors(ctx, db, chains)
	if err != nil {
		return rep, fmt.Errorf("ledger-anchors: %w", err)
	}
	rep.Checks = append(rep.Checks, anchors)
	for _, env := range []core.Environment{core.EnvTest, core.EnvLive} {
		c, err := checkLedgerAgainstChain(ctx, db, env, chains[env])
		if err != nil {
			return rep, fmt.Errorf("ledger-vs-chain %s: %w", env, err)
		}
		rep.Checks = append(rep.Checks, c)
		e, err := checkEscrowAgainstChain(ctx, db, env, chains[env])
		if err != nil {
			return rep, fmt.Errorf("escrow-vs-chain %s: %w", env, err)
		}
		rep.Checks = append(rep.Checks, e)
	}
	return rep, nil
}

// ledgerCheck turns `corridor ledger verify`'s result into one check.
func ledgerCheck(v LedgerVerification) InvariantCheck {
	c := InvariantCheck{Name: "ledger (trial balance, hash chains, balances)"}
	for _, b := range v.Breaks {
		c.add(fmt.Sprintf("hash chain broken at transfer %s (environment %s, stripe %d, position %d): %s",
			b.TransferID, b.Environment, b.Stripe, b.Position, b.Reason))
	}
	for _, p := range v.Problems {
		c.add(p)
	}
	return c
}

func (c *InvariantCheck) add(problem string) {
	if len(c.Problems) < maxProblemsPerCheck {
		c.Problems = append(c.Problems, problem)
	}
}

func runInvariantQuery(ctx context.Context, db *bun.DB, q invariantQuery) (InvariantCheck, error) {
	c := InvariantCheck{Name: q.name}
	rows, err := db.QueryContext(ctx, onCoordinator(isCitus(ctx, db.DB), q.query)+fmt.Sprintf(" LIMIT %d", maxProblemsPerCheck))
	if err != nil {
		return c, err
	}
	defer rows.Close()
	for rows.Next() {
		var problem string
		if err := rows.Scan(&problem); err != nil {
			return c, err
		}
		c.add(problem)
	}
	return c, rows.Err()
}

// effectTables maps the id prefixes a stored answer may name to the table holding that object.
var effectTables = map[string]string{
	core.PrefixOffRamp: "offramp_payments", core.PrefixCard: "cards", core.PrefixWallet: "wallets",
	core.PrefixPayment: "safe_payments", core.PrefixClaim: "offramp_claims", core.PrefixCardholder: "cardholders",
	core.PrefixAgent: "agents", core.PrefixPolicy: "policies", core.PrefixDest: "payout_destinations",
	core.PrefixCardAuth: "card_authorizations", core.PrefixContact: "contacts", core.PrefixRamp: "ramps",
}

// effectIDFields are the fields of a stored answer that name the object the request made or
// changed, in the order they are looked for.
var effectIDFields = []string{"id", "paymentId", "cardId", "walletId", "claimId", "cardholderId", "agentId",
	"policyId", "destinationId", "authorizationId", "contactId", "rampId"}

// checkIdempotencyEffects verifies that every stored successful answer names an object that
// exists: the record and its effect commit in one transaction, so a record without its effect
// is a unit of work half applied. Ids are unique, so the effect is exactly one object.
func checkIdempotencyEffects(ctx context.Context, db *bun.DB) (InvariantCheck, error) {
	c := InvariantCheck{Name: "idempotency-effects"}
	rows, err := db.QueryContext(ctx, `SELECT scope, key, body FROM idempotency_keys
		WHERE status_code BETWEEN 200 AND 299 AND content_type LIKE 'application/json%'`)
	if err != nil {
		return c, err
	}
	type named struct{ scope, key, id, table string }
	var refs []named
	for rows.Next() {
		var scope, key string
		var body []byte
		if err := rows.Scan(&scope, &key, &body); err != nil {
			rows.Close()
			return c, err
		}
		if id, table, ok := effectOf(body); ok {
			refs = append(refs, named{scope, key, id, table})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return c, err
	}
	for _, r := range refs {
		var one int
		err := db.QueryRowContext(ctx, "SELECT 1 FROM "+r.table+" WHERE id = ?", r.id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			c.add(fmt.Sprintf("idempotency record %s of %s answers %s, which does not exist (%s)", r.key, r.scope, r.id, r.table))
			continue
		}
		if err != nil {
			return c, err
		}
	}
	return c, nil
}

// effectOf finds the object a stored answer names: the first id field whose prefix is known.
func effectOf(body []byte) (id, table string, ok bool) {
	var fields map[string]any
	if json.Unmarshal(body, &fields) != nil {
		return "", "", false
	}
	for _, f := range effectIDFields {
		s, _ := fields[f].(string)
		if prefix, _, found := cutPrefix(s); found && effectTables[prefix] != "" {
			return s, effectTables[prefix], true
		}
	}
	return "", "", false
}

func cutPrefix(id string) (prefix, rest string, ok bool) {
	for i := 0; i < len(id); i++ {
		if id[i] == '_' {
			return id[:i], id[i+1:], i > 0
		}
	}
	return "", "", false
}

// checkLedgerAgainstChain compares each wallet's mirror account with its Safe's USDC balance
// on chain, once the indexer has posted every block up to the chain's head (drift is then 0);
// it is skipped without a chain or while the indexer lags.
func checkLedgerAgainstChain(ctx context.Context, db *bun.DB, env core.Environment, chain ports.Chain) (InvariantCheck, error) {
	c := InvariantCheck{Name: "ledger-vs-chain " + string(env)}
	if chain == nil {
		c.Skipped = "no chain configured"
		return c, nil
	}
	var err error
	if c.Skipped, err = indexerBehind(ctx, db, env, chain, "chain_index_cursors", "the indexer"); err != nil || c.Skipped != "" {
		return c, err
	}
	mirrors, err := walletMirrors(ctx, db, env, chain.ChainID())
	if err != nil {
		return c, err
	}
	for _, m := range mirrors {
		onchain, err := chain.USDCBalance(ctx, common.HexToAddress(m.address))
		if err != nil {
			c.add(fmt.Sprintf("wallet %s: the chain did not answer its balance: %v", m.walletID, err))
			continue
		}
		if onchain.Cmp(big.NewInt(m.ledger)) != 0 {
			c.add(fmt.Sprintf("wallet %s (%s): ledger %d, chain %s base units", m.walletID, m.address, m.ledger, onchain))
		}
	}
	return c, nil
}

type walletMirror struct {
	walletID, address string
	ledger            int64
}

// walletMirrors lists the environment's wallets on the chain with their mirror's posted balance.
// A wallet's mirror account is its tenant's, so both joins name the wallet's tenant as the rows'
// home: on Citus, rows of one shard group joined on the distribution column.
func walletMirrors(ctx context.Context, db *bun.DB, env core.Environment, chainID int64) ([]walletMirror, error) {
	rows, err := db.QueryContext(ctx, `SELECT w.id, w.address, coalesce(b.posted, 0) FROM wallets w
		LEFT JOIN ledger_accounts a ON a.environment = w.environment AND a.asset = 'USDC' AND a.reference = 'wallet:' || w.id || ':onchain'
			AND a.home_tenant_id = w.tenant_id
		LEFT JOIN ledger_balances b ON b.account_id = a.id AND b.home_tenant_id = a.home_tenant_id
		WHERE w.environment = ? AND w.chain_id = ?`, string(env), chainID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []walletMirror
	for rows.Next() {
		var m walletMirror
		if err := rows.Scan(&m.walletID, &m.address, &m.ledger); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].walletID < out[j].walletID })
	return out, rows.Err()
}

// checkEscrowAgainstChain compares the claim escrow accounts' posted total with the escrow
// contract's USDC balance. The ledger posts a claim's escrow when its funding is indexed and
// moves it out when the claim is redeemed or refunded, while the chain's release or refund is a
// job after that commit; so they agree only at rest: the escrow indexer past the chain's head
// and no escrow transaction queued. Otherwise the check is skipped, saying why.
func checkEscrowAgainstChain(ctx context.Context, db *bun.DB, env core.Environment, chain ports.Chain) (InvariantCheck, error) {
	c := InvariantCheck{Name: "escrow-vs-chain " + string(env)}
	escrow, ok := chain.(ports.ClaimEscrow)
	if chain == nil || !ok || escrow.ClaimEscrowAddress() == (common.Address{}) {
		c.Skipped = "no claim escrow configured"
		return c, nil
	}
	var err error
	if c.Skipped, err = indexerBehind(ctx, db, env, chain, "offramp_escrow_cursors", "the escrow indexer"); err != nil || c.Skipped != "" {
		return c, err
	}
	var queued, ledgerTotal int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM river_job WHERE kind = 'claim.chain'
		AND state IN ('available', 'pending', 'running', 'retryable', 'scheduled')`).Scan(&queued); err != nil {
		return c, err
	}
	if queued > 0 {
		c.Skipped = fmt.Sprintf("%d escrow transactions are still queued", queued)
		return c, nil
	}
	if err := db.QueryRowContext(ctx, `SELECT coalesce(sum(b.posted), 0)::bigint FROM ledger_accounts a
		JOIN ledger_balances b ON b.account_id = a.id AND b.home_tenant_id = a.home_tenant_id
		WHERE a.environment = ? AND a.kind = 'claim_escrow' AND a.asset = 'USDC'`,
		string(env)).Scan(&ledgerTotal); err != nil {
		return c, err
	}
	onchain, err := chain.USDCBalance(ctx, escrow.ClaimEscrowAddress())
	if err != nil {
		c.add(fmt.Sprintf("the chain did not answer the escrow's balance: %v", err))
		return c, nil
	}
	if onchain.Cmp(big.NewInt(ledgerTotal)) != 0 {
		c.add(fmt.Sprintf("claim escrow %s: ledger %d, chain %s base units", escrow.ClaimEscrowAddress().Hex(), ledgerTotal, onchain))
	}
	return c, nil
}

// indexerBehind says why a comparison with the chain is skipped ("" when it may run): the
// chain does not answer, or the indexer whose cursor is in cursorTable has not passed the head.
func indexerBehind(ctx context.Context, db *bun.DB, env core.Environment, chain ports.Chain, cursorTable, indexer string) (string, error) {
	latest, err := chain.LatestBlock(ctx)
	if err != nil {
		return "the chain did not answer: " + err.Error(), nil
	}
	var next int64
	err = db.NewRaw("SELECT next_block FROM ? WHERE environment = ? AND chain_id = ?", bun.Ident(cursorTable), string(env), chain.ChainID()).
		Scan(ctx, &next)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && uint64(next) <= latest) { // #nosec G115 -- next_block is checked non-negative
		return fmt.Sprintf("%s has not caught up (next block %d, chain head %d)", indexer, next, latest), nil
	}
	return "", err
}

// anchorChain is a chain adapter that reads anchor transactions (chain.Adapter).
type anchorChain interface {
	ChainID() int64
	AnchorTransaction(ctx context.Context, hash common.Hash) ([]byte, uint64, error)
}

// checkAnchors is `corridor ledger verify --anchors` as one check, reading each anchor's
// transaction from the configured chain of its environment; skipped before the first anchor or
// without that chain.
func checkAnchors(ctx context.Context, db *bun.DB, chains map[core.Environment]ports.Chain) (InvariantCheck, error) {
	c := InvariantCheck{Name: "ledger-anchors"}
	var envs []string
	if err := db.NewRaw(`SELECT DISTINCT chain_environment FROM ledger_anchors WHERE mined_at IS NOT NULL ORDER BY 1`).Scan(ctx, &envs); err != nil {
		return c, err
	}
	if len(envs) == 0 {
		c.Skipped = "no anchor mined yet"
		return c, nil
	}
	for _, env := range envs {
		if _, ok := chains[core.Environment(env)].(anchorChain); !ok {
			c.Skipped = fmt.Sprintf("anchors are on the %s chain, which is not configured", env)
			return c, nil
		}
	}
	v, err := VerifyAnchors(ctx, db, func(ctx context.Context, env string, chainID int64, txHash string) ([]byte, uint64, error) {
		a := chains[core.Environment(env)].(anchorChain) //nolint:forcetypeassert // checked above
		if a.ChainID() != chainID {
			return nil, 0, fmt.Errorf("the configured %s chain is %d", env, a.ChainID())
		}
		return a.AnchorTransaction(ctx, common.HexToHash(txHash))
	})
	if err != nil {
		return c, err
	}
	for _, p := range append(v.Problems, v.Unread...) {
		c.add(p)
	}
	c.Note = fmt.Sprintf("%d anchors, the last in block %d", v.Anchors, v.Last.BlockNumber)
	return c, nil
}
