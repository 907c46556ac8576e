package secondary

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// seededPayments is how many cancelled sends TestSecondary_HistoryPagesEveryRow adds: more than
// the 1000 rows the lists once merged in memory, so the oldest are reachable only if the store
// pages over every row.
const seededPayments = 1004

// seedCancelledSends copies the Safe payment id as n CANCELLED sends of its wallet, the k-th
// created k seconds before it with an amount of k base units: a busy wallet's history,
// written straight to the database because proposing a thousand payments over HTTP would take
// minutes.
func seedCancelledSends(t *testing.T, id string, n int) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `INSERT INTO safe_payments (id, tenant_id, environment, source_wallet_id, safe_address, chain_id,
		destination_type, destination_handle, destination_address, destination_wallet_id, destination_chain_id, asset,
		amount_base_units, memo, status, safe_nonce, safe_tx_hash, threshold, signatures, executed_tx_hash, failure_reason,
		created_at, updated_at, kind, call_value, call_data)
	SELECT sp.id || '_' || lpad(k::text, 4, '0'), tenant_id, environment, source_wallet_id, safe_address, chain_id,
		destination_type, destination_handle, destination_address, destination_wallet_id, destination_chain_id, asset,
		k, memo, 'CANCELLED', safe_nonce, NULL, threshold, signatures, NULL, NULL,
		sp.created_at - make_interval(secs => k), sp.created_at - make_interval(secs => k), kind, call_value, call_data
	FROM safe_payments sp, generate_series(1, $2::int) AS k WHERE sp.id = $1`, id, n)
	if err != nil {
		t.Fatal(err)
	}
}

// TestSecondary_HistoryPagesEveryRow: a wallet with more than 1000 transactions counts every
// one in total, pages to the oldest with has_more false on the last page, and filters by status
// and date over all of them, on the wallet's list and the tenant-wide one.
func TestSecondary_HistoryPagesEveryRow(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := secondaryWallet(t, ten.Root, newOwner(t), "cus_busy")["wallet_id"].(string)
	deployed(t, ten.Root, id)
	fund(t, ten.Root, id, "5")
	// The deposit is a row too, once the indexer has mirrored it.
	poll(t, "the deposit in the history", func() map[string]any {
		index(t)
		return ten.Root.Get("/v1/wallets/"+id+"/transactions").Expect(t, 200).JSON(t)
	}, func(m map[string]any) bool { return m["total"] == float64(1) })
	send := ten.Root.Post("/v1/wallets/"+id+"/send", map[string]any{"currency": "USDC", "amount": 1,
		"destination": newOwner(t).address.Hex()}).Expect(t, 201).JSON(t)
	newest := send["transaction_id"].(string)
	seedCancelledSends(t, newest, seededPayments)
	all := seededPayments + 2

	for _, path := range []string{"/v1/wallets/" + id + "/transactions", "/v1/transactions"} {
		first, total, more := transactions(t, ten.Root, path+"?limit=100")
		if total != all || !more || len(first) != 100 || first[0]["id"] != newest {
			t.Fatalf("%s first page: total %d has_more %v, %d rows starting %s", path, total, more, len(first), ids(first[:1]))
		}
		last, total, more := transactions(t, ten.Root, path+"?limit=100&offset=1000")
		if total != all || more || len(last) != all-1000 {
			t.Fatalf("%s last page: total %d has_more %v, %d rows", path, total, more, len(last))
		}
		if oldest := last[len(last)-1]; oldest["id"] != fmt.Sprintf("%s_%04d", newest, seededPayments) ||
			oldest["amount"] != fmt.Sprintf("0.%06d", seededPayments) || oldest["status"] != "cancelled" {
			t.Fatalf("%s oldest row: %v", path, oldest)
		}
		if page, total, more := transactions(t, ten.Root, path+"?status=cancelled&limit=5&offset=1000"); total != seededPayments || more || len(page) != 4 {
			t.Fatalf("%s cancelled: total %d has_more %v %s", path, total, more, ids(page))
		}
		if page, total, _ := transactions(t, ten.Root, path+"?status=awaiting_signature"); total != 1 || len(page) != 1 || page[0]["id"] != newest {
			t.Fatalf("%s awaiting: total %d %s", path, total, ids(page))
		}
	}
	// A date window over the oldest rows: the ten seeded 995 to 1004 seconds before the send
	// (from inclusive, to exclusive).
	created, err := time.Parse(time.RFC3339Nano, ten.Root.Get("/v1/payments/"+newest).Expect(t, 200).JSON(t)["createdAt"].(string))
	if err != nil {
		t.Fatal(err)
	}
	from := url.QueryEscape(created.Add(-seededPayments * time.Second).Format(time.RFC3339Nano))
	to := url.QueryEscape(created.Add(-(seededPayments - 10) * time.Second).Format(time.RFC3339Nano))
	page, total, more := transactions(t, ten.Root, "/v1/transactions?from_date="+from+"&to_date="+to)
	if total != 10 || more || len(page) != 10 || page[9]["id"] != fmt.Sprintf("%s_%04d", newest, seededPayments) {
		t.Fatalf("date window: total %d has_more %v %s", total, more, ids(page))
	}
	// Paging reaches past 1000 (offset 1001 is the next-to-last row of this history) and stays
	// bounded: past offset 10000 is refused, not read.
	if page, total, more := transactions(t, ten.Root, "/v1/transactions?offset=1001&limit=1"); total != all || !more || len(page) != 1 {
		t.Fatalf("offset 1001: total %d has_more %v %s", total, more, ids(page))
	}
	transactions(t, ten.Root, "/v1/transactions?offset=10000")
	ten.Root.Get("/v1/transactions?offset=10001").Expect(t, 400)
}
