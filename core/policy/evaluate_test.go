package policy

import (
	"math/rand"
	"reflect"
	"testing"
)

const (
	addrA = "0x00000000000000000000000000000000000000aa"
	addrB = "0x00000000000000000000000000000000000000bb"
	addrC = "0x00000000000000000000000000000000000000cc"
)

func usd(n int64) int64 { return n * 1_000_000 }

func TestEvaluate_Order(t *testing.T) {
	full := `{"schemaVersion":1,"limits":{"perTransactionUsd":"100","dailyUsd":"50","weeklyUsd":"500","monthlyUsd":"1000"},
		"mcc":{"blocked":["7995"],"allowed":["5812","7995"]},
		"counterparties":{"blocked":["` + addrA + `"],"allowed":["` + addrB + `"]}}`
	cases := []struct {
		name   string
		doc    string
		tx     Transaction
		reason string
		trace  []Result // cpBlocked, cpAllowed, mccBlocked, mccAllowed, perTxn, daily, weekly, monthly
	}{
		{"everything passes", full, Transaction{AmountBaseUnits: usd(10), MCC: "5812", Counterparty: addrB}, ReasonAllowed,
			[]Result{ResultPass, ResultPass, ResultPass, ResultPass, ResultPass, ResultPass, ResultPass, ResultPass}},
		{"counterparty denylist before caps", full, Transaction{AmountBaseUnits: usd(200), Counterparty: addrA}, CodeCounterpartyBlocked,
			[]Result{ResultFail, ResultFail, ResultSkip, ResultSkip, ResultFail, ResultFail, ResultPass, ResultPass}},
		{"allowlist is default-deny", full, Transaction{AmountBaseUnits: usd(1), Counterparty: addrC}, CodeCounterpartyNotAllowed,
			[]Result{ResultPass, ResultFail, ResultSkip, ResultSkip, ResultPass, ResultPass, ResultPass, ResultPass}},
		{"allowlist match is case-insensitive", full, Transaction{AmountBaseUnits: usd(1), Counterparty: "0x00000000000000000000000000000000000000BB"}, ReasonAllowed,
			[]Result{ResultPass, ResultPass, ResultSkip, ResultSkip, ResultPass, ResultPass, ResultPass, ResultPass}},
		{"MCC denylist wins over allowlist", full, Transaction{AmountBaseUnits: usd(1), MCC: "7995"}, CodeMCCBlocked,
			[]Result{ResultSkip, ResultSkip, ResultFail, ResultPass, ResultPass, ResultPass, ResultPass, ResultPass}},
		{"MCC not on allowlist", full, Transaction{AmountBaseUnits: usd(1), MCC: "4111"}, CodeMCCNotAllowed,
			[]Result{ResultSkip, ResultSkip, ResultPass, ResultFail, ResultPass, ResultPass, ResultPass, ResultPass}},
		{"per-transaction before daily", full, Transaction{AmountBaseUnits: usd(101)}, CodePerTxnLimit,
			[]Result{ResultSkip, ResultSkip, ResultSkip, ResultSkip, ResultFail, ResultFail, ResultPass, ResultPass}},
		{"daily cap, zero spend", full, Transaction{AmountBaseUnits: usd(60)}, CodeDailyCap,
			[]Result{ResultSkip, ResultSkip, ResultSkip, ResultSkip, ResultPass, ResultFail, ResultPass, ResultPass}},
		{"cap is inclusive", full, Transaction{AmountBaseUnits: usd(50)}, ReasonAllowed,
			[]Result{ResultSkip, ResultSkip, ResultSkip, ResultSkip, ResultPass, ResultPass, ResultPass, ResultPass}},
		{"weekly cap", `{"schemaVersion":1,"limits":{"weeklyUsd":"5"}}`, Transaction{AmountBaseUnits: usd(6)}, CodeWeeklyCap,
			[]Result{ResultSkip, ResultSkip, ResultSkip, ResultSkip, ResultSkip, ResultSkip, ResultFail, ResultSkip}},
		{"monthly cap", `{"schemaVersion":1,"limits":{"monthlyUsd":"5"}}`, Transaction{AmountBaseUnits: usd(6)}, CodeMonthlyCap,
			[]Result{ResultSkip, ResultSkip, ResultSkip, ResultSkip, ResultSkip, ResultSkip, ResultSkip, ResultFail}},
		{"empty policy allows", `{"schemaVersion":1}`, Transaction{AmountBaseUnits: usd(1_000_000), MCC: "1234", Counterparty: addrA}, ReasonAllowed,
			[]Result{ResultSkip, ResultSkip, ResultSkip, ResultSkip, ResultSkip, ResultSkip, ResultSkip, ResultSkip}},
		{"leading-zero MCC entry matches", `{"schemaVersion":1,"mcc":{"blocked":["742"]}}`, Transaction{AmountBaseUnits: 1, MCC: "0742"}, CodeMCCBlocked,
			[]Result{ResultSkip, ResultSkip, ResultFail, ResultSkip, ResultSkip, ResultSkip, ResultSkip, ResultSkip}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Evaluate(mustCompile(t, c.doc), c.tx)
			if v.Reason != c.reason || v.Allow != (c.reason == ReasonAllowed) {
				t.Fatalf("verdict %+v, want reason %s", v, c.reason)
			}
			got := make([]Result, len(v.Trace))
			for i, e := range v.Trace {
				got[i] = e.Result
			}
			if !reflect.DeepEqual(got, c.trace) {
				t.Fatalf("trace %v, want %v", got, c.trace)
			}
		})
	}
}

func TestEvaluate_TraceNamesRulesAndCodes(t *testing.T) {
	v := Evaluate(IR{}, Transaction{AmountBaseUnits: 1})
	want := []TraceEntry{
		{"counterparties.blocked", ResultSkip, CodeCounterpartyBlocked},
		{"counterparties.allowed", ResultSkip, CodeCounterpartyNotAllowed},
		{"mcc.blocked", ResultSkip, CodeMCCBlocked},
		{"mcc.allowed", ResultSkip, CodeMCCNotAllowed},
		{"limits.perTransactionUsd", ResultSkip, CodePerTxnLimit},
		{"limits.dailyUsd", ResultSkip, CodeDailyCap},
		{"limits.weeklyUsd", ResultSkip, CodeWeeklyCap},
		{"limits.monthlyUsd", ResultSkip, CodeMonthlyCap},
	}
	if !reflect.DeepEqual(v.Trace, want) {
		t.Fatalf("trace %+v", v.Trace)
	}
}

// TestEvaluate_Pure: the same IR and transaction always give the same verdict and trace, and
// equal rule sets written differently give the same verdicts.
func TestEvaluate_Pure(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 200; i++ {
		rs := randomRuleSet(r)
		a, b := mustCompile(t, rs.variant(r)), mustCompile(t, rs.variant(r))
		for j := 0; j < 10; j++ {
			tx := Transaction{AmountBaseUnits: r.Int63n(usd(2000))}
			if r.Intn(2) == 0 && len(rs.mccAllowed) > 0 {
				tx.MCC = rs.mccAllowed[r.Intn(len(rs.mccAllowed))]
			}
			if r.Intn(2) == 0 && len(rs.cpAllowed) > 0 {
				tx.Counterparty = rs.cpAllowed[r.Intn(len(rs.cpAllowed))]
			}
			first := Evaluate(a, tx)
			if again := Evaluate(a, tx); !reflect.DeepEqual(first, again) {
				t.Fatalf("not deterministic: %+v vs %+v", first, again)
			}
			if other := Evaluate(b, tx); !reflect.DeepEqual(first, other) {
				t.Fatalf("equal rule sets disagree: %+v vs %+v", first, other)
			}
		}
	}
}

func TestEvaluateCumulative(t *testing.T) {
	ir := mustCompile(t, `{"schemaVersion":1,"limits":{"perTransactionUsd":"100","dailyUsd":"200"},"mcc":{"blocked":["7995"]}}`)
	cap := func(n int64) *int64 { v := usd(n); return &v }
	card := CardLimits{Limits: Limits{Daily: cap(150), Weekly: cap(300)}, MCC: Lists{Allowed: []string{"5812", "7995", "742"}}}
	cases := []struct {
		name   string
		policy *IR
		card   CardLimits
		tx     Transaction
		spent  Spend
		reason string
	}{
		{"within every cap", &ir, card, Transaction{AmountBaseUnits: usd(50), MCC: "5812"}, Spend{Daily: usd(99), Weekly: usd(99)}, ReasonAllowed},
		{"tracked spend plus amount over the card's lower daily cap", &ir, card, Transaction{AmountBaseUnits: usd(60)}, Spend{Daily: usd(100)}, CodeDailyCap},
		{"policy daily alone would allow it", &ir, CardLimits{}, Transaction{AmountBaseUnits: usd(60)}, Spend{Daily: usd(100)}, ReasonAllowed},
		{"weekly from the card only", &ir, card, Transaction{AmountBaseUnits: usd(10)}, Spend{Weekly: usd(295)}, CodeWeeklyCap},
		{"policy per-transaction cap", &ir, card, Transaction{AmountBaseUnits: usd(101)}, Spend{}, CodePerTxnLimit},
		{"policy denylist with card allowlist", &ir, card, Transaction{AmountBaseUnits: 1, MCC: "7995"}, Spend{}, CodeMCCBlocked},
		{"card allowlist", &ir, card, Transaction{AmountBaseUnits: 1, MCC: "4111"}, Spend{}, CodeMCCNotAllowed},
		{"card allowlist with a short code", nil, card, Transaction{AmountBaseUnits: 1, MCC: "0742"}, Spend{}, ReasonAllowed},
		{"no policy: card limits still apply", nil, card, Transaction{AmountBaseUnits: usd(151)}, Spend{}, CodeDailyCap},
		{"card empty allowlist allows nothing", nil, CardLimits{MCC: Lists{Allowed: []string{}}}, Transaction{AmountBaseUnits: 1, MCC: "5812"}, Spend{}, CodeMCCNotAllowed},
		{"overflowing spend fails closed", &ir, card, Transaction{AmountBaseUnits: usd(1)}, Spend{Daily: 1<<63 - 1}, CodeDailyCap},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := EvaluateCumulative(c.policy, c.card, c.tx, c.spent)
			if v.Reason != c.reason {
				t.Fatalf("reason %s, want %s: %+v", v.Reason, c.reason, v.Trace)
			}
			if again := EvaluateCumulative(c.policy, c.card, c.tx, c.spent); !reflect.DeepEqual(v, again) {
				t.Fatal("not deterministic")
			}
		})
	}
	// Zero spend through the cumulative entry point is exactly Evaluate.
	tx := Transaction{AmountBaseUnits: usd(150), MCC: "5812"}
	if a, b := EvaluateCumulative(&ir, CardLimits{}, tx, Spend{}), Evaluate(ir, tx); !reflect.DeepEqual(a, b) {
		t.Fatalf("cumulative at zero spend %+v differs from Evaluate %+v", a, b)
	}
}
