package policies

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/test/harness"
)

var limitsDoc = doc(map[string]any{"limits": map[string]any{"perTransactionUsd": "100.00", "dailyUsd": "500"}})

func TestPolicies_CreateGetList(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	p := createPolicy(t, ten.Root, "Ops spend", limitsDoc)
	id, _ := p["policyId"].(string)
	if !core.HasPrefix(id, core.PrefixPolicy) || p["status"] != "ACTIVE" || p["activeVersion"] != float64(1) ||
		!core.HasPrefix(p["activeVersionId"].(string), core.PrefixVersion) || p["name"] != "Ops spend" || p["archivedAt"] != nil {
		t.Fatalf("created: %v", p)
	}
	got := ten.Root.Get("/v1/policies/"+id).Expect(t, http.StatusOK).JSON(t)
	if got["policyId"] != id || got["activeVersionId"] != p["activeVersionId"] {
		t.Fatalf("get: %v", got)
	}
	createPolicy(t, ten.Root, "Second", doc(nil))
	list := ten.Root.Get("/v1/policies").Expect(t, http.StatusOK).JSON(t)
	if list["total"] != float64(2) || len(list["policies"].([]any)) != 2 {
		t.Fatalf("list: %v", list)
	}
	page := ten.Root.Get("/v1/policies?take=1&skip=1").Expect(t, http.StatusOK).JSON(t)
	if page["total"] != float64(2) || len(page["policies"].([]any)) != 1 {
		t.Fatalf("page: %v", page)
	}
}

func TestPolicies_ValidationNamesTheField(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"missing document", map[string]any{"name": "x"}, "document"},
		{"null document", map[string]any{"name": "x", "document": nil}, "document"},
		{"missing name", map[string]any{"document": doc(nil)}, "name"},
		{"unknown body field", map[string]any{"name": "x", "document": doc(nil), "rules": 1}, "rules"},
		{"wrong schemaVersion", map[string]any{"name": "x", "document": map[string]any{"schemaVersion": 2}}, "document.schemaVersion"},
		{"missing schemaVersion", map[string]any{"name": "x", "document": map[string]any{}}, "document.schemaVersion"},
		{"unknown document field", map[string]any{"name": "x", "document": doc(map[string]any{"velocity": 1})}, "document.velocity"},
		{"unknown limits field", map[string]any{"name": "x", "document": doc(map[string]any{"limits": map[string]any{"yearlyUsd": "1"}})}, "document.limits.yearlyUsd"},
		{"unknown mcc field", map[string]any{"name": "x", "document": doc(map[string]any{"mcc": map[string]any{"deny": []string{}}})}, "document.mcc.deny"},
		{"zero daily cap", map[string]any{"name": "x", "document": doc(map[string]any{"limits": map[string]any{"dailyUsd": "0"}})}, "document.limits.dailyUsd"},
		{"negative per-transaction cap", map[string]any{"name": "x", "document": doc(map[string]any{"limits": map[string]any{"perTransactionUsd": "-1"}})}, "document.limits.perTransactionUsd"},
		{"seven fraction digits", map[string]any{"name": "x", "document": doc(map[string]any{"limits": map[string]any{"weeklyUsd": "1.0000001"}})}, "document.limits.weeklyUsd"},
		{"numeric cap", map[string]any{"name": "x", "document": doc(map[string]any{"limits": map[string]any{"monthlyUsd": 5}})}, "document.limits.monthlyUsd"},
		{"malformed MCC", map[string]any{"name": "x", "document": doc(map[string]any{"mcc": map[string]any{"blocked": []string{"5812", "5"}}})}, "document.mcc.blocked[1]"},
		{"five-digit MCC", map[string]any{"name": "x", "document": doc(map[string]any{"mcc": map[string]any{"allowed": []string{"58120"}}})}, "document.mcc.allowed[0]"},
		{"malformed address", map[string]any{"name": "x", "document": doc(map[string]any{"counterparties": map[string]any{"blocked": []string{"0xabc"}}})}, "document.counterparties.blocked[0]"},
		{"address on both lists", map[string]any{"name": "x", "document": doc(map[string]any{"counterparties": map[string]any{
			"blocked": []string{addrA}, "allowed": []string{addrB, strings.ToLower(addrA)}}})}, "document.counterparties.allowed[1]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := ten.Root.Post("/v1/policies", c.body).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
			if harness.Field(m, c.field) == "" {
				t.Fatalf("error does not name %s: %v", c.field, m["details"])
			}
		})
	}
	p := createPolicy(t, ten.Root, "valid", doc(nil))
	m := ten.Root.Post("/v1/policies/"+p["policyId"].(string)+"/versions", map[string]any{"document": doc(map[string]any{"limits": map[string]any{"dailyUsd": "0"}})}).
		ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	if harness.Field(m, "document.limits.dailyUsd") == "" {
		t.Fatalf("version refusal: %v", m)
	}
	if list := ten.Root.Get("/v1/policies").JSON(t); list["total"] != float64(1) {
		t.Fatalf("a refused document created something: %v", list)
	}
}

type versionBody struct {
	VersionID string          `json:"versionId"`
	PolicyID  string          `json:"policyId"`
	Version   int             `json:"version"`
	SHA256    string          `json:"sha256"`
	IR        json.RawMessage `json:"ir"`
}

func TestPolicies_VersionsAppendOnly(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	first := doc(map[string]any{"mcc": map[string]any{"blocked": []string{"7995", "742"}}, "counterparties": map[string]any{"allowed": []string{addrB, addrA}}})
	p := createPolicy(t, ten.Root, "versions", first)
	id := p["policyId"].(string)
	var before struct{ Versions []versionBody }
	ten.Root.Get("/v1/policies/"+id+"/versions").Expect(t, http.StatusOK).Decode(t, &before)
	if len(before.Versions) != 1 || before.Versions[0].Version != 1 || before.Versions[0].VersionID != p["activeVersionId"] {
		t.Fatalf("versions: %+v", before)
	}
	v1 := before.Versions[0]
	if sum := sha256.Sum256(v1.IR); hex.EncodeToString(sum[:]) != v1.SHA256 {
		t.Fatalf("sha256 %s is not over the ir bytes %s", v1.SHA256, v1.IR)
	}
	if string(v1.IR) != `{"counterparties":{"allowed":["0x00000000000000000000000000000000000000aa","0x00000000000000000000000000000000000000bb"]},"mcc":{"blocked":["0742","7995"]},"schemaVersion":1}` {
		t.Fatalf("ir: %s", v1.IR)
	}

	// The same rules written differently: a new version with the same sha256.
	same := doc(map[string]any{"mcc": map[string]any{"blocked": []string{"0742", "7995", "742"}, "allowed": []string{}},
		"counterparties": map[string]any{"allowed": []string{"0x" + strings.ToUpper(addrA[2:]), addrB, addrB}}, "limits": nil})
	var v2 versionBody
	ten.Root.Post("/v1/policies/"+id+"/versions", map[string]any{"document": same}).Expect(t, http.StatusCreated).Decode(t, &v2)
	if v2.Version != 2 || v2.SHA256 != v1.SHA256 || !core.HasPrefix(v2.VersionID, core.PrefixVersion) || v2.PolicyID != id {
		t.Fatalf("v2: %+v (v1 %+v)", v2, v1)
	}
	var v3 versionBody
	ten.Root.Post("/v1/policies/"+id+"/versions", map[string]any{"document": limitsDoc}).Expect(t, http.StatusCreated).Decode(t, &v3)
	if v3.Version != 3 || v3.SHA256 == v1.SHA256 {
		t.Fatalf("v3: %+v", v3)
	}
	got := ten.Root.Get("/v1/policies/" + id).JSON(t)
	if got["activeVersion"] != float64(3) || got["activeVersionId"] != v3.VersionID {
		t.Fatalf("active pointer did not move: %v", got)
	}
	var after struct {
		Versions []versionBody
		Total    int
	}
	ten.Root.Get("/v1/policies/"+id+"/versions").Expect(t, http.StatusOK).Decode(t, &after)
	if after.Total != 3 || len(after.Versions) != 3 {
		t.Fatalf("versions: %+v", after)
	}
	if a := after.Versions[0]; a.VersionID != v1.VersionID || a.SHA256 != v1.SHA256 || string(a.IR) != string(v1.IR) {
		t.Fatalf("version 1 was rewritten: %+v vs %+v", a, v1)
	}
}

func TestPolicies_NotFoundAcrossTenants(t *testing.T) {
	t.Parallel()
	owner, other := env().NewTenant(t), env().NewTenant(t)
	w := newWallet(t, owner)
	p := createPolicy(t, owner.Root, "mine", limitsDoc)
	id := p["policyId"].(string)
	att := attach(t, owner.Root, id, w)
	c := other.Root
	c.Get("/v1/policies/"+id).ExpectError(t, http.StatusNotFound, "POLICY_NOT_FOUND")
	del(c, "/v1/policies/"+id).ExpectError(t, http.StatusNotFound, "POLICY_NOT_FOUND")
	c.Post("/v1/policies/"+id+"/versions", map[string]any{"document": limitsDoc}).ExpectError(t, http.StatusNotFound, "POLICY_NOT_FOUND")
	c.Get("/v1/policies/"+id+"/versions").ExpectError(t, http.StatusNotFound, "POLICY_NOT_FOUND")
	c.Get("/v1/policies/"+id+"/attachments").ExpectError(t, http.StatusNotFound, "POLICY_NOT_FOUND")
	c.Post("/v1/policies/"+id+"/attachments", map[string]any{"subjectType": "wallet", "subjectId": w}).ExpectError(t, http.StatusNotFound, "POLICY_NOT_FOUND")
	del(c, "/v1/policies/attachments/"+att["attachmentId"].(string)).ExpectError(t, http.StatusNotFound, "ATTACHMENT_NOT_FOUND")
	c.Post("/v1/policies/evaluate", map[string]any{"policyId": id, "amountUsd": "1"}).ExpectError(t, http.StatusNotFound, "POLICY_NOT_FOUND")
	c.Post("/v1/policies/evaluate", map[string]any{"subjectType": "wallet", "subjectId": w, "amountUsd": "1"}).ExpectError(t, http.StatusNotFound, "WALLET_NOT_FOUND")
	// The other tenant's own policy cannot be attached to the owner's wallet either.
	theirs := createPolicy(t, c, "theirs", limitsDoc)
	c.Post("/v1/policies/"+theirs["policyId"].(string)+"/attachments", map[string]any{"subjectType": "wallet", "subjectId": w}).
		ExpectError(t, http.StatusNotFound, "WALLET_NOT_FOUND")
	if got := other.Root.Get("/v1/policies").JSON(t); got["total"] != float64(1) {
		t.Fatalf("other tenant sees: %v", got)
	}
	// Still intact for the owner.
	if got := owner.Root.Get("/v1/policies/" + id + "/attachments").JSON(t); got["total"] != float64(1) {
		t.Fatalf("owner attachments: %v", got)
	}
}

func TestPolicies_Attachments(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	p1 := createPolicy(t, ten.Root, "one", limitsDoc)["policyId"].(string)
	p2 := createPolicy(t, ten.Root, "two", limitsDoc)["policyId"].(string)

	att := attach(t, ten.Root, p1, w)
	if !core.HasPrefix(att["attachmentId"].(string), core.PrefixAttachmnt) || att["policyId"] != p1 || att["subjectType"] != "wallet" ||
		att["subjectId"] != w || att["attachedAt"] == nil || att["detachedAt"] != nil {
		t.Fatalf("attachment: %v", att)
	}
	t.Run("one active policy per subject", func(t *testing.T) {
		m := ten.Root.Post("/v1/policies/"+p2+"/attachments", map[string]any{"subjectType": "wallet", "subjectId": w}).
			ExpectError(t, http.StatusConflict, "POLICY_SUBJECT_ATTACHED")
		if d := m["details"].(map[string]any); d["attachmentId"] != att["attachmentId"] || d["policyId"] != p1 {
			t.Fatalf("details: %v", d)
		}
		ten.Root.Post("/v1/policies/"+p1+"/attachments", map[string]any{"subjectType": "wallet", "subjectId": w}).
			ExpectError(t, http.StatusConflict, "POLICY_SUBJECT_ATTACHED")
	})
	t.Run("refusals", func(t *testing.T) {
		ten.Root.Post("/v1/policies/"+p2+"/attachments", map[string]any{"subjectType": "wallet", "subjectId": "wal_missing"}).
			ExpectError(t, http.StatusNotFound, "WALLET_NOT_FOUND")
		ten.Root.Post("/v1/policies/"+p2+"/attachments", map[string]any{"subjectType": "agent", "subjectId": "agt_missing"}).
			ExpectError(t, http.StatusNotFound, "AGENT_NOT_FOUND")
		ten.Root.Post("/v1/policies/"+p2+"/attachments", map[string]any{"subjectType": "card", "subjectId": "card_missing"}).
			ExpectError(t, http.StatusNotFound, "CARD_NOT_FOUND")
		ten.Root.Post("/v1/policies/"+p2+"/attachments", map[string]any{"subjectType": "treasury_account", "subjectId": "tra_missing"}).
			ExpectError(t, http.StatusNotFound, "TREASURY_ACCOUNT_NOT_FOUND")
		m := ten.Root.Post("/v1/policies/"+p2+"/attachments", map[string]any{"subjectType": "user", "subjectId": w}).
			ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
		if harness.Field(m, "subjectType") == "" {
			t.Fatalf("subjectType: %v", m)
		}
		m = ten.Root.Post("/v1/policies/"+p2+"/attachments", map[string]any{"subjectType": "wallet"}).
			ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
		if harness.Field(m, "subjectId") == "" {
			t.Fatalf("subjectId: %v", m)
		}
	})
	list := ten.Root.Get("/v1/policies/"+p1+"/attachments").Expect(t, http.StatusOK).JSON(t)
	if list["total"] != float64(1) || list["attachments"].([]any)[0].(map[string]any)["attachmentId"] != att["attachmentId"] {
		t.Fatalf("list: %v", list)
	}
	detached := del(ten.Root, "/v1/policies/attachments/"+att["attachmentId"].(string)).Expect(t, http.StatusOK).JSON(t)
	if detached["detachedAt"] == nil {
		t.Fatalf("detach: %v", detached)
	}
	again := del(ten.Root, "/v1/policies/attachments/"+att["attachmentId"].(string)).Expect(t, http.StatusOK).JSON(t)
	if again["detachedAt"] != detached["detachedAt"] {
		t.Fatalf("second detach changed the record: %v vs %v", again, detached)
	}
	if list := ten.Root.Get("/v1/policies/" + p1 + "/attachments").JSON(t); list["total"] != float64(0) {
		t.Fatalf("after detach: %v", list)
	}
	attach(t, ten.Root, p2, w) // the subject is free again
	del(ten.Root, "/v1/policies/attachments/pat_missing").ExpectError(t, http.StatusNotFound, "ATTACHMENT_NOT_FOUND")
}

func TestPolicies_ArchiveDetaches(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w1, w2 := newWallet(t, ten), newWallet(t, ten)
	id := createPolicy(t, ten.Root, "to archive", limitsDoc)["policyId"].(string)
	attach(t, ten.Root, id, w1)
	attach(t, ten.Root, id, w2)
	archived := del(ten.Root, "/v1/policies/"+id).Expect(t, http.StatusOK).JSON(t)
	if archived["status"] != "ARCHIVED" || archived["archivedAt"] == nil {
		t.Fatalf("archive: %v", archived)
	}
	if list := ten.Root.Get("/v1/policies/" + id + "/attachments").JSON(t); list["total"] != float64(0) {
		t.Fatalf("still attached: %v", list)
	}
	if got := ten.Root.Get("/v1/policies/"+id).Expect(t, http.StatusOK).JSON(t); got["status"] != "ARCHIVED" {
		t.Fatalf("get: %v", got)
	}
	if again := del(ten.Root, "/v1/policies/"+id).Expect(t, http.StatusOK).JSON(t); again["archivedAt"] != archived["archivedAt"] {
		t.Fatalf("archiving twice: %v", again)
	}
	ten.Root.Post("/v1/policies/evaluate", map[string]any{"subjectType": "wallet", "subjectId": w1, "amountUsd": "1"}).
		ExpectError(t, http.StatusNotFound, "POLICY_NOT_FOUND")
	ten.Root.Post("/v1/policies/evaluate", map[string]any{"policyId": id, "amountUsd": "1"}).ExpectError(t, http.StatusConflict, "INVALID_STATE")
	ten.Root.Post("/v1/policies/"+id+"/versions", map[string]any{"document": limitsDoc}).ExpectError(t, http.StatusConflict, "INVALID_STATE")
	ten.Root.Post("/v1/policies/"+id+"/attachments", map[string]any{"subjectType": "wallet", "subjectId": w1}).ExpectError(t, http.StatusConflict, "INVALID_STATE")
	// The subjects are free for another policy.
	other := createPolicy(t, ten.Root, "next", limitsDoc)["policyId"].(string)
	attach(t, ten.Root, other, w1)
	attach(t, ten.Root, other, w2)
}

type evaluation struct {
	Allow         bool   `json:"allow"`
	Reason        string `json:"reason"`
	PolicyID      string `json:"policyId"`
	PolicyVersion int    `json:"policyVersion"`
	SHA256        string `json:"sha256"`
	RuleTrace     []struct {
		Rule, Result, Code string
	} `json:"ruleTrace"`
	DecisionLogID string `json:"decisionLogId"`
}

func TestPolicies_Evaluate(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	d := doc(map[string]any{
		"limits":         map[string]any{"perTransactionUsd": "100", "dailyUsd": "50"},
		"mcc":            map[string]any{"blocked": []string{"7995"}},
		"counterparties": map[string]any{"blocked": []string{addrA}},
	})
	p := createPolicy(t, ten.Root, "eval", d)
	id := p["policyId"].(string)
	var versions struct{ Versions []versionBody }
	ten.Root.Get("/v1/policies/"+id+"/versions").Decode(t, &versions)
	version := versions.Versions[0]

	eval := func(body map[string]any) evaluation {
		t.Helper()
		var e evaluation
		ten.Root.Post("/v1/policies/evaluate", body).Expect(t, http.StatusOK).Decode(t, &e)
		return e
	}
	t.Run("allowed by policyId", func(t *testing.T) {
		e := eval(map[string]any{"policyId": id, "amountUsd": "10"})
		if !e.Allow || e.Reason != "ALLOWED" || e.PolicyID != id || e.PolicyVersion != 1 || e.SHA256 != version.SHA256 ||
			len(e.RuleTrace) != 8 || !core.HasPrefix(e.DecisionLogID, core.PrefixDecision) {
			t.Fatalf("evaluation: %+v", e)
		}
		if e.RuleTrace[0].Rule != "counterparties.blocked" || e.RuleTrace[0].Result != "skip" || e.RuleTrace[4].Code != "PER_TXN_LIMIT" || e.RuleTrace[4].Result != "pass" {
			t.Fatalf("trace: %+v", e.RuleTrace)
		}
		row := findDecision(t, ten.ID, e.DecisionLogID)
		if row.SHA256 != version.SHA256 || row.VersionID != version.VersionID || row.PolicyVersion != 1 || row.Source != "EVALUATE" ||
			!row.Verdict.Allow || row.Transaction.AmountBaseUnits != 10_000_000 || len(row.Verdict.Trace) != 8 || row.SubjectID != "" {
			t.Fatalf("decision row: %+v", row)
		}
	})
	t.Run("counterparty rules before caps", func(t *testing.T) {
		e := eval(map[string]any{"policyId": id, "amountUsd": "500", "counterparty": strings.ToLower(addrA)})
		if e.Allow || e.Reason != "COUNTERPARTY_BLOCKED" || e.RuleTrace[0].Result != "fail" || e.RuleTrace[4].Result != "fail" {
			t.Fatalf("evaluation: %+v", e)
		}
	})
	t.Run("zero-spend daily cap, deterministic", func(t *testing.T) {
		a := eval(map[string]any{"policyId": id, "amountUsd": "60", "mcc": "5812"})
		b := eval(map[string]any{"policyId": id, "amountUsd": "60", "mcc": "5812"})
		if a.Allow || a.Reason != "DAILY_CAP" || a.RuleTrace[2].Result != "pass" || a.DecisionLogID == b.DecisionLogID {
			t.Fatalf("evaluation: %+v", a)
		}
		a.DecisionLogID, b.DecisionLogID = "", ""
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("same input, different verdicts: %s vs %s", ja, jb)
		}
		// Several evaluations of 40 never accumulate: each is against an empty window.
		for i := 0; i < 3; i++ {
			if e := eval(map[string]any{"policyId": id, "amountUsd": "40"}); !e.Allow {
				t.Fatalf("zero-spend broken: %+v", e)
			}
		}
	})
	t.Run("MCC blocked", func(t *testing.T) {
		if e := eval(map[string]any{"policyId": id, "amountUsd": "1", "mcc": "7995"}); e.Reason != "MCC_BLOCKED" {
			t.Fatalf("evaluation: %+v", e)
		}
	})
	t.Run("by subject", func(t *testing.T) {
		ten.Root.Post("/v1/policies/evaluate", map[string]any{"subjectType": "wallet", "subjectId": w, "amountUsd": "1"}).
			ExpectError(t, http.StatusNotFound, "POLICY_NOT_FOUND")
		attach(t, ten.Root, id, w)
		e := eval(map[string]any{"subjectType": "wallet", "subjectId": w, "amountUsd": "101"})
		if e.Allow || e.Reason != "PER_TXN_LIMIT" || e.PolicyID != id {
			t.Fatalf("evaluation: %+v", e)
		}
		row := findDecision(t, ten.ID, e.DecisionLogID)
		if row.SubjectType != "wallet" || row.SubjectID != w || row.Verdict.Reason != "PER_TXN_LIMIT" || row.SHA256 != version.SHA256 {
			t.Fatalf("decision row: %+v", row)
		}
		// A new version moves what the subject is evaluated against, and the pin follows.
		var v2 versionBody
		ten.Root.Post("/v1/policies/"+id+"/versions", map[string]any{"document": doc(nil)}).Expect(t, http.StatusCreated).Decode(t, &v2)
		e = eval(map[string]any{"subjectType": "wallet", "subjectId": w, "amountUsd": "101"})
		if !e.Allow || e.PolicyVersion != 2 || e.SHA256 != v2.SHA256 || findDecision(t, ten.ID, e.DecisionLogID).VersionID != v2.VersionID {
			t.Fatalf("after new version: %+v", e)
		}
	})
	t.Run("every evaluation is logged", func(t *testing.T) {
		rows := decisionsOf(t, ten.ID, id, "")
		if len(rows) < 9 {
			t.Fatalf("%d decision rows", len(rows))
		}
	})
	t.Run("refusals", func(t *testing.T) {
		cases := []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"policyId": id}, "amountUsd"},
			{map[string]any{"policyId": id, "amountUsd": "0"}, "amountUsd"},
			{map[string]any{"policyId": id, "amountUsd": "1.0000001"}, "amountUsd"},
			{map[string]any{"policyId": id, "amountUsd": "1", "mcc": "581"}, "mcc"},
			{map[string]any{"policyId": id, "amountUsd": "1", "counterparty": "0x12"}, "counterparty"},
			{map[string]any{"amountUsd": "1"}, "policyId"},
			{map[string]any{"policyId": id, "subjectType": "wallet", "subjectId": w, "amountUsd": "1"}, "policyId"},
			{map[string]any{"subjectType": "wallet", "amountUsd": "1"}, "subjectId"},
			{map[string]any{"policyId": id, "amountUsd": "1", "spent": "3"}, "spent"},
		}
		for _, c := range cases {
			m := ten.Root.Post("/v1/policies/evaluate", c.body).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
			if harness.Field(m, c.field) == "" {
				t.Fatalf("%v: error does not name %s: %v", c.body, c.field, m["details"])
			}
		}
		ten.Root.Post("/v1/policies/evaluate", map[string]any{"subjectType": "card", "subjectId": "card_1", "amountUsd": "1"}).
			ExpectError(t, http.StatusNotFound, "CARD_NOT_FOUND")
		ten.Root.Post("/v1/policies/evaluate", map[string]any{"policyId": "pol_missing", "amountUsd": "1"}).
			ExpectError(t, http.StatusNotFound, "POLICY_NOT_FOUND")
	})
}

// TestPolicies_Scopes: reads need policies:read, the dry run policies:evaluate and every write
// policies:write, so an agent-style key (read and evaluate, never write) can read and evaluate
// but not author.
func TestPolicies_Scopes(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	id := createPolicy(t, ten.Root, "scoped", limitsDoc)["policyId"].(string)
	att := attach(t, ten.Root, id, w)
	agentLike := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "agent-like",
		"scopes": []string{"policies:read", "policies:evaluate"}}))
	agentLike.Get("/v1/policies").Expect(t, http.StatusOK)
	agentLike.Get("/v1/policies/"+id).Expect(t, http.StatusOK)
	agentLike.Get("/v1/policies/"+id+"/versions").Expect(t, http.StatusOK)
	agentLike.Get("/v1/policies/"+id+"/attachments").Expect(t, http.StatusOK)
	agentLike.Post("/v1/policies/evaluate", map[string]any{"policyId": id, "amountUsd": "1"}).Expect(t, http.StatusOK)
	writes := []func() *harness.Response{
		func() *harness.Response {
			return agentLike.Post("/v1/policies", map[string]any{"name": "x", "document": limitsDoc})
		},
		func() *harness.Response { return del(agentLike, "/v1/policies/"+id) },
		func() *harness.Response {
			return agentLike.Post("/v1/policies/"+id+"/versions", map[string]any{"document": limitsDoc})
		},
		func() *harness.Response {
			return agentLike.Post("/v1/policies/"+id+"/attachments", map[string]any{"subjectType": "wallet", "subjectId": w})
		},
		func() *harness.Response {
			return del(agentLike, "/v1/policies/attachments/"+att["attachmentId"].(string))
		},
	}
	for i, write := range writes {
		m := write().ExpectError(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
		if m["details"].(map[string]any)["required"] != "policies:write" {
			t.Fatalf("write %d: %v", i, m)
		}
	}
	readOnly := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "read", "scopes": []string{"policies:read"}}))
	m := readOnly.Post("/v1/policies/evaluate", map[string]any{"policyId": id, "amountUsd": "1"}).ExpectError(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
	if m["details"].(map[string]any)["required"] != "policies:evaluate" {
		t.Fatalf("evaluate: %v", m)
	}
	evalOnly := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "eval", "scopes": []string{"policies:evaluate"}}))
	evalOnly.Get("/v1/policies").ExpectError(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
}
