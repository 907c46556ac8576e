package postgres

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"
)

// Kinds of tenant_lookups rows: each names a value looked up before the tenant is known.
const (
	lookupAPIKey     = "api_key"     // an API key's public id (authentication)
	lookupInvite     = "invite"      // a member invite's token hash (accepting it)
	lookupMemberUser = "member_user" // a session user's memberships (one row per tenant)

	lookupTenantSlug  = "tenant_slug"  // a tenant's slug (unique across tenants)
	lookupTenantOwner = "tenant_owner" // a tenant's owner user (one owned tenant per user; a session's tenant)

	lookupInvoice         = "invoice"          // an invoice's id (its public page, the poller)
	lookupCheckout        = "checkout"         // a checkout's id (its public page, the watcher's jobs)
	lookupCheckoutDeposit = "checkout_deposit" // a checkout's deposit address (unique across tenants)
	lookupBillNonce       = "bill_nonce"       // a signer's used nonce (single-use across payers)
	lookupPhoneAlias      = "phone_alias"      // a verified phone (which tenant owns it)

	lookupWalletAddress      = "wallet_address"       // a wallet's address in its environment (a bill's payer)
	lookupHandle             = "handle"               // a directory handle in its environment (a destination)
	lookupOfframpPayment     = "offramp_payment"      // an off-ramp payment's id (jobs, the recipient's reads)
	lookupOfframpProviderRef = "offramp_provider_ref" // a payout provider's reference (its webhooks)
	lookupOfframpClaim       = "offramp_claim"        // a claim's id (jobs, its links)
	lookupClaimOnchain       = "claim_onchain"        // a claim's escrow id on a chain (the escrow indexer)
	lookupClaimLink          = "claim_link"           // a claim link's token hash (the public claim page)
)

// insertLookupSQL records which tenant a value belongs to. It has server-side parameters
// (rawQuerier) because it is written in the unit of work of the row it finds.
const insertLookupSQL = `INSERT INTO tenant_lookups (lookup_key, kind, tenant_id) VALUES ($1, $2, $3)`

// addLookup writes the lookup row of a value in the caller's unit of work, so the row it finds
// and the lookup commit together. On Citus the lookup lives on the value's shard, the row on
// the tenant's: one (rare) two-shard transaction at creation buys single-shard lookups after.
func addLookup(ctx context.Context, q querier, key, kind, tenantID string) error {
	_, err := q.ExecContext(ctx, insertLookupSQL, key, kind, tenantID)
	return err
}

// addLookupOnce is addLookup for a multi-valued kind (member_user): a second write is a no-op.
func addLookupOnce(ctx context.Context, q querier, key, kind, tenantID string) error {
	_, err := q.ExecContext(ctx, insertLookupSQL+` ON CONFLICT (lookup_key, kind, tenant_id) DO NOTHING`, key, kind, tenantID)
	return err
}

// lookupTenant is the tenant a unique value belongs to; ok is false when none has it. It reads
// one row by the distribution column, so on Citus it asks one shard.
func lookupTenant(ctx context.Context, q querier, key, kind string) (string, bool, error) {
	var tenantID string
	err := q.QueryRowContext(ctx, `SELECT tenant_id FROM tenant_lookups WHERE lookup_key = $1 AND kind = $2`, key, kind).
		Scan(&tenantID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return tenantID, err == nil, err
}

// lookupTenants lists the tenants a multi-valued value belongs to, from its one shard.
func lookupTenants(ctx context.Context, db bun.IDB, key, kind string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT tenant_id FROM tenant_lookups WHERE lookup_key = ? AND kind = ?
		ORDER BY tenant_id`, key, kind)
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, t)
	}
	return out, errors.Join(rows.Err(), rows.Close())
}

// tenantOfRow is tenantID when given; when empty (a job enqueued before jobs carried the
// tenant), the tenant of table's row id, read without a lock (on Citus it asks every shard,
// once per such job), so that the lock that follows names its shard. A row that does not
// exist answers "", which finds nothing.
func tenantOfRow(ctx context.Context, db bun.IDB, table, tenantID, id string) (string, error) {
	if tenantID != "" {
		return tenantID, nil
	}
	var ids []string
	err := db.NewSelect().Table(table).Column("tenant_id").Where("id = ?", id).Limit(1).Scan(ctx, &ids)
	if err != nil || len(ids) == 0 {
		return "", err
	}
	return ids[0], nil
}
