package cards

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

func TestCards_IssueFromWallet(t *testing.T) {
	t.Parallel()
	ten, other := env().NewTenant(t), env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 0)
	c := issue(t, ten.Root, w, map[string]any{"dailyUsd": "100", "blockedMcc": []string{"7995"}})
	if c["status"] != "active" || c["safeAddress"] != w.Address.Hex() || c["walletId"] != w.ID || len(c["last4"].(string)) != 4 ||
		c["issuerCardId"] == "" || c["cardholderId"] != nil || c["agentId"] != nil {
		t.Fatalf("card: %v", c)
	}
	id := c["cardId"].(string)
	if got := ten.Root.Get("/v1/cards/"+id).Expect(t, 200).JSON(t); got["cardId"] != id || got["issuerCardId"] != c["issuerCardId"] {
		t.Fatalf("get: %v", got)
	}
	list := ten.Root.Get("/v1/cards?take=10").Expect(t, 200).JSON(t)
	if list["total"].(float64) != 1 || list["cards"].([]any)[0].(map[string]any)["cardId"] != id {
		t.Fatalf("list: %v", list)
	}

	pending := newWallet(t, ten.ID, false, 0)
	m := ten.Root.Post("/v1/wallets/"+pending.ID+"/cards", map[string]any{}).ExpectError(t, http.StatusConflict, "WALLET_NOT_DEPLOYED")
	if m["details"].(map[string]any)["walletStatus"] != "PENDING_DEPLOYMENT" {
		t.Fatalf("details: %v", m)
	}
	legacy := newLegacyWallet(t, ten.ID)
	ten.Root.Post("/v1/wallets/"+legacy.ID+"/cards", nil).ExpectError(t, http.StatusConflict, "CARD_MODULE_NOT_ENABLED")

	bad := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"agentId": ""}, "agentId"},
		{map[string]any{"dailyUsd": "0"}, "dailyUsd"},
		{map[string]any{"weeklyUsd": "1.0000001"}, "weeklyUsd"},
		{map[string]any{"blockedMcc": []string{"5"}}, "blockedMcc"},
		{map[string]any{"allowedMcc": []string{"12345"}}, "allowedMcc"},
	}
	for _, b := range bad {
		m := ten.Root.Post("/v1/wallets/"+w.ID+"/cards", b.body).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
		if harness.Field(m, b.field) == "" {
			t.Fatalf("%v does not name %s: %v", b.body, b.field, m)
		}
	}
	if list := ten.Root.Get("/v1/cards").Expect(t, 200).JSON(t); list["total"].(float64) != 1 {
		t.Fatalf("a refused issuance created a card: %v", list)
	}

	// Another tenant sees neither the wallet nor the card.
	other.Root.Post("/v1/wallets/"+w.ID+"/cards", nil).ExpectError(t, http.StatusNotFound, "WALLET_NOT_FOUND")
	other.Root.Get("/v1/cards/"+id).ExpectError(t, http.StatusNotFound, "CARD_NOT_FOUND")
	other.Root.Get("/v1/cards/"+id+"/limits").ExpectError(t, http.StatusNotFound, "CARD_NOT_FOUND")
	other.Root.Post("/v1/cards/"+id+"/freeze", nil).ExpectError(t, http.StatusNotFound, "CARD_NOT_FOUND")
	other.Root.Post("/v1/sandbox/cards/"+id+"/authorizations", map[string]any{"amountUsd": "1", "mcc": "5411", "merchantName": "x"}).
		ExpectError(t, http.StatusNotFound, "CARD_NOT_FOUND")
	if l := other.Root.Get("/v1/cards").Expect(t, 200).JSON(t); l["total"].(float64) != 0 {
		t.Fatalf("other tenant's list: %v", l)
	}
}

func TestCards_LimitsPutSemantics(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 0)
	id := issue(t, ten.Root, w, map[string]any{"dailyUsd": "100", "weeklyUsd": "300.5", "blockedMcc": []string{"7995"}, "allowedMcc": []string{"5411", "54"}})["cardId"].(string)
	path := "/v1/cards/" + id + "/limits"
	put := func(body any) map[string]any {
		return ten.Root.Do(http.MethodPut, path, body).Expect(t, 200).JSON(t)
	}
	got := ten.Root.Get(path).Expect(t, 200).JSON(t)
	want := map[string]any{"cardId": id, "perTransactionUsd": nil, "dailyUsd": "100", "weeklyUsd": "300.5", "monthlyUsd": nil,
		"blockedMcc": []any{"7995"}, "allowedMcc": []any{"54", "5411"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("issued limits: %v", got)
	}
	// Omitted fields keep their values.
	got = put(map[string]any{"monthlyUsd": "1000"})
	want["monthlyUsd"] = "1000"
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after monthly: %v", got)
	}
	// null clears a cap and the allowlist.
	got = put(map[string]any{"dailyUsd": nil, "allowedMcc": nil})
	want["dailyUsd"], want["allowedMcc"] = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after nulls: %v", got)
	}
	// blockedMcc replaces the list; an empty allowlist allows nothing (and is kept).
	got = put(map[string]any{"blockedMcc": []string{"5812", "5813"}, "allowedMcc": []string{}})
	want["blockedMcc"], want["allowedMcc"] = []any{"5812", "5813"}, []any{}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after replace: %v", got)
	}
	// An empty body changes nothing.
	if got = put(map[string]any{}); !reflect.DeepEqual(got, want) {
		t.Fatalf("after empty: %v", got)
	}
	bad := []struct {
		body  any
		field string
	}{
		{map[string]any{"perTransactionUsd": "0"}, "perTransactionUsd"},
		{map[string]any{"dailyUsd": "-5"}, "dailyUsd"},
		{map[string]any{"weeklyUsd": "1.1234567"}, "weeklyUsd"},
		{map[string]any{"monthlyUsd": "1e3"}, "monthlyUsd"},
		{map[string]any{"monthlyUsd": 5}, "monthlyUsd"},
		{map[string]any{"blockedMcc": []string{"abcd"}}, "blockedMcc"},
		{map[string]any{"allowedMcc": []string{"1"}}, "allowedMcc"},
		{map[string]any{"allowedMcc": "5411"}, "allowedMcc"},
		{map[string]any{"yearlyUsd": "5"}, "yearlyUsd"},
		{map[string]any{"dailyUsd": "5", "blockedMcc": []string{"123456"}}, "blockedMcc"},
	}
	for _, b := range bad {
		m := ten.Root.Do(http.MethodPut, path, b.body).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
		if harness.Field(m, b.field) == "" {
			t.Fatalf("%v does not name %s: %v", b.body, b.field, m)
		}
	}
	if got = ten.Root.Get(path).Expect(t, 200).JSON(t); !reflect.DeepEqual(got, want) {
		t.Fatalf("a refused PUT changed the limits: %v", got)
	}
}

func TestCards_FreezeUnfreeze(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 20)
	id := issue(t, ten.Root, w, nil)["cardId"].(string)
	for i := 0; i < 2; i++ { // freezing twice is a no-op
		if c := ten.Root.Post("/v1/cards/"+id+"/freeze", nil).Expect(t, 200).JSON(t); c["status"] != "inactive" || c["safeAddress"] != w.Address.Hex() {
			t.Fatalf("freeze: %v", c)
		}
	}
	if a := authorize(t, ten.Root, id, "1", "5411"); a["status"] != "DECLINED" || declineReason(a) != "CARD_INACTIVE" {
		t.Fatalf("frozen: %v", a)
	}
	if c := ten.Root.Post("/v1/cards/"+id+"/unfreeze", nil).Expect(t, 200).JSON(t); c["status"] != "active" {
		t.Fatalf("unfreeze: %v", c)
	}
	if a := authorize(t, ten.Root, id, "1", "5411"); a["status"] != "APPROVED" {
		t.Fatalf("unfrozen: %v", a)
	}
}

// TestCards_EachDeclineReason produces every decline reason once, in docs/decisions/cards.md's order, and finds
// each recorded with its reason.
func TestCards_EachDeclineReason(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 20)
	id := issue(t, ten.Root, w, map[string]any{"perTransactionUsd": "15", "blockedMcc": []string{"7995"}, "allowedMcc": []string{"5411", "7995"}})["cardId"].(string)
	limits := func(body map[string]any) { ten.Root.Do(http.MethodPut, "/v1/cards/"+id+"/limits", body).Expect(t, 200) }
	steps := []struct {
		prepare func()
		amount  string
		mcc     string
		want    string
	}{
		{nil, "1", "7995", "MCC_BLOCKED"},
		{nil, "1", "5812", "MCC_NOT_ALLOWED"},
		{nil, "16", "5411", "PER_TXN_LIMIT"},
		{func() { limits(map[string]any{"dailyUsd": "10"}) }, "11", "5411", "DAILY_CAP"},
		{func() { limits(map[string]any{"dailyUsd": nil, "weeklyUsd": "10"}) }, "11", "5411", "WEEKLY_CAP"},
		{func() { limits(map[string]any{"weeklyUsd": nil, "monthlyUsd": "10"}) }, "11", "5411", "MONTHLY_CAP"},
		{func() { limits(map[string]any{"monthlyUsd": nil}) }, "15", "5411", ""}, // approved: 15 of 20 held
		{nil, "5.000001", "5411", "INSUFFICIENT_SAFE_BALANCE"},                   // balance less open holds
		{func() { ten.Root.Post("/v1/cards/"+id+"/freeze", nil).Expect(t, 200) }, "1", "7995", "CARD_INACTIVE"},
	}
	var ids []string
	for _, s := range steps {
		if s.prepare != nil {
			s.prepare()
		}
		a := authorize(t, ten.Root, id, s.amount, s.mcc)
		ids = append(ids, a["authorizationId"].(string))
		if declineReason(a) != s.want || (s.want == "") != (a["status"] == "APPROVED") {
			t.Fatalf("%s at %s: %v, want %q", s.amount, s.mcc, a, s.want)
		}
		if s.want != "" && a["holdTransferId"] != nil {
			t.Fatalf("a decline holds nothing: %v", a)
		}
	}
	if b := mirrorBalance(t, w.ID); b.Posted != 20_000_000 || b.PendingDebits != 15_000_000 {
		t.Fatalf("mirror: %+v", b)
	}
	list := ten.Root.Get("/v1/cards/"+id+"/authorizations?take=100").Expect(t, 200).JSON(t)
	got := list["authorizations"].([]any)
	if len(got) != len(steps) {
		t.Fatalf("%d recorded, want %d", len(got), len(steps))
	}
	for i, raw := range got { // newest first
		a := raw.(map[string]any)
		s := steps[len(steps)-1-i]
		if a["authorizationId"] != ids[len(steps)-1-i] || declineReason(a) != s.want {
			t.Fatalf("recorded %d: %v, want %q", i, a, s.want)
		}
	}
}

// TestCards_ConcurrentDailyCap: 64 simultaneous authorizations of 3 USD against a 100 USD daily
// cap approve exactly 33, and hold exactly 99 USD.
func TestCards_ConcurrentDailyCap(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 1000)
	id := issue(t, ten.Root, w, map[string]any{"dailyUsd": "100"})["cardId"].(string)
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[string]int{}
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := authorize(t, ten.Root, id, "3", "5411")
			mu.Lock()
			counts[a["status"].(string)+":"+declineReason(a)]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if counts["APPROVED:"] != 33 || counts["DECLINED:DAILY_CAP"] != 31 {
		t.Fatalf("outcomes: %v", counts)
	}
	if b := mirrorBalance(t, w.ID); b.PendingDebits != 99_000_000 {
		t.Fatalf("holds: %+v", b)
	}
}

// TestCards_CaptureSettleReverse walks the authorization state machine over HTTP, with the
// windows and the ledger after each step.
func TestCards_CaptureSettleReverse(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 100)
	id := issue(t, ten.Root, w, map[string]any{"dailyUsd": "10"})["cardId"].(string)

	a := authorize(t, ten.Root, id, "10", "5411")
	if a["status"] != "APPROVED" {
		t.Fatalf("approve: %v", a)
	}
	aid := a["authorizationId"].(string)
	if d := authorize(t, ten.Root, id, "0.01", "5411"); declineReason(d) != "DAILY_CAP" {
		t.Fatalf("approval consumes the window at once: %v", d)
	}
	capture := "/v1/sandbox/card-authorizations/" + aid + "/capture"
	ten.Root.Post(capture, map[string]any{"amountUsd": "10.01"}).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	ten.Root.Post(capture, map[string]any{"amountUsd": "0"}).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	got := ten.Root.Post(capture, map[string]any{"amountUsd": "4"}).Expect(t, 200).JSON(t)
	if got["status"] != "CAPTURED" || got["capturedAmountUsd"] != "4" || got["settlementStatus"] == nil {
		t.Fatalf("capture: %v", got)
	}
	// A partial capture gives the rest back to the window: 6 more fit today, 6.01 does not.
	if d := authorize(t, ten.Root, id, "6.01", "5411"); declineReason(d) != "DAILY_CAP" {
		t.Fatalf("after partial capture: %v", d)
	}
	ten.Root.Post(capture, nil).ExpectError(t, http.StatusConflict, "INVALID_STATE")
	ten.Root.Post("/v1/sandbox/card-authorizations/"+aid+"/reverse", nil).ExpectError(t, http.StatusConflict, "INVALID_STATE")
	if b := mirrorBalance(t, w.ID); b.Posted != 96_000_000 || b.PendingDebits != 0 {
		t.Fatalf("mirror after capture: %+v", b)
	}

	// The settlement job settles the capture through the module under a reference derived
	// from the authorization.
	harness.Eventually(t, "the settlement CONFIRMED", func() bool {
		list := ten.Root.Get("/v1/cards/"+id+"/authorizations").Expect(t, 200).JSON(t)
		for _, raw := range list["authorizations"].([]any) {
			if m := raw.(map[string]any); m["authorizationId"] == aid {
				return m["settlementStatus"] == "CONFIRMED"
			}
		}
		return false
	})

	// On chain the Safe paid 4 USDC to the settlement address, and once the mirror has indexed
	// the settlement the ledger and the chain agree: zero drift.
	onchain, err := env().Chain.USDCBalance(context.Background(), w.Address)
	if err != nil || onchain.Int64() != 96_000_000 {
		t.Fatalf("Safe balance on chain: %v (%v)", onchain, err)
	}
	assertZeroDrift(t, ten.Root, w.ID, "96000000")

	// Reversal voids the hold and restores the window.
	b := authorize(t, ten.Root, id, "6", "5411")
	if b["status"] != "APPROVED" {
		t.Fatalf("6 fits: %v", b)
	}
	if d := authorize(t, ten.Root, id, "0.01", "5411"); declineReason(d) != "DAILY_CAP" {
		t.Fatalf("window full: %v", d)
	}
	rev := ten.Root.Post("/v1/sandbox/card-authorizations/"+b["authorizationId"].(string)+"/reverse", nil).Expect(t, 200).JSON(t)
	if rev["status"] != "REVERSED" {
		t.Fatalf("reverse: %v", rev)
	}
	ten.Root.Post("/v1/sandbox/card-authorizations/"+b["authorizationId"].(string)+"/reverse", nil).ExpectError(t, http.StatusConflict, "INVALID_STATE")
	ten.Root.Post("/v1/sandbox/card-authorizations/"+b["authorizationId"].(string)+"/capture", nil).ExpectError(t, http.StatusConflict, "INVALID_STATE")
	if d := authorize(t, ten.Root, id, "6", "5411"); d["status"] != "APPROVED" {
		t.Fatalf("reversal restores the window: %v", d)
	}
	if bal := mirrorBalance(t, w.ID); bal.Posted != 96_000_000 || bal.PendingDebits != 6_000_000 {
		t.Fatalf("mirror after reversal: %+v", bal)
	}
	other := env().NewTenant(t)
	other.Root.Post(capture, nil).ExpectError(t, http.StatusNotFound, "CARD_AUTHORIZATION_NOT_FOUND")
}

// TestCards_IdempotentRetries: one Idempotency-Key authorizes and captures once.
func TestCards_IdempotentRetries(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 50)
	id := issue(t, ten.Root, w, nil)["cardId"].(string)
	c := ten.Root.With("Idempotency-Key", "auth-once")
	body := map[string]any{"amountUsd": "7", "mcc": "5411", "merchantName": "Corner Shop"}
	first := c.Post("/v1/sandbox/cards/"+id+"/authorizations", body).Expect(t, 201).JSON(t)
	again := c.Post("/v1/sandbox/cards/"+id+"/authorizations", body).Expect(t, 201).JSON(t)
	if first["authorizationId"] != again["authorizationId"] {
		t.Fatalf("retry authorized twice: %v %v", first, again)
	}
	if b := mirrorBalance(t, w.ID); b.PendingDebits != 7_000_000 {
		t.Fatalf("holds: %+v", b)
	}
	cc := ten.Root.With("Idempotency-Key", "capture-once")
	path := "/v1/sandbox/card-authorizations/" + first["authorizationId"].(string) + "/capture"
	one := cc.Post(path, nil).Expect(t, 200).JSON(t)
	two := cc.Post(path, nil).Expect(t, 200).JSON(t)
	if one["status"] != "CAPTURED" || two["status"] != "CAPTURED" || one["updatedAt"] != two["updatedAt"] {
		t.Fatalf("capture retry: %v %v", one, two)
	}
	if b := mirrorBalance(t, w.ID); b.Posted != 43_000_000 || b.PendingDebits != 0 {
		t.Fatalf("mirror: %+v", b)
	}
}

func TestCards_AuthorizationValidation(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 0)
	id := issue(t, ten.Root, w, nil)["cardId"].(string)
	bad := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"mcc": "5411", "merchantName": "x"}, "amountUsd"},
		{map[string]any{"amountUsd": "0", "mcc": "5411", "merchantName": "x"}, "amountUsd"},
		{map[string]any{"amountUsd": "1", "mcc": "541", "merchantName": "x"}, "mcc"},
		{map[string]any{"amountUsd": "1", "mcc": "5411"}, "merchantName"},
		{map[string]any{"amountUsd": "1", "mcc": "5411", "merchantName": "x", "counterparty": "0x12"}, "counterparty"},
	}
	for _, b := range bad {
		m := ten.Root.Post("/v1/sandbox/cards/"+id+"/authorizations", b.body).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
		if harness.Field(m, b.field) == "" {
			t.Fatalf("%v does not name %s: %v", b.body, b.field, m)
		}
	}
	if l := ten.Root.Get("/v1/cards/"+id+"/authorizations").Expect(t, 200).JSON(t); l["total"].(float64) != 0 {
		t.Fatalf("a refused request was recorded: %v", l)
	}
}

func TestCards_Cardholders(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	h := ten.Root.Post("/v1/cardholders", map[string]any{"name": "Ana Lima", "email": "ana@example.com"}).Expect(t, 201).JSON(t)
	hid := h["cardholderId"].(string)
	if l := ten.Root.Get("/v1/cardholders").Expect(t, 200).JSON(t); l["total"].(float64) != 1 {
		t.Fatalf("list: %v", l)
	}
	for _, b := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"email": "a@example.com"}, "name"},
		{map[string]any{"name": "A", "email": "not an email"}, "email"},
	} {
		m := ten.Root.Post("/v1/cardholders", b.body).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
		if harness.Field(m, b.field) == "" {
			t.Fatalf("%v: %v", b.body, m)
		}
	}
	addr := common.HexToAddress("0x00000000000000000000000000000000000000aa").Hex()
	c := ten.Root.Post("/v1/cards", map[string]any{"cardholderId": hid, "chain": "base", "cryptoAccountAddress": addr}).Expect(t, 201).JSON(t)
	if c["cardholderId"] != hid || c["fundingCardAccountId"] == nil || c["safeAddress"] != nil || c["cryptoAccountType"] != "standard" || c["chain"] != "base" {
		t.Fatalf("cardholder card: %v", c)
	}
	for _, b := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{}, "cardholderId"},
		{map[string]any{"cardholderId": hid, "chain": "ethereum"}, "chain"},
		{map[string]any{"cardholderId": hid, "cryptoAccountAddress": addr}, "chain"},
		{map[string]any{"cardholderId": hid, "chain": "solana", "cryptoAccountAddress": addr}, "cryptoAccountAddress"},
		{map[string]any{"cardholderId": hid, "chain": "world_chain", "cryptoAccountAddress": "So11111111111111111111111111111111111111112"}, "cryptoAccountAddress"},
		{map[string]any{"cardholderId": hid, "cryptoAccountType": "savings"}, "cryptoAccountType"},
	} {
		m := ten.Root.Post("/v1/cards", b.body).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
		if harness.Field(m, b.field) == "" {
			t.Fatalf("%v: %v", b.body, m)
		}
	}
	ten.Root.Post("/v1/cards", map[string]any{"cardholderId": hid, "chain": "solana", "cryptoAccountAddress": "So11111111111111111111111111111111111111112",
		"cryptoAccountType": "bridge_wallet"}).Expect(t, 201)
	ten.Root.Post("/v1/cards", map[string]any{"cardholderId": "chd_missing"}).ExpectError(t, http.StatusNotFound, "CARDHOLDER_NOT_FOUND")
	other := env().NewTenant(t)
	other.Root.Post("/v1/cards", map[string]any{"cardholderId": hid}).ExpectError(t, http.StatusNotFound, "CARDHOLDER_NOT_FOUND")

	// A cardholder card draws on the tenant's service balance and settles off chain.
	id := c["cardId"].(string)
	if a := authorize(t, ten.Root, id, "5", "5411"); declineReason(a) != "INSUFFICIENT_FUNDS" {
		t.Fatalf("no service balance: %v", a)
	}
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "20"}).Expect(t, 201)
	a := authorize(t, ten.Root, id, "5", "5411")
	if a["status"] != "APPROVED" {
		t.Fatalf("funded: %v", a)
	}
	got := ten.Root.Post("/v1/sandbox/card-authorizations/"+a["authorizationId"].(string)+"/capture", nil).Expect(t, 200).JSON(t)
	if got["settlementStatus"] != "OFF_CHAIN" {
		t.Fatalf("capture: %v", got)
	}
	bal := ten.Root.Get("/v1/balances").Expect(t, 200).JSON(t)
	if fmt.Sprint(bal) == "" {
		t.Fatal("balances")
	}
}

// TestCards_EphemeralKeys: keys for a known platform, at most 5 per client IP in a rolling
// minute (the sixth answers 429 with the wait until the oldest leaves the window), and none under
// the funding_account issuing provider.
func TestCards_EphemeralKeys(t *testing.T) {
	t.Parallel()
	srv := harness.NewServer(t, nil) // its own per-IP budget
	ten := env().NewTenant(t)
	c := srv.Client(t).WithKey(ten.RootKey)
	w := newWallet(t, ten.ID, true, 0)
	id := issue(t, ten.Root, w, nil)["cardId"].(string)
	c.Post("/v1/cards/"+id+"/ephemeral-keys", map[string]any{"platform": "vendor_c"}).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	for i := 0; i < 4; i++ {
		k := c.Post("/v1/cards/"+id+"/ephemeral-keys", map[string]any{"platform": "vendor_a", "nonce": "n"}).Expect(t, 201).JSON(t)
		if k["cardId"] != id || k["platform"] != "vendor_a" || k["ephemeralKey"].(map[string]any)["secret"] == "" {
			t.Fatalf("key: %v", k)
		}
	}
	r := c.Post("/v1/cards/"+id+"/ephemeral-keys", map[string]any{"platform": "vendor_b"})
	r.ExpectError(t, http.StatusTooManyRequests, "RATE_LIMITED")
	// A rolling minute: the sixth waits until the first leaves the window (about 60 s), not the
	// 12 s a 5-a-minute token bucket refills one key in (which would let 9 through a minute).
	if wait, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || wait <= 12 {
		t.Fatalf("Retry-After %q, want the rest of the rolling minute", r.Header.Get("Retry-After"))
	}

	funding := harness.NewServer(t, func(cfg *wiring.Config) { cfg.IssuingProvider = "funding_account" })
	funding.Client(t).WithKey(ten.RootKey).Post("/v1/cards/"+id+"/ephemeral-keys", map[string]any{"platform": "vendor_a"}).
		ExpectError(t, http.StatusBadRequest, "EPHEMERAL_KEYS_NOT_SUPPORTED")
}

// TestCards_FeatureOn: with the card spend module on the sandbox chain, capabilities report
// cards.
func TestCards_FeatureOn(t *testing.T) {
	t.Parallel()
	m := env().Client(t).Get("/v1/capabilities").Expect(t, 200).JSON(t)
	if m["features"].(map[string]any)["cards"] != true {
		t.Fatalf("features: %v", m["features"])
	}
}

// TestCards_WalletTransactionsShowASpendOnce: in the wallet's transaction list a card spend is
// one line, its hold (pending) while the authorization is open and then its capture
// (completed, the captured amount); a reversed authorization leaves no line, and the lines add
// up to the wallet's balance.
func TestCards_WalletTransactionsShowASpendOnce(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 100)
	id := issue(t, ten.Root, w, map[string]any{"dailyUsd": "50"})["cardId"].(string)
	path := "/v1/wallets/" + w.ID + "/transactions"
	withdrawals := func(query string) []map[string]any {
		t.Helper()
		body := ten.Root.Get(path+"?type=withdrawal"+query).Expect(t, 200).JSON(t)
		var out []map[string]any
		for _, raw := range body["data"].([]any) {
			out = append(out, raw.(map[string]any))
		}
		if int(body["total"].(float64)) != len(out) {
			t.Fatalf("total %v for %d lines", body["total"], len(out))
		}
		return out
	}
	line := func(l map[string]any, amount, status, aid string) {
		t.Helper()
		if l["amount"] != amount || l["status"] != status || l["note"] != "card authorization "+aid || l["wallet_id"] != w.ID {
			t.Fatalf("line %v, want %s %s of %s", l, amount, status, aid)
		}
	}

	a := authorize(t, ten.Root, id, "20", "5411")["authorizationId"].(string)
	got := withdrawals("")
	if len(got) != 1 {
		t.Fatalf("an open authorization: %v", got)
	}
	line(got[0], "20", "pending", a)
	if pending := withdrawals("&status=pending"); len(pending) != 1 {
		t.Fatalf("status=pending: %v", pending)
	}

	ten.Root.Post("/v1/sandbox/card-authorizations/"+a+"/capture", map[string]any{"amountUsd": "15"}).Expect(t, 200)
	got = withdrawals("")
	if len(got) != 1 {
		t.Fatalf("a captured authorization: %v", got)
	}
	line(got[0], "15", "completed", a)

	b := authorize(t, ten.Root, id, "5", "5411")["authorizationId"].(string)
	ten.Root.Post("/v1/sandbox/card-authorizations/"+b+"/reverse", nil).Expect(t, 200)
	if got = withdrawals(""); len(got) != 1 || got[0]["amount"] != "15" {
		t.Fatalf("after a reversal: %v", got)
	}
	if pending := withdrawals("&status=pending"); len(pending) != 0 {
		t.Fatalf("no hold is open: %v", pending)
	}

	// The USDC minted in, less the capture, is the wallet's posted balance.
	in := ten.Root.Get(path+"?type=payment").Expect(t, 200).JSON(t)["data"].([]any)
	if len(in) != 1 || in[0].(map[string]any)["amount"] != "100" {
		t.Fatalf("payments received: %v", in)
	}
	if bal := mirrorBalance(t, w.ID); bal.Posted != 85_000_000 || bal.PendingDebits != 0 {
		t.Fatalf("mirror: %+v", bal)
	}
}
