package spendguard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/test/harness"
)

// The spend-path sweep derives the routes that can move money from the service itself, not
// from a list: every write operation of the served route table (/v1/openapi.json) is called
// with its documented example, the example's ids pointed at a funded fixture, by each kind of
// principal in a tenant of its own. What moved is then read from the ledger: the postings that
// debit the accounts where a tenant's money sits (the ledger's kinds tenant_available,
// claim_escrow and wallet_onchain), plus the Safe payments recorded on the tenant's custodial
// wallet (the custody key signs those without anyone else). Nothing here names a route: a
// route added to the table is called with its example like every other.
//
// Why a new route that debits without the guard fails: its debit is posted on the caller's
// context, and the ledger backstop (kernel.GuardLedger) refuses, for every principal, a debit
// of the tenant's money that no guard pass covers (the unit of work fails with INTERNAL; shown
// with a deliberately unguarded debit in app/kernel's TestGuardLedger_DebitWithoutTheGuardFails).
// The sweep calls that route as the owner, so the call answers 500 and the sweep fails on any
// 500. A route that passes the guard but skips a step inside it (confinement, caps) makes an
// agent or a narrow key move money instead, which fails the !mayMove cases.

// guardedKinds are the ledger account kinds that hold money a tenant controls.
var guardedKinds = map[string]bool{"tenant_available": true, "claim_escrow": true, "wallet_onchain": true}

// fixture is one tenant's money and the ids the sweep points examples at.
type fixture struct {
	ten                            *harness.Tenant
	custodial, holder, card        string
	agentID, agentWallet, agentKey string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	ten := env().NewTenant(t)
	deposit(t, ten.Root, "100")
	f := fixture{ten: ten, custodial: custodialWallet(t, ten, "50")}
	f.holder = ten.Root.Post("/v1/cardholders", map[string]any{"name": "Ana Lima", "email": "ana@example.com"}).Expect(t, 201).JSON(t)["cardholderId"].(string)
	f.card = ten.Root.Post("/v1/cards", map[string]any{"cardholderId": f.holder}).Expect(t, 201).JSON(t)["cardId"].(string)
	f.agentID = createAgent(t, ten.Root, "swept")
	f.agentWallet = agentWallet(t, ten, f.agentID, harness.NewOwner(t), "10")
	k := ten.Root.Post("/v1/agents/"+f.agentID+"/keys", map[string]any{"name": "sweep", "scopes": []string{"*"}}).Expect(t, 201).JSON(t)
	f.agentKey = k["key"].(string)
	return f
}

// member invites a member of role into the fixture's tenant and returns its session client.
func (f fixture) member(t *testing.T, role string) *harness.Client {
	t.Helper()
	email := strings.ToLower(role) + "-" + f.ten.ID + "@example.com"
	inv := f.ten.Session.Post("/v1/tenants/members", map[string]any{"email": email, "role": role}).Expect(t, 201).JSON(t)
	_, c := env().SessionFor(t, email)
	c.Post("/v1/tenants/members/accept", map[string]any{"token": inv["inviteToken"], "signerAddress": harness.NewOwner(t).Address.Hex()}).Expect(t, 200)
	return c
}

// principalCase is a kind of principal and what it may move: mayMove false means no debit of
// the tenant's money (outside the agent's own wallet) and no payment on the custodial wallet.
type principalCase struct {
	name     string
	mayMove  bool
	mustMove bool // the sweep must move money for it, proving it reaches the debit paths
	// ownWallet points the examples' wallet ids at the agent's Safe instead of the tenant's.
	ownWallet bool
	client    func(t *testing.T, f fixture) *harness.Client
}

func principalCases() []principalCase {
	agentKey := func(t *testing.T, f fixture) *harness.Client { return env().Client(t).WithKey(f.agentKey) }
	return []principalCase{
		{name: "owner", mayMove: true, mustMove: true, client: func(t *testing.T, f fixture) *harness.Client { return f.ten.Session }},
		{name: "ADMIN", mayMove: true, client: func(t *testing.T, f fixture) *harness.Client { return f.member(t, "ADMIN") }},
		{name: "MEMBER", mayMove: true, client: func(t *testing.T, f fixture) *harness.Client { return f.member(t, "MEMBER") }},
		{name: "narrow key", client: func(t *testing.T, f fixture) *harness.Client {
			return env().Client(t).WithKey(env().NewKey(t, f.ten.Root, map[string]any{"name": "narrow", "scopes": []string{"wallets:read", "payments:read"}}))
		}},
		{name: "agent key on its own wallet", ownWallet: true, client: agentKey},
		{name: "agent key on the tenant's wallets", client: agentKey},
		{name: "suspended agent", client: func(t *testing.T, f fixture) *harness.Client {
			f.ten.Root.Post("/v1/agents/"+f.agentID+"/suspend", nil).Expect(t, 200)
			return env().Client(t).WithKey(f.agentKey)
		}},
	}
}

// TestSpendPath_EveryWriteRouteByEveryPrincipal: see the comment at the top of the file.
func TestSpendPath_EveryWriteRouteByEveryPrincipal(t *testing.T) {
	t.Parallel()
	ops := writeOperations(t)
	if len(ops) < 50 {
		t.Fatalf("only %d write operations in the served document", len(ops))
	}
	for _, pc := range principalCases() {
		t.Run(pc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			c := pc.client(t, f)
			seen := entrySequences(t, f.ten.Root)
			var internal []string
			for i, op := range ops {
				path, body := op.instantiate(f, pc.ownWallet)
				if r := c.With("Idempotency-Key", fmt.Sprintf("sweep-%d", i)).Do(op.method, path, body); r.Status == http.StatusInternalServerError {
					internal = append(internal, fmt.Sprintf("%s %s: %s", op.method, path, r.Body))
				}
			}
			if len(internal) > 0 {
				// The ledger backstop answers INTERNAL for a debit no guard pass covers.
				t.Fatalf("%s: routes answered 500 (a debit without the spend guard?):\n%s", pc.name, strings.Join(internal, "\n"))
			}
			moved := debits(t, f, seen)
			moved = append(moved, custodialPayments(t, f)...)
			switch {
			case !pc.mayMove && len(moved) > 0:
				t.Fatalf("%s moved the tenant's money:\n%s", pc.name, strings.Join(moved, "\n"))
			case pc.mustMove && len(moved) == 0:
				t.Fatalf("the sweep moved nothing for %s: the examples no longer reach a debit path", pc.name)
			}
		})
	}
}

// operation is one write route of the served document with its example body.
type operation struct {
	method, path string
	example      any
}

func writeOperations(t *testing.T) []operation {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Example any `json:"example"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(env().Client(t).Get("/v1/openapi.json").Expect(t, 200).Body, &doc); err != nil {
		t.Fatal(err)
	}
	var ops []operation
	for path, byMethod := range doc.Paths {
		for method, op := range byMethod {
			m := strings.ToUpper(method)
			if m != http.MethodPost && m != http.MethodPut && m != http.MethodPatch && m != http.MethodDelete {
				continue
			}
			ops = append(ops, operation{method: m, path: path, example: op.RequestBody.Content["application/json"].Example})
		}
	}
	// Creating things before spending them, as the document orders paths.
	sort.Slice(ops, func(i, j int) bool { return ops[i].path+ops[i].method < ops[j].path+ops[j].method })
	return ops
}

var pathParam = regexp.MustCompile(`\{[^}]+\}`)

// instantiate points the route's path parameters and the example's ids at the fixture: a
// parameter after /wallets/ is the wallet, after /cards/ the card, and so on; anything else
// keeps a well-formed id that names nothing.
func (op operation) instantiate(f fixture, ownWallet bool) (string, any) {
	walletID := f.custodial
	if ownWallet {
		walletID = f.agentWallet
	}
	byCollection := map[string]string{"wallets": walletID, "cards": f.card, "cardholders": f.holder, "agents": f.agentID}
	segments := strings.Split(op.path, "/")
	for i, s := range segments {
		if !pathParam.MatchString(s) {
			continue
		}
		segments[i] = "obj_00000000000000000000000000"
		if id, ok := byCollection[segments[i-1]]; ok {
			segments[i] = id
		}
		if s == "{walletId}" {
			segments[i] = walletID
		}
	}
	return strings.Join(segments, "/"), point(op.example, walletID, f)
}

// point rewrites the example's id fields (by name) to the fixture's.
func point(v any, walletID string, f fixture) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			lower := strings.ToLower(k)
			switch {
			case strings.HasSuffix(lower, "walletid") || lower == "wallet_id":
				out[k] = walletID
			case lower == "cardholderid":
				out[k] = f.holder
			case lower == "cardid":
				out[k] = f.card
			case lower == "destination":
				out[k] = destination(val)
			default:
				out[k] = point(val, walletID, f)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = point(x[i], walletID, f)
		}
		return out
	}
	return v
}

// destination is a payable address in the example's shape.
func destination(example any) any {
	if _, isString := example.(string); isString {
		return payee.Hex()
	}
	return map[string]any{"type": "address", "address": payee.Hex(), "chainId": wallet.SandboxChainID}
}

// entrySequences pages through the tenant's journal and returns the sequences it holds, so
// debits sees only what the sweep added.
func entrySequences(t *testing.T, c *harness.Client) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	for _, e := range journal(t, c) {
		seen[fmt.Sprint(e["sequence"])] = true
	}
	return seen
}

func journal(t *testing.T, c *harness.Client) []map[string]any {
	t.Helper()
	var out []map[string]any
	for skip := 0; ; skip += 100 {
		page := c.Get("/v1/ledger/entries?take=100&skip="+strconv.Itoa(skip)).Expect(t, 200).JSON(t)
		entries, _ := page["entries"].([]any)
		for _, e := range entries {
			out = append(out, e.(map[string]any))
		}
		if len(entries) < 100 {
			return out
		}
	}
}

// debits lists the new journal postings that took money from where the tenant's money sits,
// outside the agent's own wallet.
func debits(t *testing.T, f fixture, seen map[string]bool) []string {
	t.Helper()
	var out []string
	for _, e := range journal(t, f.ten.Root) {
		if seen[fmt.Sprint(e["sequence"])] {
			continue
		}
		for _, p := range e["postings"].([]any) {
			posting := p.(map[string]any)
			kind, ref := fmt.Sprint(posting["accountKind"]), fmt.Sprint(posting["accountReference"])
			if !guardedKinds[kind] || !strings.HasPrefix(fmt.Sprint(posting["amountBaseUnits"]), "-") || strings.Contains(ref, f.agentWallet) {
				continue
			}
			out = append(out, fmt.Sprintf("debit of %s (%s) by %v: %v", ref, kind, e["reference"], posting["amountBaseUnits"]))
		}
	}
	return out
}

// custodialPayments lists the live payments recorded on the tenant's custodial wallet.
func custodialPayments(t *testing.T, f fixture) []string {
	t.Helper()
	var out []string
	list := f.ten.Root.Get("/v1/payments?take=100").Expect(t, 200).JSON(t)
	payments, _ := list["payments"].([]any)
	for _, p := range payments {
		pay := p.(map[string]any)
		if pay["sourceWalletId"] == f.custodial && pay["status"] != "FAILED" && pay["status"] != "CANCELLED" {
			out = append(out, fmt.Sprintf("payment %v of %v from the custodial wallet (%v)", pay["id"], pay["amount"], pay["status"]))
		}
	}
	return out
}
