package policy

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

func mustCompile(t testing.TB, doc string) IR {
	t.Helper()
	d, err := ParseDocument("document", []byte(doc))
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return Compile(d)
}

func TestCompile_Canonical(t *testing.T) {
	ir := mustCompile(t, `{"schemaVersion":1,
		"limits":{"perTransactionUsd":"100.500","dailyUsd":"1000.000000"},
		"mcc":{"blocked":["5812","742","5812"],"allowed":[]},
		"counterparties":{"blocked":["0x00000000000000000000000000000000000000BB","0x00000000000000000000000000000000000000aa"]}}`)
	want := `{"counterparties":{"blocked":["0x00000000000000000000000000000000000000aa","0x00000000000000000000000000000000000000bb"]},` +
		`"limits":{"dailyUsd":"1000","perTransactionUsd":"100.5"},"mcc":{"blocked":["0742","5812"]},"schemaVersion":1}`
	if got := string(ir.Canonical()); got != want {
		t.Fatalf("canonical\n got %s\nwant %s", got, want)
	}
	if ir.MCC.Allowed != nil {
		t.Fatalf("empty allowlist did not collapse: %#v", ir.MCC.Allowed)
	}
}

// TestCompile_Additive: a document without the counterparty section compiles to the same IR
// and sha256 as one with an empty section, as before that section existed.
func TestCompile_Additive(t *testing.T) {
	before := `{"schemaVersion":1,"limits":{"dailyUsd":"50"},"mcc":{"blocked":["5812"]}}`
	// The canonical bytes of this document, frozen before counterparties were added.
	const frozen = `{"limits":{"dailyUsd":"50"},"mcc":{"blocked":["5812"]},"schemaVersion":1}`
	for _, doc := range []string{
		before,
		`{"schemaVersion":1,"limits":{"dailyUsd":"50"},"mcc":{"blocked":["5812"]},"counterparties":{}}`,
		`{"schemaVersion":1,"limits":{"dailyUsd":"50"},"mcc":{"blocked":["5812"]},"counterparties":null}`,
		`{"schemaVersion":1,"limits":{"dailyUsd":"50"},"mcc":{"blocked":["5812"]},"counterparties":{"blocked":[],"allowed":[]}}`,
	} {
		ir := mustCompile(t, doc)
		if string(ir.Canonical()) != frozen {
			t.Fatalf("%s compiled to %s", doc, ir.Canonical())
		}
	}
}

// randomRuleSet returns the entries of a rule set and a document builder that writes them in
// a given order, duplication and case.
type ruleSet struct {
	mccBlocked, mccAllowed, cpBlocked, cpAllowed []string
	perTxn, daily                                string
}

func randomRuleSet(r *rand.Rand) ruleSet {
	var rs ruleSet
	for i := 0; i < r.Intn(6); i++ {
		rs.mccBlocked = append(rs.mccBlocked, fmt.Sprintf("%04d", r.Intn(10000)))
	}
	for i := 0; i < r.Intn(6); i++ {
		rs.mccAllowed = append(rs.mccAllowed, fmt.Sprintf("%04d", r.Intn(10000)))
	}
	for i := 0; i < r.Intn(6); i++ {
		rs.cpBlocked = append(rs.cpBlocked, fmt.Sprintf("0x%040x", r.Int63()))
	}
	for i := 0; i < r.Intn(6); i++ {
		rs.cpAllowed = append(rs.cpAllowed, fmt.Sprintf("0x%039x1", r.Int63())) // odd last digit: never blocked
	}
	rs.perTxn = fmt.Sprintf("%d.%02d", 1+r.Intn(1000), r.Intn(100))
	rs.daily = fmt.Sprintf("%d", 1+r.Intn(100000))
	return rs
}

// variant writes the rule set with entries permuted, duplicated and re-cased, MCCs with their
// leading zeros stripped and caps with trailing zeros.
func (rs ruleSet) variant(r *rand.Rand) string {
	mess := func(list []string, recase func(string) string) []string {
		out := append([]string(nil), list...)
		for _, s := range list {
			if r.Intn(2) == 0 {
				out = append(out, recase(s))
			}
		}
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	stripZeros := func(s string) string {
		if r.Intn(2) == 0 && strings.HasPrefix(s, "00") && s != "0000" {
			return strings.TrimPrefix(s, "0")
		}
		return s
	}
	upper := func(s string) string { return "0x" + strings.ToUpper(s[2:]) }
	doc := map[string]any{
		"schemaVersion":  1,
		"limits":         map[string]any{"perTransactionUsd": rs.perTxn + strings.Repeat("0", r.Intn(3)), "dailyUsd": rs.daily},
		"mcc":            map[string]any{"blocked": mess(rs.mccBlocked, stripZeros), "allowed": mess(rs.mccAllowed, stripZeros)},
		"counterparties": map[string]any{"blocked": mess(rs.cpBlocked, upper), "allowed": mess(rs.cpAllowed, upper)},
	}
	raw, _ := json.Marshal(doc)
	return string(raw)
}

func TestCompile_EqualRuleSetsGiveEqualSHA(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for i := 0; i < 300; i++ {
		rs := randomRuleSet(r)
		first := mustCompile(t, rs.variant(r))
		for j := 0; j < 5; j++ {
			doc := rs.variant(r)
			ir := mustCompile(t, doc)
			if ir.SHA256() != first.SHA256() || string(ir.Canonical()) != string(first.Canonical()) {
				t.Fatalf("rule set %d variant %d:\n%s\ncompiled to %s\nnot %s", i, j, doc, ir.Canonical(), first.Canonical())
			}
		}
	}
}

func TestCompile_DifferentRulesGiveDifferentSHA(t *testing.T) {
	a := mustCompile(t, `{"schemaVersion":1,"mcc":{"blocked":["5812"]}}`)
	b := mustCompile(t, `{"schemaVersion":1,"mcc":{"allowed":["5812"]}}`)
	c := mustCompile(t, `{"schemaVersion":1,"limits":{"dailyUsd":"5812"}}`)
	if a.SHA256() == b.SHA256() || b.SHA256() == c.SHA256() || a.SHA256() == c.SHA256() {
		t.Fatal("different rule sets share a sha256")
	}
}

func TestParseIR_RoundTripAndTamper(t *testing.T) {
	ir := mustCompile(t, `{"schemaVersion":1,"limits":{"dailyUsd":"5"},"counterparties":{"allowed":["0x00000000000000000000000000000000000000AA"]}}`)
	back, err := ParseIR(ir.Canonical(), ir.SHA256())
	if err != nil || back.SHA256() != ir.SHA256() {
		t.Fatalf("round trip: %v", err)
	}
	if _, err := ParseIR([]byte(strings.Replace(string(ir.Canonical()), `"5"`, `"6"`, 1)), ir.SHA256()); err == nil {
		t.Fatal("a tampered IR was accepted")
	}
	if _, err := ParseIR([]byte(`{"schemaVersion":1, "limits":{"dailyUsd":"5"}}`), ir.SHA256()); err == nil {
		t.Fatal("a non-canonical IR was accepted")
	}
}

// FuzzParseDocument: the parser never panics, and whatever it accepts compiles to an IR that
// parses back as itself (so nothing invalid gets through).
func FuzzParseDocument(f *testing.F) {
	for _, seed := range []string{
		`{"schemaVersion":1}`, `{"schemaVersion":1,"limits":{"dailyUsd":"1.5"}}`,
		`{"schemaVersion":1,"mcc":{"blocked":["58"],"allowed":["5812"]}}`,
		`{"schemaVersion":1,"counterparties":{"blocked":["0x00000000000000000000000000000000000000aa"]}}`,
		`{"schemaVersion":2}`, `null`, `[]`, `{"schemaVersion":1,"limits":{"dailyUsd":"-1"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		doc, err := ParseDocument("document", raw)
		if err != nil {
			return
		}
		ir := Compile(doc)
		for _, l := range []*int64{ir.Limits.PerTransaction, ir.Limits.Daily, ir.Limits.Weekly, ir.Limits.Monthly} {
			if l != nil && *l <= 0 {
				t.Fatalf("accepted a non-positive cap: %s", raw)
			}
		}
		for _, a := range ir.Counterparties.Allowed {
			if containsSorted(ir.Counterparties.Blocked, a) {
				t.Fatalf("accepted %s on both lists: %s", a, raw)
			}
		}
		if _, err := ParseIR(ir.Canonical(), ir.SHA256()); err != nil {
			t.Fatalf("accepted %s but its IR does not read back: %v", raw, err)
		}
	})
}
