package agents

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

// awaitMirrored waits until the ledger mirror of the wallet's Safe shows posted base units, so
// card holds on it can be placed.
func awaitMirrored(t *testing.T, walletID string, posted int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tenantID := env().WalletTenant(t, walletID)
	for {
		if err := env().Service.Mirror.RequestChainIndex(context.Background(), core.EnvTest); err != nil {
			t.Fatal(err)
		}
		var b ledger.Balance
		err := env().Service.Store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
			account, err := tx.Ledger().FindAccountByReference(ctx, core.EnvTest, ledger.AssetUSDC, tenantID, ledger.WalletOnchainRef(walletID))
			if err != nil {
				return err
			}
			balances, err := tx.Ledger().Balances(ctx, []string{account.ID})
			b = balances[account.ID]
			return err
		})
		if err == nil && b.Posted == posted {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("wallet %s not mirrored at %d: %+v %v", walletID, posted, b, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func cardLimits(t *testing.T, c *harness.Client, cardID string) map[string]any {
	t.Helper()
	return c.Get("/v1/cards/"+cardID+"/limits").Expect(t, 200).JSON(t)
}

func cardAuthorize(t *testing.T, c *harness.Client, cardID, amount string) map[string]any {
	t.Helper()
	return c.Post("/v1/sandbox/cards/"+cardID+"/authorizations", map[string]any{"amountUsd": amount, "mcc": "5411", "merchantName": "Agent Shop"}).
		Expect(t, http.StatusCreated).JSON(t)
}

// TestAgents_CardIssue: an agent's card needs its wallet (AGENT_WALLET_REQUIRED), and that wallet
// takes no other card (INVALID_STATE through POST /v1/wallets/{id}/cards); it is bound to
// the agent and its wallet; caps left out are a copy of the agent's limits that does not follow
// later changes, null clears a cap, a value sets it; a bad body changes nothing; a second card
// is AGENT_CARD_EXISTS while a retry with the same Idempotency-Key replays the first; another
// tenant's agent is AGENT_NOT_FOUND; LIVE keys cannot issue (sandbox only).
func TestAgents_CardIssue(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := createAgent(t, ten.Root, "card holder")["id"].(string)
	path := "/v1/agents/" + id + "/cards"
	put(ten.Root, "/v1/agents/"+id+"/limits", map[string]any{"perTransactionUsd": "5", "dailyUsd": "10", "weeklyUsd": "50"}).Expect(t, http.StatusOK)
	ten.Root.Post(path, map[string]any{}).ExpectError(t, http.StatusConflict, "AGENT_WALLET_REQUIRED")
	walletID := agentWallet(t, ten, id, harness.NewOwner(t), "")
	// The agent's Safe takes no card that is not the agent's: its caps would not apply.
	ten.Root.Post("/v1/wallets/"+walletID+"/cards", map[string]any{}).ExpectError(t, http.StatusConflict, "INVALID_STATE")

	bad := ten.Root.Post(path, map[string]any{"dailyUsd": "0", "monthlyUsd": "1"}).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	if fields, _ := bad["details"].(map[string]any)["fields"].(map[string]any); fields["dailyUsd"] == nil {
		t.Fatalf("dailyUsd not named: %v", bad)
	}
	ten.Root.Post(path, map[string]any{"colour": "red"}).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	if got := ten.Root.Get("/v1/cards").Expect(t, 200).JSON(t); got["total"] != float64(0) {
		t.Fatalf("a refused issue made a card: %v", got)
	}

	c := ten.Root.With("Idempotency-Key", "agent-card-"+id).
		Post(path, map[string]any{"weeklyUsd": nil, "monthlyUsd": "100", "blockedMcc": []string{"7995"}}).Expect(t, http.StatusCreated).JSON(t)
	cardID := c["cardId"].(string)
	if c["agentId"] != id || c["walletId"] != walletID || c["status"] != "active" {
		t.Fatalf("agent card %v", c)
	}
	want := map[string]any{"perTransactionUsd": "5", "dailyUsd": "10", "weeklyUsd": nil, "monthlyUsd": "100"}
	check := func(when string) {
		t.Helper()
		l := cardLimits(t, ten.Root, cardID)
		for k, v := range want {
			if l[k] != v {
				t.Fatalf("%s: card %s = %v, want %v (%v)", when, k, l[k], v, l)
			}
		}
		if b := l["blockedMcc"].([]any); len(b) != 1 || b[0] != "7995" {
			t.Fatalf("%s: blockedMcc %v", when, l)
		}
	}
	check("issued")
	// The agent's limits change; the card's seeded copy does not follow.
	put(ten.Root, "/v1/agents/"+id+"/limits", map[string]any{"perTransactionUsd": nil, "dailyUsd": "20", "weeklyUsd": "70"}).Expect(t, http.StatusOK)
	check("after the agent's limits changed")

	replay := ten.Root.With("Idempotency-Key", "agent-card-"+id).
		Post(path, map[string]any{"weeklyUsd": nil, "monthlyUsd": "100", "blockedMcc": []string{"7995"}}).Expect(t, http.StatusCreated)
	if replay.Header.Get("Idempotent-Replayed") == "" || replay.JSON(t)["cardId"] != cardID {
		t.Fatalf("the retry was not a replay: %v", replay.JSON(t))
	}
	exists := ten.Root.Post(path, map[string]any{}).ExpectError(t, http.StatusConflict, "AGENT_CARD_EXISTS")
	if exists["details"].(map[string]any)["cardId"] != cardID {
		t.Fatalf("exists details: %v", exists)
	}
	if got := ten.Root.Get("/v1/cards").Expect(t, 200).JSON(t); got["total"] != float64(1) {
		t.Fatalf("cards: %v", got)
	}

	other := env().NewTenant(t)
	other.Root.Post(path, map[string]any{}).ExpectError(t, http.StatusNotFound, "AGENT_NOT_FOUND")
	// The two scopes are both needed.
	onlyCards := agentKey(t, ten.Root, id, "cards:issue", "agents:read")
	env().Client(t).WithKey(onlyCards["key"].(string)).Post(path, map[string]any{}).ExpectError(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
}

// TestAgents_CardIssueOmittedCopiesAll: an empty body copies every cap of the agent, and an
// agent with no caps gets a card with none.
func TestAgents_CardIssueOmittedCopiesAll(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := createAgent(t, ten.Root, "copied")["id"].(string)
	put(ten.Root, "/v1/agents/"+id+"/limits", map[string]any{"perTransactionUsd": "1.5", "dailyUsd": "2", "weeklyUsd": "3", "monthlyUsd": "4"}).Expect(t, http.StatusOK)
	agentWallet(t, ten, id, harness.NewOwner(t), "")
	c := ten.Root.Post("/v1/agents/"+id+"/cards", nil).Expect(t, http.StatusCreated).JSON(t)
	l := cardLimits(t, ten.Root, c["cardId"].(string))
	if l["perTransactionUsd"] != "1.5" || l["dailyUsd"] != "2" || l["weeklyUsd"] != "3" || l["monthlyUsd"] != "4" || l["allowedMcc"] != nil {
		t.Fatalf("copied limits %v", l)
	}
}

// TestAgents_CardIssueParallel: parallel issues for one agent make exactly one card; the others
// are AGENT_CARD_EXISTS.
func TestAgents_CardIssueParallel(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := createAgent(t, ten.Root, "racer")["id"].(string)
	agentWallet(t, ten, id, harness.NewOwner(t), "")
	const n = 8
	codes := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := ten.Root.Post("/v1/agents/"+id+"/cards", map[string]any{})
			switch r.Status {
			case http.StatusCreated:
				codes[i] = "created"
			default:
				codes[i] = fmt.Sprint(r.Status, " ", r.JSON(t)["code"])
			}
		}()
	}
	wg.Wait()
	created := 0
	for _, c := range codes {
		switch c {
		case "created":
			created++
		case "409 AGENT_CARD_EXISTS":
		default:
			t.Fatalf("unexpected answer %q in %v", c, codes)
		}
	}
	if created != 1 {
		t.Fatalf("%d cards created: %v", created, codes)
	}
	if got := ten.Root.Get("/v1/cards").Expect(t, 200).JSON(t); got["total"] != float64(1) {
		t.Fatalf("cards: %v", got)
	}
}

// TestAgents_CardIssueSuspended: a suspended agent gets no card (409 AGENT_SUSPENDED) whoever
// asks, its own key included; after reactivate it does.
func TestAgents_CardIssueSuspended(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := createAgent(t, ten.Root, "sleeper")["id"].(string)
	agentWallet(t, ten, id, harness.NewOwner(t), "")
	key := env().Client(t).WithKey(agentKey(t, ten.Root, id, "cards:issue", "cards:read")["key"].(string))
	ten.Root.Post("/v1/agents/"+id+"/suspend", nil).Expect(t, http.StatusOK)
	ten.Root.Post("/v1/agents/"+id+"/cards", map[string]any{}).ExpectError(t, http.StatusConflict, "AGENT_SUSPENDED")
	key.Post("/v1/agents/"+id+"/cards", map[string]any{}).ExpectError(t, http.StatusConflict, "AGENT_SUSPENDED")
	if got := ten.Root.Get("/v1/cards").Expect(t, 200).JSON(t); got["total"] != float64(0) {
		t.Fatalf("a suspended agent got a card: %v", got)
	}
	ten.Root.Post("/v1/agents/"+id+"/reactivate", nil).Expect(t, http.StatusOK)
	ten.Root.Post("/v1/agents/"+id+"/cards", map[string]any{}).Expect(t, http.StatusCreated)
}

// TestAgents_CardAuthorizationsAgainstDailyCap: 32 parallel authorizations of 1 USD on the
// agent's card, whose own caps are cleared, against the agent's daily cap of 10 approve exactly
// 10 and decline the rest AGENT_LIMIT; a reversal credits the window back; a partial capture
// gives the uncaptured rest back to the agent's budget; a suspended agent's card declines
// AGENT_SUSPENDED; the authorizations show in the agent's activity with their reasons.
func TestAgents_CardAuthorizationsAgainstDailyCap(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := createAgent(t, ten.Root, "shopper")["id"].(string)
	put(ten.Root, "/v1/agents/"+id+"/limits", map[string]any{"dailyUsd": "10"}).Expect(t, http.StatusOK)
	walletID := agentWallet(t, ten, id, harness.NewOwner(t), "100")
	awaitMirrored(t, walletID, 100_000_000)
	c := ten.Root.Post("/v1/agents/"+id+"/cards", map[string]any{"perTransactionUsd": nil, "dailyUsd": nil, "weeklyUsd": nil, "monthlyUsd": nil}).
		Expect(t, http.StatusCreated).JSON(t)
	cardID := c["cardId"].(string)
	if l := cardLimits(t, ten.Root, cardID); l["dailyUsd"] != nil {
		t.Fatalf("the card's own daily cap was not cleared: %v", l)
	}

	results := make([]map[string]any, 32)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = ten.Root.Post("/v1/sandbox/cards/"+cardID+"/authorizations",
				map[string]any{"amountUsd": "1", "mcc": "5411", "merchantName": "Agent Shop"}).Expect(t, http.StatusCreated).JSON(t)
		}()
	}
	wg.Wait()
	var approved []string
	for _, r := range results {
		switch {
		case r["status"] == "APPROVED":
			approved = append(approved, r["authorizationId"].(string))
		case r["status"] == "DECLINED" && r["declineReason"] == "AGENT_LIMIT":
		default:
			t.Fatalf("unexpected authorization %v", r)
		}
	}
	if len(approved) != 10 {
		t.Fatalf("%d of 32 approved against an agent cap that fits 10", len(approved))
	}
	if d := cardAuthorize(t, ten.Root, cardID, "0.000001"); d["declineReason"] != "AGENT_LIMIT" {
		t.Fatalf("one base unit over the cap: %v", d)
	}

	// A reversal credits its window: exactly one more dollar fits.
	ten.Root.Post("/v1/sandbox/card-authorizations/"+approved[0]+"/reverse", nil).Expect(t, http.StatusOK)
	if a := cardAuthorize(t, ten.Root, cardID, "1"); a["status"] != "APPROVED" {
		t.Fatalf("after a reversal: %v", a)
	}
	if d := cardAuthorize(t, ten.Root, cardID, "0.000001"); d["declineReason"] != "AGENT_LIMIT" {
		t.Fatalf("the reversal credited more than its amount: %v", d)
	}
	// A partial capture of 0.4 gives 0.6 back to the agent's window, and no more.
	ten.Root.Post("/v1/sandbox/card-authorizations/"+approved[1]+"/capture", map[string]any{"amountUsd": "0.4"}).Expect(t, http.StatusOK)
	if a := cardAuthorize(t, ten.Root, cardID, "0.6"); a["status"] != "APPROVED" {
		t.Fatalf("after a partial capture the uncaptured rest was not given back: %v", a)
	}
	if d := cardAuthorize(t, ten.Root, cardID, "0.000001"); d["declineReason"] != "AGENT_LIMIT" {
		t.Fatalf("the partial capture gave back more than the rest: %v", d)
	}
	// A whole capture changes nothing.
	ten.Root.Post("/v1/sandbox/card-authorizations/"+approved[2]+"/capture", nil).Expect(t, http.StatusOK)
	if d := cardAuthorize(t, ten.Root, cardID, "0.000001"); d["declineReason"] != "AGENT_LIMIT" {
		t.Fatalf("a whole capture gave budget back: %v", d)
	}
	ten.Root.Post("/v1/agents/"+id+"/suspend", nil).Expect(t, http.StatusOK)
	if d := cardAuthorize(t, ten.Root, cardID, "0.000001"); d["declineReason"] != "AGENT_SUSPENDED" {
		t.Fatalf("a suspended agent's card: %v", d)
	}

	// The card's authorizations are on the agent's timeline with their reasons.
	items := ten.Root.Get("/v1/agents/"+id+"/activity?limit=100").Expect(t, 200).JSON(t)["items"].([]any)
	reasons := map[string]int{}
	for _, raw := range items {
		it := raw.(map[string]any)
		if it["type"] != "card_authorization" || it["referenceId"] != cardID {
			t.Fatalf("unexpected item %v", it)
		}
		r, _ := it["reason"].(string)
		reasons[fmt.Sprint(it["status"], " ", r)]++
	}
	if len(items) != 32+7 || reasons["DECLINED AGENT_LIMIT"] != 22+4 || reasons["DECLINED AGENT_SUSPENDED"] != 1 || reasons["REVERSED "] != 1 ||
		reasons["CAPTURED "] != 2 {
		t.Fatalf("activity reasons %v of %d items", reasons, len(items))
	}
}

// TestAgents_ActivityMergesThreeSources: the timeline merges the agent wallet's payments, its
// card's authorizations (with decline reasons) and the policy decisions about it, newest first,
// and a small page size walks the same items in the same order across the three sources.
func TestAgents_ActivityMergesThreeSources(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := createAgent(t, ten.Root, "merged")["id"].(string)
	put(ten.Root, "/v1/agents/"+id+"/limits", map[string]any{"dailyUsd": "3"}).Expect(t, http.StatusOK)
	walletID := agentWallet(t, ten, id, harness.NewOwner(t), "10")
	awaitMirrored(t, walletID, 10_000_000)
	// The card's own daily cap (a copy of the agent's) is cleared, so the agent's binds.
	cardID := ten.Root.Post("/v1/agents/"+id+"/cards", map[string]any{"dailyUsd": nil}).Expect(t, http.StatusCreated).JSON(t)["cardId"].(string)

	// In order: a payment, an approved authorization, a decision about the agent, a declined one.
	pay := ten.Root.Post("/v1/payments", payBody(walletID, "1")).Expect(t, http.StatusCreated).JSON(t)["id"].(string)
	approved := cardAuthorize(t, ten.Root, cardID, "2")["authorizationId"].(string)
	pol := ten.Root.Post("/v1/policies", map[string]any{"name": "agent", "document": map[string]any{"schemaVersion": 1}}).Expect(t, 201).JSON(t)
	ten.Root.Post("/v1/policies/"+pol["policyId"].(string)+"/attachments", map[string]any{"subjectType": "agent", "subjectId": id}).Expect(t, 201)
	ten.Root.Post("/v1/policies/evaluate", map[string]any{"subjectType": "agent", "subjectId": id, "amountUsd": "4"}).Expect(t, 200)
	declined := cardAuthorize(t, ten.Root, cardID, "2")
	if declined["declineReason"] != "AGENT_LIMIT" {
		t.Fatalf("over the agent's cap: %v", declined)
	}

	path := "/v1/agents/" + id + "/activity"
	items := ten.Root.Get(path).Expect(t, 200).JSON(t)["items"].([]any)
	harness.NewestFirst(t, items, "occurredAt")
	var order []string
	for _, raw := range items {
		it := raw.(map[string]any)
		switch {
		case it["type"] == "policy_decision":
			if len(it["sha256"].(string)) != 64 {
				t.Fatalf("decision without sha256: %v", it)
			}
			order = append(order, "decision")
		default:
			order = append(order, it["id"].(string))
		}
	}
	// The agent's policy, attached by then, is evaluated on its card's authorization too: that
	// decision (about the agent, referencing the authorization, at its instant) comes first.
	want := []string{"decision", declined["authorizationId"].(string), "decision", approved, pay}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("timeline %v, want %v: %v", order, want, items)
	}
	if d := items[0].(map[string]any); d["referenceId"] != declined["authorizationId"] {
		t.Fatalf("the agent policy's decision on the authorization: %v", d)
	}
	newest := items[1].(map[string]any)
	if newest["type"] != "card_authorization" || newest["status"] != "DECLINED" || newest["reason"] != "AGENT_LIMIT" ||
		newest["amountUsd"] != "2" || newest["referenceId"] != cardID {
		t.Fatalf("the declined authorization: %v", newest)
	}

	expectPagesInOrder(t, ten.Root, path, 1, items)
}

// TestAgents_CardIssueWalletNotDeployed: an agent whose Safe is not deployed yet gets no card
// (409 WALLET_NOT_DEPLOYED) and nothing is recorded.
func TestAgents_CardIssueWalletNotDeployed(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := createAgent(t, ten.Root, "early")["id"].(string)
	// The agent's wallet row as provisioning stores it before the deploy job runs (no job here,
	// so it stays PENDING_DEPLOYMENT).
	w := wallet.Wallet{ID: core.NewID(core.PrefixWallet), TenantID: ten.ID, Environment: core.EnvTest, Name: "pending",
		ChainID: wallet.SandboxChainID, Address: common.BigToAddress(big.NewInt(time.Now().UnixNano())).Hex(),
		Owners: []wallet.Owner{{Address: harness.NewOwner(t).Address.Hex(), Role: wallet.RoleAgent}}, Threshold: 1,
		Status: wallet.StatusPendingDeployment, Purpose: wallet.PurposeAgent, CreatedAt: time.Now().UTC()}
	err := env().Service.Store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		if err := tx.Wallets().CreateWallet(ctx, w); err != nil {
			return err
		}
		a, err := tx.Agents().LockAgent(ctx, ten.ID, core.EnvTest, id)
		if err != nil {
			return err
		}
		a.WalletID = w.ID
		return tx.Agents().UpdateAgent(ctx, a)
	})
	if err != nil {
		t.Fatal(err)
	}
	got := ten.Root.Post("/v1/agents/"+id+"/cards", map[string]any{}).ExpectError(t, http.StatusConflict, "WALLET_NOT_DEPLOYED")
	if got["details"].(map[string]any)["walletId"] != w.ID {
		t.Fatalf("details %v", got)
	}
	if list := ten.Root.Get("/v1/cards").Expect(t, 200).JSON(t); list["total"] != float64(0) {
		t.Fatalf("cards: %v", list)
	}
}
