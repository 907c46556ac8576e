package secondary

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSecondary_WalletJourney: a wallet created with the secondary body is a real Safe wallet;
// funded from the faucet its balance is the faucet amount; a send is a Safe payment awaiting
// its owner's signature; the transaction lists show the deposit (from the ledger mirror) and the
// send (the Safe payment), once each, with paging and filters.
func TestSecondary_WalletJourney(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o := newOwner(t)
	created := secondaryWallet(t, ten.Root, o, "cus_journey")
	id, _ := created["wallet_id"].(string)
	addresses, _ := created["addresses"].(map[string]any)
	if !strings.HasPrefix(id, "wal_") || len(addresses) != 2 || addresses["USDC"] == nil || addresses["USDC"] != addresses["ETH"] || created["created_at"] == nil {
		t.Fatalf("created: %v", created)
	}
	// The same wallet through the canonical surface: a 1-of-1 Safe named after the customer.
	canonical := ten.Root.Get("/v1/wallets/"+id).Expect(t, 200).JSON(t)
	owners, _ := canonical["owners"].([]any)
	if canonical["name"] != "cus_journey" || canonical["threshold"] != float64(1) || canonical["address"] != addresses["USDC"] || len(owners) != 1 ||
		!strings.EqualFold(owners[0].(map[string]any)["address"].(string), o.address.Hex()) {
		t.Fatalf("canonical view: %v", canonical)
	}
	deployed(t, ten.Root, id)
	fund(t, ten.Root, id, "250")

	bal := ten.Root.Get("/v1/wallets/"+id+"/balance").Expect(t, 200).JSON(t)
	lines, _ := bal["balances"].([]any)
	if bal["wallet_id"] != id || bal["total_usd_value"] != "250" || len(lines) != 2 {
		t.Fatalf("balance: %v", bal)
	}
	for _, raw := range lines {
		l := raw.(map[string]any)
		switch l["currency"] {
		case "USDC":
			if l["amount"] != "250" || l["usd_value"] != "250" {
				t.Errorf("USDC line %v", l)
			}
		case "ETH":
			if l["usd_value"] != nil {
				t.Errorf("ETH line %v: no price is held, usd_value is null", l)
			}
		}
	}

	// The deposit reaches the history once the indexer has mirrored it into the ledger.
	path := "/v1/wallets/" + id + "/transactions"
	poll(t, "the deposit in the history", func() map[string]any {
		index(t)
		return ten.Root.Get(path).Expect(t, 200).JSON(t)
	}, func(m map[string]any) bool { return m["total"] == float64(1) })

	dest := newOwner(t).address.Hex()
	send := ten.Root.With("Idempotency-Key", "journey-send").
		Post("/v1/wallets/"+id+"/send", map[string]any{"currency": "USDC", "amount": 10.5, "destination": dest, "note": "rent"}).Expect(t, 201).JSON(t)
	txID, _ := send["transaction_id"].(string)
	if !strings.HasPrefix(txID, "pay_") || send["status"] != "awaiting_signature" || send["transaction_hash"] != nil || send["estimated_confirmation"] != nil {
		t.Fatalf("send: %v", send)
	}
	// A retry with the same key replays the send; the Safe payment is the canonical one.
	again := ten.Root.With("Idempotency-Key", "journey-send").
		Post("/v1/wallets/"+id+"/send", map[string]any{"currency": "USDC", "amount": 10.5, "destination": dest, "note": "rent"}).Expect(t, 201).JSON(t)
	if again["transaction_id"] != txID {
		t.Fatalf("retry: %v, want %s", again, txID)
	}
	pay := ten.Root.Get("/v1/payments/"+txID).Expect(t, 200).JSON(t)
	if pay["status"] != "AWAITING_SIGNATURE" || pay["memo"] != "rent" {
		t.Fatalf("payment: %v", pay)
	}

	data, total, hasMore := transactions(t, ten.Root, path)
	if hasMore || len(data) != 2 || total != 2 {
		t.Fatalf("history: %s", ids(data))
	}
	byType := map[string]map[string]any{}
	for _, d := range data {
		byType[d["type"].(string)] = d
	}
	if d := byType["payment"]; d == nil || d["amount"] != "250" || d["status"] != "completed" || d["transaction_hash"] == nil || d["currency"] != "USDC" || d["wallet_id"] != id {
		t.Errorf("deposit: %v", d)
	}
	if d := byType["withdrawal"]; d == nil || d["id"] != txID || d["amount"] != "10.5" || d["status"] != "awaiting_signature" ||
		d["note"] != "rent" || !strings.EqualFold(d["counterparty"].(string), dest) {
		t.Errorf("send: %v", d)
	}
	if data[0]["id"] != txID {
		t.Errorf("newest first: %s", ids(data))
	}

	// Paging and filters.
	page, total, more := transactions(t, ten.Root, path+"?limit=1")
	if len(page) != 1 || total != 2 || !more || page[0]["id"] != txID {
		t.Errorf("limit=1: %s total %d has_more %v", ids(page), total, more)
	}
	page, total, more = transactions(t, ten.Root, path+"?limit=1&offset=1")
	if len(page) != 1 || total != 2 || more || page[0]["type"] != "payment" {
		t.Errorf("offset=1: %s total %d has_more %v", ids(page), total, more)
	}
	page, total, more = transactions(t, ten.Root, path+"?offset=5")
	if len(page) != 0 || total != 2 || more {
		t.Errorf("offset past the end: %s total %d has_more %v", ids(page), total, more)
	}
	for query, want := range map[string]int{"?type=payment": 1, "?type=withdrawal": 1, "?type=refund": 0,
		"?status=awaiting_signature": 1, "?status=completed": 1, "?currency=usdc": 2} {
		if page, total, _ := transactions(t, ten.Root, path+query); total != want || len(page) != want {
			t.Errorf("%s: %s total %d, want %d", query, ids(page), total, want)
		}
	}

	// The tenant-wide list, with its date window.
	page, total, _ = transactions(t, ten.Root, "/v1/transactions")
	if total != 2 || len(page) != 2 {
		t.Errorf("/v1/transactions: %s", ids(page))
	}
	tomorrow := time.Now().UTC().Add(24 * time.Hour).Format(time.DateOnly)
	for query, want := range map[string]int{"?from_date=" + tomorrow: 0, "?to_date=2000-01-01": 0,
		"?from_date=2000-01-01&to_date=" + tomorrow: 2, "?status=awaiting_signature": 1} {
		if page, total, _ := transactions(t, ten.Root, "/v1/transactions"+query); total != want || len(page) != want {
			t.Errorf("/v1/transactions%s: %s total %d, want %d", query, ids(page), total, want)
		}
	}

	// The owner signs; the payment executes; the history shows it completed with its hash,
	// once (the mirror's outgoing line is the payment itself).
	ten.Root.Post("/v1/payments/"+txID+"/sign", map[string]any{"signature": signature(t, pay["safeTxHash"].(string), o)}).Expect(t, 200)
	poll(t, "execution", func() map[string]any { return ten.Root.Get("/v1/payments/"+txID).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "COMPLETED" || m["status"] == "FAILED" })
	if bal := ten.Root.Get("/v1/wallets/"+id+"/balance").Expect(t, 200).JSON(t); bal["total_usd_value"] != "239.5" {
		t.Fatalf("balance after the send: %v", bal)
	}
	// Once the mirror holds the outgoing transfer (the ledger's reconciliation shows it), the
	// history still lists the send once: as the Safe payment, completed, with its hash.
	poll(t, "the executed send in the mirror", func() map[string]any {
		index(t)
		return ten.Root.Get("/v1/ledger/reconciliation").Expect(t, 200).JSON(t)
	}, func(m map[string]any) bool {
		for _, w := range m["wallets"].([]any) {
			if w := w.(map[string]any); w["walletId"] == id && w["ledgerBalance"] == "239.5" {
				return true
			}
		}
		return false
	})
	data, total, _ = transactions(t, ten.Root, path)
	if total != 2 || len(data) != 2 || data[0]["id"] != txID || data[0]["status"] != "completed" || data[0]["transaction_hash"] == nil {
		t.Fatalf("after execution: %s (total %d)", ids(data), total)
	}
}

// TestSecondary_CanonicalBodyUnchanged: POST /v1/wallets with the canonical body answers the
// canonical wallet and the canonical envelope; only a secondary-shaped body selects the other.
func TestSecondary_CanonicalBodyUnchanged(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o := newOwner(t)
	w := ten.Root.Post("/v1/wallets", map[string]any{"name": "canonical", "threshold": 1,
		"owners": []map[string]any{{"address": o.address.Hex(), "role": "ADMIN_OWNER"}}}).Expect(t, 201).JSON(t)
	if w["id"] == nil || w["wallet_id"] != nil || w["status"] != "PENDING_DEPLOYMENT" {
		t.Fatalf("canonical create: %v", w)
	}
	ten.Root.Post("/v1/wallets", map[string]any{}).ExpectError(t, 400, "VALIDATION_FAILED")
	ten.Root.Post("/v1/wallets", map[string]any{"name": "x", "owners": []any{}, "customer": 1}).ExpectError(t, 400, "VALIDATION_FAILED")
	env().Client(t).Post("/v1/wallets", map[string]any{"name": "x"}).ExpectError(t, 401, "UNAUTHENTICATED")
	// A secondary body mixing in a canonical field is refused in the secondary shape.
	e := secondaryError(t, ten.Root.Post("/v1/wallets", map[string]any{"customer_id": "c", "currencies": []string{"USDC"},
		"owner_address": o.address.Hex(), "name": "x"}), 400, "validation_failed")
	if fields, _ := e["details"].(map[string]any)["fields"].(map[string]any); fields["name"] == nil {
		t.Errorf("details: %v", e["details"])
	}
	secondaryError(t, env().Client(t).Post("/v1/wallets", map[string]any{"customer_id": "c"}), 401, "invalid_api_key")
}

// TestSecondary_Errors: each secondary code where it is reachable, in the secondary shape.
func TestSecondary_Errors(t *testing.T) {
	t.Parallel()
	ten, other := env().NewTenant(t), env().NewTenant(t)
	o := newOwner(t)
	id := secondaryWallet(t, ten.Root, o, "cus_errors")["wallet_id"].(string)
	dest := newOwner(t).address.Hex()
	body := map[string]any{"currency": "USDC", "amount": "5", "destination": dest}

	// invalid_api_key: no key, and a wrong key.
	for _, path := range []string{"/v1/wallets/" + id + "/balance", "/v1/wallets/" + id + "/transactions", "/v1/transactions"} {
		secondaryError(t, env().Client(t).Get(path), 401, "invalid_api_key")
		secondaryError(t, env().Client(t).WithKey("csk_test_nope_secret").Get(path), 401, "invalid_api_key")
	}
	secondaryError(t, env().Client(t).Post("/v1/wallets/"+id+"/send", body), 401, "invalid_api_key")

	// wallet_not_found: another tenant's wallet, and a made-up id, answer alike.
	for _, wid := range []string{id, "wal_missing"} {
		secondaryError(t, other.Root.Get("/v1/wallets/"+wid+"/balance"), 404, "wallet_not_found")
		secondaryError(t, other.Root.Get("/v1/wallets/"+wid+"/transactions"), 404, "wallet_not_found")
		secondaryError(t, other.Root.Post("/v1/wallets/"+wid+"/send", body), 404, "wallet_not_found")
	}

	// insufficient_funds: the wallet holds nothing; nothing is proposed.
	e := secondaryError(t, ten.Root.Post("/v1/wallets/"+id+"/send", body), 422, "insufficient_funds")
	if d := e["details"].(map[string]any); d["available"] != "0" || d["requested"] != "5" || d["canonical_code"] != "INSUFFICIENT_FUNDS" {
		t.Errorf("details %v", d)
	}
	if list := ten.Root.Get("/v1/payments").Expect(t, 200).JSON(t); list["total"] != float64(0) {
		t.Fatalf("a refused send proposed a payment: %v", list)
	}

	// invalid_address: the destination, and a malformed owner (without one the wallet is custodial).
	for _, bad := range []string{"", "0x1234", "not an address", strings.Repeat("0", 42)} {
		secondaryError(t, ten.Root.Post("/v1/wallets/"+id+"/send", map[string]any{"currency": "USDC", "amount": "5", "destination": bad}), 400, "invalid_address")
	}
	secondaryError(t, ten.Root.Post("/v1/wallets", map[string]any{"customer_id": "c", "currencies": []string{"USDC"}, "owner_address": "0xabc"}), 400, "invalid_address")

	// Other refusals fall back to the canonical code in lower case, field named.
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"currency": "EUR", "amount": "5", "destination": dest}, "currency"},
		{map[string]any{"currency": "USDC", "amount": "0", "destination": dest}, "amount"},
		{map[string]any{"currency": "USDC", "amount": "1.0000001", "destination": dest}, "amount"},
		{map[string]any{"currency": "USDC", "amount": "-1", "destination": dest}, "amount"},
		{map[string]any{"currency": "USDC", "amount": "5", "destination": dest, "note": strings.Repeat("n", 501)}, "note"},
		{map[string]any{"currency": "USDC", "amount": "5", "destination": dest, "memo": "x"}, "memo"},
	} {
		e := secondaryError(t, ten.Root.Post("/v1/wallets/"+id+"/send", c.body), 400, "validation_failed")
		if fields, _ := e["details"].(map[string]any)["fields"].(map[string]any); fields[c.field] == nil {
			t.Errorf("%v: details %v, want field %s", c.body, e["details"], c.field)
		}
	}
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"customer_id": "", "currencies": []string{"USDC"}, "owner_address": o.address.Hex()}, "customer_id"},
		{map[string]any{"customer_id": "c", "currencies": []string{}, "owner_address": o.address.Hex()}, "currencies"},
		{map[string]any{"customer_id": "c", "currencies": []string{"BTC"}, "owner_address": o.address.Hex()}, "currencies"},
	} {
		e := secondaryError(t, ten.Root.Post("/v1/wallets", c.body), 400, "validation_failed")
		if fields, _ := e["details"].(map[string]any)["fields"].(map[string]any); fields[c.field] == nil {
			t.Errorf("%v: details %v, want field %s", c.body, e["details"], c.field)
		}
	}
	for _, q := range []string{"limit=0", "limit=101", "offset=10001", "type=deposit", "status=done", "currency=ETH"} {
		secondaryError(t, ten.Root.Get("/v1/wallets/"+id+"/transactions?"+q), 400, "validation_failed")
	}
	// A query refused before routing (NUL) still answers in the secondary shape.
	secondaryError(t, ten.Root.Get("/v1/wallets/"+id+"/balance?x=%00"), 400, "validation_failed")
	ten.Root.Get("/v1/wallets/"+id+"?x=%00").ExpectError(t, 400, "VALIDATION_FAILED")
	for _, q := range []string{"from_date=yesterday", "to_date=2026-13-01", "from_date=2026-02-02&to_date=2026-02-01"} {
		secondaryError(t, ten.Root.Get("/v1/transactions?"+q), 400, "validation_failed")
	}

	// insufficient_scope: a read-only key may not send, and a payments-only key may not list.
	reader := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "reader", "scopes": []string{"wallets:read", "payments:read"}}))
	e = secondaryError(t, reader.Post("/v1/wallets/"+id+"/send", body), 403, "insufficient_scope")
	if e["details"].(map[string]any)["required"] != "payments:create" {
		t.Errorf("details %v", e["details"])
	}
	payer := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "payer", "scopes": []string{"wallets:read"}}))
	secondaryError(t, payer.Get("/v1/transactions"), 403, "insufficient_scope")
	reader.Get("/v1/wallets/"+id+"/balance").Expect(t, 200)
}

// TestSecondary_RateLimited: rate_limit_exceeded with Retry-After.
func TestSecondary_RateLimited(t *testing.T) {
	t.Parallel()
	limited := newLimited(t)
	ten := limited.NewTenant(t)
	for i := 0; i < 3; i++ {
		ten.Root.Get("/v1/transactions").Expect(t, 200)
	}
	r := ten.Root.Get("/v1/transactions")
	secondaryError(t, r, 429, "rate_limit_exceeded")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
}

// TestSecondary_ParallelSends: parallel sends on one balance each propose their own Safe
// payment (a proposal reserves nothing on chain; the Safe's nonces order them), and each retry
// with its key replays it.
func TestSecondary_ParallelSends(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o := newOwner(t)
	id := secondaryWallet(t, ten.Root, o, "cus_parallel")["wallet_id"].(string)
	deployed(t, ten.Root, id)
	fund(t, ten.Root, id, "30")
	const n = 3
	got := make([]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := ten.Root.With("Idempotency-Key", "parallel-"+string(rune('a'+i))).
				Post("/v1/wallets/"+id+"/send", map[string]any{"currency": "USDC", "amount": "10", "destination": newOwner(t).address.Hex()})
			if r.Status == 201 {
				got[i], _ = r.JSON(t)["transaction_id"].(string)
			} else {
				t.Errorf("send %d: %d %s", i, r.Status, r.Body)
			}
		}(i)
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, g := range got {
		if g == "" || seen[g] {
			t.Fatalf("transaction ids %v", got)
		}
		seen[g] = true
	}
	if _, total, _ := transactions(t, ten.Root, "/v1/wallets/"+id+"/transactions?type=withdrawal"); total != n {
		t.Fatalf("withdrawals: %d, want %d", total, n)
	}
}
