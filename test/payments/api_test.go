package payments

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// putHandle names w with handle: through the directory API once it is served, else the store.
func putHandle(t *testing.T, ten *harness.Tenant, w testWallet, handle string) {
	t.Helper()
	if wiring.Features["handles"] {
		ten.Root.Do("PUT", "/v1/directory/handle", map[string]any{"handle": handle, "walletId": w.ID}).Expect(t, 200)
		return
	}
	now := time.Now().UTC()
	err := env().Service.Store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		_, err := tx.Handles().PutHandle(ctx, ports.Handle{Environment: "TEST", Handle: handle, TenantID: ten.ID,
			WalletID: w.ID, CreatedAt: now, UpdatedAt: now})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// addMember invites and accepts a member of ten with the given email and signer.
func addMember(t *testing.T, ten *harness.Tenant, email string, signer owner) {
	t.Helper()
	inv := ten.Session.Post("/v1/tenants/members", map[string]any{"email": email}).Expect(t, 201).JSON(t)
	env().AcceptInvite(t, email, inv["inviteToken"].(string), map[string]any{"signerAddress": signer.address.Hex()}).Expect(t, 200)
}

func TestPayments_Destinations(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	other := env().NewTenant(t)
	source := newWallet(t, ten, newOwners(t, 1), 1, "")
	sibling := newWallet(t, ten, newOwners(t, 1), 1, "")
	foreign := newWallet(t, other, newOwners(t, 1), 1, "")
	base := func(dest map[string]any) map[string]any {
		return map[string]any{"sourceWalletId": source.ID, "destination": dest, "amount": map[string]any{"value": "1"}}
	}

	t.Run("wallet of the same tenant", func(t *testing.T) {
		p := propose(t, ten.Root, base(map[string]any{"type": "wallet", "walletId": sibling.ID}))
		if p["destinationType"] != "wallet" || p["destinationAddress"] != sibling.Address.Hex() || p["destinationChainId"] != float64(84532) {
			t.Fatalf("wallet destination: %v", p)
		}
		m := ten.Root.Post("/v1/payments", base(map[string]any{"type": "wallet", "walletId": foreign.ID})).ExpectError(t, 422, "DESTINATION_NOT_RESOLVED")
		if d := m["details"].(map[string]any); d["reason"] != "WALLET_NOT_FOUND" || d["field"] != "destination.walletId" {
			t.Fatalf("another tenant's wallet: %v", d)
		}
		m = ten.Root.Post("/v1/payments", base(map[string]any{"type": "wallet", "walletId": source.ID})).ExpectError(t, 400, "VALIDATION_FAILED")
		if harness.Field(m, "destination") == "" {
			t.Fatalf("paying the source itself: %v", m)
		}
	})

	t.Run("handle of another tenant", func(t *testing.T) {
		handle := "shop" + other.ID[len(other.ID)-8:]
		putHandle(t, other, foreign, handle)
		p := propose(t, ten.Root, base(map[string]any{"type": "handle", "handle": "@" + handle}))
		if p["destinationType"] != "handle" || p["destinationHandle"] != handle || p["destinationAddress"] != foreign.Address.Hex() {
			t.Fatalf("handle destination: %v", p)
		}
		m := ten.Root.Post("/v1/payments", base(map[string]any{"type": "handle", "handle": "nobody-" + handle})).ExpectError(t, 422, "DESTINATION_NOT_RESOLVED")
		if d := m["details"].(map[string]any); d["reason"] != "HANDLE_NOT_FOUND" {
			t.Fatalf("unknown handle: %v", d)
		}
	})

	t.Run("email of a member", func(t *testing.T) {
		signer := newOwners(t, 1)[0]
		addMember(t, ten, "treasurer@example.com", signer)
		owned := newWallet(t, ten, []owner{signer, newOwners(t, 1)[0]}, 1, "")
		p := propose(t, ten.Root, base(map[string]any{"type": "email", "email": "Treasurer@Example.com"}))
		if p["destinationType"] != "email" || p["destinationAddress"] != owned.Address.Hex() {
			t.Fatalf("email destination: %v (want %s)", p, owned.Address.Hex())
		}
		for email, reason := range map[string]string{
			"stranger@example.com":   "EMAIL_NOT_A_MEMBER",
			"walletless@example.com": "MEMBER_HAS_NO_WALLET",
		} {
			if email == "walletless@example.com" {
				addMember(t, ten, email, newOwners(t, 1)[0])
			}
			m := ten.Root.Post("/v1/payments", base(map[string]any{"type": "email", "email": email})).ExpectError(t, 422, "DESTINATION_NOT_RESOLVED")
			if d := m["details"].(map[string]any); d["reason"] != reason || d["field"] != "destination.email" {
				t.Fatalf("%s: %v", email, d)
			}
		}
	})
}

func TestPayments_Validation(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten, newOwners(t, 1), 1, "")
	to := randomAddress(t).Hex()
	address := map[string]any{"type": "address", "address": to, "chainId": 84532}
	body := func(edit func(map[string]any)) map[string]any {
		b := map[string]any{"sourceWalletId": w.ID, "destination": copyMap(address), "amount": map[string]any{"value": "1.5"}}
		edit(b)
		return b
	}
	dest := func(b map[string]any) map[string]any { return b["destination"].(map[string]any) }
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"zero amount", body(func(b map[string]any) { b["amount"] = map[string]any{"value": "0"} }), "amount.value"},
		{"negative amount", body(func(b map[string]any) { b["amount"] = map[string]any{"value": "-3"} }), "amount.value"},
		{"seven fraction digits", body(func(b map[string]any) { b["amount"] = map[string]any{"value": "0.0000001"} }), "amount.value"},
		{"not a decimal", body(func(b map[string]any) { b["amount"] = map[string]any{"value": "1e3x"} }), "amount.value"},
		{"beyond int64", body(func(b map[string]any) { b["amount"] = map[string]any{"value": "10000000000000"} }), "amount.value"},
		{"amount missing", body(func(b map[string]any) { delete(b, "amount") }), "amount.value"},
		{"amount as a number", body(func(b map[string]any) { b["amount"] = map[string]any{"value": 1.5} }), "amount.value"},
		// A Safe payment's amount that is not an object (a decimal string, as other amounts are;
		// null) is refused as the Safe payment's field: only a JSON number selects a checkout.
		{"amount as a bare string", body(func(b map[string]any) { b["amount"] = "1.5" }), "amount"},
		{"amount null", body(func(b map[string]any) { b["amount"] = nil }), "amount.value"},
		{"other asset", body(func(b map[string]any) { b["amount"] = map[string]any{"value": "1", "asset": "eth"} }), "amount.asset"},
		{"unknown destination type", body(func(b map[string]any) { dest(b)["type"] = "iban" }), "destination.type"},
		{"destination missing", body(func(b map[string]any) { delete(b, "destination") }), "destination"},
		{"chainId of another chain", body(func(b map[string]any) { dest(b)["chainId"] = 8453 }), "destination.chainId"},
		{"chainId missing", body(func(b map[string]any) { delete(dest(b), "chainId") }), "destination.chainId"},
		{"malformed address", body(func(b map[string]any) { dest(b)["address"] = "0xabc" }), "destination.address"},
		{"member of another type", body(func(b map[string]any) { dest(b)["handle"] = "shop" }), "destination.handle"},
		{"unknown field", body(func(b map[string]any) { b["amountUsd"] = "1" }), "amountUsd"},
		{"source missing", body(func(b map[string]any) { delete(b, "sourceWalletId") }), "sourceWalletId"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := ten.Root.Post("/v1/payments", c.body).ExpectError(t, 400, "VALIDATION_FAILED")
			if harness.Field(m, c.field) == "" {
				t.Fatalf("details.fields has no %s: %v", c.field, m["details"])
			}
		})
	}
	t.Run("several fields at once", func(t *testing.T) {
		m := ten.Root.Post("/v1/payments", map[string]any{"destination": map[string]any{"type": "nope"}, "amount": map[string]any{"value": "0"}}).
			ExpectError(t, 400, "VALIDATION_FAILED")
		for _, f := range []string{"sourceWalletId", "destination.type", "amount.value"} {
			if harness.Field(m, f) == "" {
				t.Errorf("missing %s in %v", f, m["details"])
			}
		}
	})
	t.Run("another tenant's wallet", func(t *testing.T) {
		other := env().NewTenant(t)
		other.Root.Post("/v1/payments", body(func(map[string]any) {})).ExpectError(t, 404, "WALLET_NOT_FOUND")
	})
	t.Run("undeployed wallet", func(t *testing.T) {
		pending := walletThroughStore(t, ten.ID, newOwners(t, 1), 1, wallet.StatusPendingDeployment)
		m := ten.Root.Post("/v1/payments", body(func(b map[string]any) { b["sourceWalletId"] = pending.ID })).ExpectError(t, 409, "INVALID_STATE")
		if m["details"].(map[string]any)["walletStatus"] != "PENDING_DEPLOYMENT" {
			t.Fatalf("details %v", m["details"])
		}
	})
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestPayments_ListGetAndIsolation(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten, newOwners(t, 1), 1, "")
	first := propose(t, ten.Root, toAddress(w, randomAddress(t), "1"))
	second := propose(t, ten.Root, toAddress(w, randomAddress(t), "2"))

	list := ten.Root.Get("/v1/payments").Expect(t, 200).JSON(t)
	payments := list["payments"].([]any)
	if list["total"] != float64(2) || len(payments) != 2 || payments[0].(map[string]any)["id"] != second["id"] {
		t.Fatalf("list (newest first): %v", list)
	}
	page := ten.Root.Get("/v1/payments?skip=1&take=1").Expect(t, 200).JSON(t)
	if page["total"] != float64(2) || page["payments"].([]any)[0].(map[string]any)["id"] != first["id"] {
		t.Fatalf("page: %v", page)
	}
	ten.Root.Get("/v1/payments?take=101").ExpectError(t, 400, "VALIDATION_FAILED")
	got := ten.Root.Get("/v1/payments/"+first["id"].(string)).Expect(t, 200).JSON(t)
	if got["safeTxHash"] != first["safeTxHash"] || got["amount"] != "1" {
		t.Fatalf("get: %v", got)
	}

	// Another tenant, and the same tenant's LIVE key, see nothing.
	other := env().NewTenant(t)
	id := first["id"].(string)
	other.Root.Get("/v1/payments/"+id).ExpectError(t, 404, "PAYMENT_NOT_FOUND")
	other.Root.Post("/v1/payments/"+id+"/sign", map[string]any{"signature": signature(t, first, w.Owners[0])}).ExpectError(t, 404, "PAYMENT_NOT_FOUND")
	other.Root.Post("/v1/payments/"+id+"/execute", nil).ExpectError(t, 404, "PAYMENT_NOT_FOUND")
	other.Root.Post("/v1/payments/"+id+"/cancel", nil).ExpectError(t, 404, "PAYMENT_NOT_FOUND")
	if total := other.Root.Get("/v1/payments").Expect(t, 200).JSON(t)["total"]; total != float64(0) {
		t.Fatalf("another tenant lists %v payments", total)
	}
	live := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "live", "environment": "live", "scopes": []string{"*"}}))
	live.Get("/v1/payments/"+id).ExpectError(t, 404, "PAYMENT_NOT_FOUND")
	live.Post("/v1/payments", toAddress(w, randomAddress(t), "1")).ExpectError(t, 503, "CHAIN_UNAVAILABLE")

	// Scopes: reading needs payments:read, proposing payments:create, executing payments:execute.
	reader := env().Client(t).WithKey(env().NewKey(t, ten.Root, map[string]any{"name": "reader", "scopes": []string{"payments:read"}}))
	reader.Get("/v1/payments/"+id).Expect(t, 200)
	reader.Post("/v1/payments", toAddress(w, randomAddress(t), "1")).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	creator := env().Client(t).WithKey(env().NewKey(t, ten.Root, map[string]any{"name": "creator", "scopes": []string{"payments:create"}}))
	creator.Post("/v1/payments/"+id+"/execute", nil).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	creator.Get("/v1/payments/"+id).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
}

// TestPayments_IdempotentPropose: ten concurrent proposals under one Idempotency-Key create one
// payment; the others are told the request is in progress or get its replay.
func TestPayments_IdempotentPropose(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten, newOwners(t, 1), 1, "")
	body := toAddress(w, randomAddress(t), "3.25")
	c := ten.Root.With("Idempotency-Key", "propose-once")
	var mu sync.Mutex
	ids := map[string]bool{}
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := c.Post("/v1/payments", body)
			switch r.Status {
			case 201:
				mu.Lock()
				ids[r.JSON(t)["id"].(string)] = true
				mu.Unlock()
			default:
				r.ExpectError(t, 409, "IDEMPOTENCY_REQUEST_IN_PROGRESS")
			}
		}()
	}
	wg.Wait()
	replay := c.Post("/v1/payments", body).Expect(t, 201)
	if replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatal("retry was not a replay")
	}
	ids[replay.JSON(t)["id"].(string)] = true
	if len(ids) != 1 {
		t.Fatalf("one key produced payments %v", ids)
	}
	if total := ten.Root.Get("/v1/payments").Expect(t, 200).JSON(t)["total"]; total != float64(1) {
		t.Fatalf("%v payments exist, want 1", total)
	}
	if n := propose(t, ten.Root, toAddress(w, randomAddress(t), "1"))["safeNonce"]; n != float64(1) {
		t.Fatalf("the next proposal has nonce %v, want 1", n)
	}
}

// TestPayments_QueueFullIsNotStoredUnderTheIdempotencyKey: PAYMENT_QUEUE_FULL tells the client
// to retry once the queue drains, so the refusal is not stored: the same Idempotency-Key, sent
// again after a queued payment is cancelled, proposes the payment.
func TestPayments_QueueFullIsNotStoredUnderTheIdempotencyKey(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten, newOwners(t, 1), 1, "")
	var newest map[string]any
	for i := 0; i < safepay.MaxQueued; i++ {
		newest = propose(t, ten.Root, toAddress(w, randomAddress(t), "1"))
	}
	body := toAddress(w, randomAddress(t), "2")
	c := ten.Root.With("Idempotency-Key", "propose-when-full")
	refused := c.Post("/v1/payments", body)
	refused.ExpectError(t, 409, "PAYMENT_QUEUE_FULL")
	again := c.Post("/v1/payments", body)
	again.ExpectError(t, 409, "PAYMENT_QUEUE_FULL")
	if again.Header.Get("Idempotent-Replayed") != "" {
		t.Fatal("a retryable refusal was stored and replayed")
	}
	// Only the newest queued payment can be cancelled; that frees its nonce.
	ten.Root.Post("/v1/payments/"+newest["id"].(string)+"/cancel", nil).Expect(t, 200)
	created := c.Post("/v1/payments", body).Expect(t, 201)
	if created.Header.Get("Idempotent-Replayed") != "" {
		t.Fatal("the retry after the queue drained was a replay")
	}
	c.Post("/v1/payments", body).Expect(t, 201)
}
