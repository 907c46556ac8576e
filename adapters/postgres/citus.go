package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Placement is where a table lives on a Citus cluster.
type Placement string

const (
	// Distributed tables are hash-distributed by their tenant column and co-located, so a
	// tenant's rows of every such table share one shard group (one worker).
	Distributed Placement = "distributed"
	// Reference tables are small and global: a copy on every node, written in one distributed
	// transaction, joinable with anything.
	Reference Placement = "reference"
	// Local tables stay plain PostgreSQL tables on the coordinator, invisible to Citus.
	Local Placement = "local"
	// CitusLocal tables stay on the coordinator but are known to Citus (one shard there): a
	// write to one runs through Citus's local execution, which makes its transaction commit
	// with two-phase commit when it also wrote a worker (two_phase_marks).
	CitusLocal Placement = "citus-local"
)

// TablePlacement is one table's place in the distribution plan.
type TablePlacement struct {
	Table     string
	Placement Placement
	// Column is the distribution column of a Distributed table.
	Column string
	// Lookup marks a Distributed table keyed by a looked-up value rather than by the tenant
	// (tenant_lookups): distributed by Column in its own co-location group, since its rows are
	// found by that value before the tenant is known.
	Lookup bool
	// Pending, for a Local table, names the placement it is meant to reach once its keys carry
	// the tenant (docs/scaling.md); empty for a table meant to stay on the coordinator.
	Pending Placement
	// GlobalKeys are a Distributed table's unique constraints without its distribution column,
	// which Citus refuses: Distribute drops them before distributing the table. Each is kept
	// by a lookup row per value instead (tenant_lookups, unique by the value), written in the
	// unit that writes the row; on PostgreSQL they stay as a second guard.
	GlobalKeys []string
}

// tenantColocation is the co-location group's first table: every distributed table is
// co-located with it, so a tenant's rows of each share a worker. It is not tenants: tenants
// can be distributed only after every table keyed to it, and the databases distributed before
// tenants moved already anchor their group here.
const tenantColocation = "twofactor_settings"

func dist(t string) TablePlacement {
	return TablePlacement{Table: t, Placement: Distributed, Column: "tenant_id"}
}

// distBy is a tenant-group table whose tenant column has another name (a bill's payer).
func distBy(t, column string) TablePlacement {
	return TablePlacement{Table: t, Placement: Distributed, Column: column}
}

func lookup(t, column string) TablePlacement {
	return TablePlacement{Table: t, Placement: Distributed, Column: column, Lookup: true}
}
func ref(t string) TablePlacement { return TablePlacement{Table: t, Placement: Reference} }
func citusLocal(t string) TablePlacement {
	return TablePlacement{Table: t, Placement: CitusLocal}
}
func coord(t string) TablePlacement {
	return TablePlacement{Table: t, Placement: Local}
}
func pending(p Placement, tables ...string) []TablePlacement {
	out := make([]TablePlacement, 0, len(tables))
	for _, t := range tables {
		out = append(out, TablePlacement{Table: t, Placement: Local, Pending: p})
	}
	return out
}

// CitusPlan is the placement of every table of the schema (a test keeps it complete): the
// tables whose keys already lead with the tenant are distributed; the small global ones are
// reference tables; River's, the leases, the limits and the coordinator's bookkeeping stay
// local for good; the rest stay local until a migration puts the tenant in their keys, and
// say where they go then. Order matters: the co-location group's first table comes first.
var CitusPlan = concatPlans(
	[]TablePlacement{dist(tenantColocation), dist("recipient_credentials"), dist("relayer_tx_counts"),
		dist("twofactor_budgets"), dist("twofactor_factors"), dist("twofactor_challenges"), dist("contacts"),
		dist("idempotency_keys"), dist("request_logs"),
		// members before api_keys: a key's foreign key to its creating member stays only when
		// members is already distributed.
		dist("members"), dist("api_keys"),
		// Events and the webhook family: the fan-out claims each tenant's events on its shard.
		dist("events"), dist("webhook_endpoints"), dist("webhook_deliveries"), dist("webhook_attempts"),
		// Cards: a card's decision (its lock, windows and event) on one shard group. Each table
		// after the ones it keys to.
		dist("cardholders"), dist("cards"), dist("card_authorizations"), dist("card_spend"),
		// Policies: a gate's reads and its decision log. policies and policy_versions key to
		// each other; the one placed first gets its key back once the other is placed.
		dist("policies"), dist("policy_versions"), dist("policy_attachments"), dist("policy_decisions"),
		// Checkouts before their refunds (a refund's key names its checkout). A bill is its
		// payer's: every read, lock and update after the sender's insert is the payer's.
		dist("checkouts"), dist("checkout_refunds"), dist("invoices"), distBy("bills", "payer_tenant_id"),
		// A verified phone's owner is found through its lookup row; the outbox is the tenant's.
		dist("phone_aliases"), dist("sms_messages"),
		// Wallets, then what keys to them: handles (found by name through a lookup row), drips,
		// Safe payments, ramps (keyed to all three). Agents with them: an agent's spend sums
		// join its card spend with its wallet's Safe payments. The treasury keys to wallets and
		// Safe payments, each of its tables after the ones it keys to.
		dist("wallets"), dist("handles"), dist("drips"), dist("safe_payments"), dist("safe_payment_holds"), dist("ramps"),
		dist("agents"), dist("agent_card_spend"),
		dist("treasury_accounts"), dist("treasury_buckets"), dist("treasury_rules"), dist("treasury_sweeps"),
		// Payout destinations are their owner's (the recipient); the off-ramp family is the
		// SENDER's: a payment before the rows that key to it, a claim before its links and
		// challenges. A route quote names the recipient's destination, so no key joins the two.
		dist("payout_destinations"),
		distBy("offramp_payments", "sender_tenant_id"), dist("route_quotes"), dist("offramp_returns"),
		dist("offramp_hold_rechecks"), dist("offramp_review_approvals"),
		distBy("offramp_claims", "sender_tenant_id"), dist("offramp_claim_links"), dist("offramp_claim_challenges"),
		dist("offramp_escrow_events"),
		// The ledger's hash chain: by its bucket's key (chain_key, migration 000077), a text whose
		// hash falls in the range of the bucket's tenants, so a bucket's heads and links share the
		// shard group of its tenants and a commit's chain write goes to its tenants' node.
		distBy("ledger_chain_heads", "chain_key"), distBy("ledger_chain", "chain_key"),
		// tenants last of its group: every table above keeps a key to it, and Citus takes a key
		// to a distributed table only from a distributed table. Their keys come back once it is
		// placed, where the key's column is the table's distribution column. A slug and an
		// owner stay unique across tenants through their lookup rows.
		{Table: "tenants", Placement: Distributed, Column: "id", GlobalKeys: []string{"tenants_slug_key", "tenants_owner_user_id_key"}}},
	// The unscoped lookups (API key by public id, invite by token hash, a user's memberships):
	// distributed by the looked-up value, so each lookup asks one shard.
	[]TablePlacement{lookup("tenant_lookups", "lookup_key")},
	[]TablePlacement{ref("custody_keys"), ref("chain_index_cursors"), ref("offramp_escrow_cursors"),
		ref("relayer_nonces"), ref("payout_liquidity_top_ups"), ref("provider_events")},
	// Its upsert merges item arrays with a subquery, which Citus refuses in an INSERT.
	pending(Reference, "chain_indexed_blocks"),
	// Touched before COMMIT by a unit that wrote the coordinator, so that a unit spanning the
	// coordinator and a worker commits with two-phase commit (migration 000066).
	[]TablePlacement{citusLocal("two_phase_marks")},
	[]TablePlacement{coord("river_job"), coord("river_leader"), coord("river_migration"), coord("river_notification"),
		coord("river_queue"), coord("pass_leases"), coord("rate_limit_buckets"), coord("rate_limit_windows"),
		coord("background_failures"), coord("relayer_transactions"), coord("payout_mock_transfers"),
		coord("payout_onchain_transfers"), coord("schema_migrations"), coord("operator_actions"), coord("job_workers"),
		// One global row per anchor, written by the coordinator's anchor pass alone.
		coord("ledger_anchors"),
		// The phone-alias code budgets count per phone number and per client IP across tenants:
		// a limits table like rate_limit_*, not a tenant's rows.
		coord("phone_alias_attempts"),
		// One global row: when money between tenants became two single-home legs, read by
		// corridor check on the coordinator.
		coord("ledger_home_split")},
	// The ledger by its home (home_tenant_id): a tenant's accounts, balances, history and
	// transfers share its shard group, with its idempotency records and its chain stripe. The
	// table before the ones that key to it. A write names one home per statement
	// (ledger_write_citus.go), so a worker's outage does not hold up the other's tenants.
	[]TablePlacement{distBy("ledger_accounts", "home_tenant_id"), distBy("ledger_balances", "home_tenant_id"),
		distBy("ledger_transfers", "home_tenant_id"), distBy("ledger_postings", "home_tenant_id")},
	// An account's home row is found by the account id alone, several ids at once (the account
	// cache's fill): distributed by the id, a transfer's lookup would ask several shards on both
	// workers, so a dead worker would refuse the other's tenants. It stays on the coordinator,
	// written once per account (a unit opening accounts commits in two phases, as any spanning one).
	[]TablePlacement{coord("ledger_account_homes")},
)

func concatPlans(parts ...[]TablePlacement) []TablePlacement {
	var out []TablePlacement
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// distributeLock serializes migrators distributing the same database (any fixed key).
const distributeLock = 7_413_001

// IsCitus reports whether the database has the citus extension: only then does Distribute act.
func IsCitus(ctx context.Context, db *sql.DB) (bool, error) {
	var ok bool
	err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')`).Scan(&ok)
	return ok, err
}

// Distribute applies CitusPlan to a migrated database on a Citus coordinator, and does nothing
// on plain PostgreSQL: the same migrations serve both, and `corridor migrate` (every start)
// distributes on Citus. Each table is placed once; a table already placed is left alone, so it
// runs on every start and after every new migration. It reports whether the database is Citus.
func Distribute(ctx context.Context, url string) (bool, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return false, err
	}
	defer db.Close()
	citus, err := IsCitus(ctx, db)
	if err != nil || !citus {
		return false, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return true, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, distributeLock); err != nil {
		return true, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, distributeLock) //nolint:errcheck // the session ends anyway
	// policy_versions keeps its rows immutable with a row trigger that only raises: safe on a
	// shard, but Citus distributes a table with triggers only when told so.
	if _, err := conn.ExecContext(ctx, `SET citus.enable_unsafe_triggers = on`); err != nil {
		return true, err
	}
	var deferred []foreignKey
	for _, p := range CitusPlan {
		keys, err := place(ctx, conn, p)
		deferred = append(deferred, keys...)
		if err != nil {
			return true, fmt.Errorf("citus: %s %s: %w", p.Placement, p.Table, err)
		}
	}
	for _, k := range deferred {
		if !colocatedKey(k) {
			// Not a key Citus can hold (a bill's sender, a payment's recipient: another tenant's
			// row); the key is gone on Citus, as it was while tenants stayed local.
			continue
		}
		q := fmt.Sprintf(`ALTER TABLE %s ADD CONSTRAINT %s %s`, quoteIdent(k.table), quoteIdent(k.name), k.def)
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return true, fmt.Errorf("citus: foreign key %s of %s: %w", k.name, k.table, err)
		}
	}
	return true, distributeFunctions(ctx, conn)
}

// workerFunctions are the functions that queries over distributed tables run on the workers
// (verify's placement check computes a link's bucket and key there). Created by a migration
// before Citus was installed, a function exists on the coordinator only until it is made a
// distributed object.
var workerFunctions = []string{"ledger_chain_bucket(text)", "ledger_chain_key(smallint)", "ledger_chain_stripe_key(smallint)"}

func distributeFunctions(ctx context.Context, conn *sql.Conn) error {
	for _, f := range workerFunctions {
		if _, err := conn.ExecContext(ctx, `SELECT create_distributed_function($1) WHERE NOT EXISTS (
			SELECT 1 FROM pg_dist_object WHERE classid = 'pg_proc'::regclass AND objid = $1::regprocedure)`, f); err != nil {
			return fmt.Errorf("citus: function %s: %w", f, err)
		}
	}
	return nil
}

// foreignKey is one foreign key constraint, as pg_get_constraintdef gives it.
type foreignKey struct{ table, name, def string }

// place puts one table where the plan says, unless Citus already knows it. A foreign key
// between it and a table of the same family not yet distributed (an API key's creating member,
// a policy's active version) is dropped first, since Citus refuses a key between a local and a
// distributed table, and returned to be added back once the whole plan is placed.
func place(ctx context.Context, conn *sql.Conn, p TablePlacement) ([]foreignKey, error) {
	if p.Placement == Local {
		return nil, nil
	}
	var known bool
	if err := conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = $1::regclass)`,
		p.Table).Scan(&known); err != nil || known {
		return nil, err
	}
	deferred, err := dropForeignKeysToLocal(ctx, conn, p.Table)
	if err != nil {
		return deferred, err
	}
	from, err := deferForeignKeysFromLocal(ctx, conn, p.Table)
	deferred = append(deferred, from...)
	if err != nil {
		return deferred, err
	}
	if err := swapToPerHomeKeys(ctx, conn, p.Table); err != nil {
		return deferred, err
	}
	for _, name := range p.GlobalKeys {
		q := fmt.Sprintf(`ALTER TABLE %s DROP CONSTRAINT IF EXISTS %s`, quoteIdent(p.Table), quoteIdent(name))
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return deferred, err
		}
	}
	return deferred, distributeTable(ctx, conn, p)
}

// uniqueKey is a unique constraint by name and columns.
type uniqueKey struct{ name, columns string }

// perHomeKeys are the ledger's unique keys that leave out the home (home_tenant_id, the
// ledger's distribution column), with the per-home key each becomes before its table is
// distributed: Citus refuses a unique key without the distribution column. The name stays, so
// the store translates a violation as before (an account opened twice, a replayed reference).
// On PostgreSQL the keys stay global: a reference taken in another home is refused there
// (LEDGER_REFERENCE_CONFLICT), which on Citus corridor check's ledger-keys-across-homes line
// reports instead.
var perHomeKeys = map[string][]uniqueKey{
	"ledger_accounts":  {{"ledger_accounts_reference_key", "environment, asset, reference, home_tenant_id"}},
	"ledger_transfers": {{"ledger_transfers_reference_key", "environment, reference, home_tenant_id"}},
}

// swapToPerHomeKeys replaces table's global unique keys with their per-home keys
// (perHomeKeys), each in one statement, so the table is never without one.
func swapToPerHomeKeys(ctx context.Context, conn *sql.Conn, table string) error {
	for _, k := range perHomeKeys[table] {
		q := fmt.Sprintf(`ALTER TABLE %s DROP CONSTRAINT %s, ADD CONSTRAINT %s UNIQUE (%s)`,
			quoteIdent(table), quoteIdent(k.name), quoteIdent(k.name), k.columns)
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("per-home key %s: %w", k.name, err)
		}
	}
	return nil
}

// distributeTable makes one table a reference or distributed table and empties its local copy.
func distributeTable(ctx context.Context, conn *sql.Conn, p TablePlacement) error {
	var err error
	switch {
	case p.Placement == Reference:
		_, err = conn.ExecContext(ctx, `SELECT create_reference_table($1)`, p.Table)
	case p.Placement == CitusLocal:
		// Its rows stay where they are, in its one shard on the coordinator.
		_, err = conn.ExecContext(ctx, `SELECT citus_add_local_table_to_metadata($1)`, p.Table)
		return err
	case p.Table == tenantColocation || p.Lookup:
		_, err = conn.ExecContext(ctx, `SELECT create_distributed_table($1, $2, colocate_with => 'none')`, p.Table, p.Column)
	default:
		_, err = conn.ExecContext(ctx, `SELECT create_distributed_table($1, $2, colocate_with => $3)`, p.Table, p.Column, tenantColocation)
	}
	if err != nil {
		return err
	}
	// An existing database's rows were copied into the shards; the coordinator's own copy goes.
	_, err = conn.ExecContext(ctx, `SELECT truncate_local_data_after_distributing_table($1)`, p.Table)
	return err
}

// deferForeignKeysFromLocal drops the foreign keys that tables not yet placed hold to table
// and returns those of tables the plan distributes later, to be added back. A table staying on
// the coordinator for good cannot keep a key to a distributed table at all: its key is dropped
// for good (phone_alias_attempts' to tenants: code budgets, whose tenant is only a label). A
// table planned to become a reference table or distributed later while still local is a
// mistake in the plan's order and stops the run.
func deferForeignKeysFromLocal(ctx context.Context, conn *sql.Conn, table string) ([]foreignKey, error) {
	rows, err := conn.QueryContext(ctx, `SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid)
		FROM pg_constraint c WHERE c.contype = 'f' AND c.confrelid = $1::regclass AND c.conrelid <> c.confrelid
		AND NOT EXISTS (SELECT 1 FROM pg_dist_partition d WHERE d.logicalrelid = c.conrelid)`, table)
	if err != nil {
		return nil, err
	}
	var keys []foreignKey
	for rows.Next() {
		var k foreignKey
		if err := rows.Scan(&k.table, &k.name, &k.def); err != nil {
			rows.Close()
			return nil, err
		}
		keys = append(keys, k)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	planned := map[string]TablePlacement{}
	for _, p := range CitusPlan {
		planned[p.Table] = p
	}
	var dropped []foreignKey
	for _, k := range keys {
		p := planned[k.table]
		staysLocal := p.Placement == Local && p.Pending == ""
		if p.Placement != Distributed && !staysLocal {
			return dropped, fmt.Errorf("%s keeps a foreign key %s to %s but is not planned as distributed", k.table, k.name, table)
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf(`ALTER TABLE %s DROP CONSTRAINT %s`, quoteIdent(k.table), quoteIdent(k.name))); err != nil {
			return dropped, err
		}
		if !staysLocal {
			dropped = append(dropped, k)
		}
	}
	return dropped, nil
}

// dropForeignKeysToLocal drops table's foreign keys to tables not yet placed: Citus cannot
// enforce a key from shards on the workers to a table only the coordinator holds. A key to a
// table the plan distributes later (a policy's active version, before policy_versions moves)
// is returned to be added back once the whole plan is placed (tenants, placed last of its
// group); a key to a table staying local is dropped for good. A key to
// the table itself (an API key's creating key) stays: it is distributed with the table.
func dropForeignKeysToLocal(ctx context.Context, conn *sql.Conn, table string) ([]foreignKey, error) {
	rows, err := conn.QueryContext(ctx, `SELECT c.conname, c.confrelid::regclass::text, pg_get_constraintdef(c.oid)
		FROM pg_constraint c
		WHERE c.contype = 'f' AND c.conrelid = $1::regclass AND c.confrelid <> c.conrelid
		AND NOT EXISTS (SELECT 1 FROM pg_dist_partition d WHERE d.logicalrelid = c.confrelid)`, table)
	if err != nil {
		return nil, err
	}
	type key struct{ name, target, def string }
	var keys []key
	for rows.Next() {
		var k key
		if err := rows.Scan(&k.name, &k.target, &k.def); err != nil {
			rows.Close()
			return nil, err
		}
		keys = append(keys, k)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	var deferred []foreignKey
	for _, k := range keys {
		q := fmt.Sprintf(`ALTER TABLE %s DROP CONSTRAINT %s`, quoteIdent(table), quoteIdent(k.name))
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return deferred, err
		}
		if plannedDistributed(k.target) {
			deferred = append(deferred, foreignKey{table: table, name: k.name, def: k.def})
		}
	}
	return deferred, nil
}

// colocatedKey reports whether Citus can hold k once both its tables are distributed: its
// referencing columns include the table's distribution column, matched with the referenced
// table's distribution column (a key between co-located shards). A key naming another column
// of the tenant (a bill's sender) would join two shard groups, which Citus refuses.
func colocatedKey(k foreignKey) bool {
	local, target, remote, ok := parseForeignKey(k.def)
	if !ok {
		return false
	}
	from, to := planColumn(k.table), planColumn(target)
	for i := range local {
		if local[i] == from && i < len(remote) && remote[i] == to {
			return true
		}
	}
	return false
}

// parseForeignKey splits pg_get_constraintdef's "FOREIGN KEY (a, b) REFERENCES t(c, d) ...".
func parseForeignKey(def string) (local []string, target string, remote []string, ok bool) {
	rest, found := strings.CutPrefix(def, "FOREIGN KEY (")
	if !found {
		return nil, "", nil, false
	}
	cols, rest, found := strings.Cut(rest, ") REFERENCES ")
	if !found {
		return nil, "", nil, false
	}
	target, rest, found = strings.Cut(rest, "(")
	if !found {
		return nil, "", nil, false
	}
	refs, _, found := strings.Cut(rest, ")")
	split := func(s string) []string {
		out := strings.Split(s, ",")
		for i := range out {
			out[i] = strings.Trim(strings.TrimSpace(out[i]), `"`)
		}
		return out
	}
	return split(cols), strings.TrimPrefix(target, "public."), split(refs), found
}

// planColumn is the distribution column the plan gives table ("" when it is not distributed).
func planColumn(table string) string {
	for _, p := range CitusPlan {
		if p.Table == table && p.Placement == Distributed {
			return p.Column
		}
	}
	return ""
}

// plannedDistributed reports whether the plan makes table a distributed table.
func plannedDistributed(table string) bool {
	for _, p := range CitusPlan {
		if p.Table == table {
			return p.Placement == Distributed
		}
	}
	return false
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
