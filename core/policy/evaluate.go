package policy

import (
	"strings"

	"github.com/corridorhq/corridor/core"
)

// Rule-trace codes (docs/api.md Policies; the same codes are card authorization decline reasons).
const (
	CodePerTxnLimit            = "PER_TXN_LIMIT"
	CodeDailyCap               = "DAILY_CAP"
	CodeWeeklyCap              = "WEEKLY_CAP"
	CodeMonthlyCap             = "MONTHLY_CAP"
	CodeMCCBlocked             = "MCC_BLOCKED"
	CodeMCCNotAllowed          = "MCC_NOT_ALLOWED"
	CodeCounterpartyBlocked    = "COUNTERPARTY_BLOCKED"
	CodeCounterpartyNotAllowed = "COUNTERPARTY_NOT_ALLOWED"
)

// ReasonAllowed is the verdict reason when every rule passed or was skipped.
const ReasonAllowed = "ALLOWED"

// Result of one rule.
type Result string

const (
	ResultPass Result = "pass"
	ResultFail Result = "fail"
	ResultSkip Result = "skip" // the rule is absent, or its field was not supplied
)

// TraceEntry is one rule's outcome. Rule names the document field the rule comes from.
type TraceEntry struct {
	Rule   string
	Result Result
	Code   string
}

// Verdict is the engine's answer: allowed or not, the first failing code as the reason, and
// every rule's outcome in evaluation order.
type Verdict struct {
	Allow  bool
	Reason string
	Trace  []TraceEntry
}

// Transaction is what is evaluated. MCC and Counterparty are "" when not supplied; their rules
// are then skipped.
type Transaction struct {
	AmountBaseUnits int64
	MCC             string // four digits
	Counterparty    string // 0x + 40 hex, any case
}

// Spend is what a subject already spent in each window (base units).
type Spend struct {
	Daily, Weekly, Monthly int64
}

// Evaluate is the zero-spend evaluation of docs/api.md: interval caps test the single transaction
// against an empty window, so the same input always yields the same verdict and trace.
//
// Order: counterparty rules (denylist, then allowlist), MCC rules (denylist, then allowlist),
// then the per-transaction cap and the daily, weekly and monthly caps. Every rule is traced;
// the reason is the first failure in that order, so a denylist wins over an allowlist and
// counterparty rules win over caps.
func Evaluate(ir IR, tx Transaction) Verdict {
	return evaluate(rulesOf(&ir, CardLimits{}), tx, Spend{})
}

// rules is what evaluation reads: caps already merged (most restrictive wins), MCC lists of
// every source, counterparty lists of the policy.
type rules struct {
	caps         [4]*int64 // per transaction, daily, weekly, monthly
	mccBlocked   [][]string
	mccAllowed   [][]string // every allowlist present must contain the MCC
	cpBlocked    []string
	cpAllowed    []string
	cpAllowedSet bool
}

var capRules = [4]struct{ rule, code string }{
	{"limits.perTransactionUsd", CodePerTxnLimit},
	{"limits.dailyUsd", CodeDailyCap},
	{"limits.weeklyUsd", CodeWeeklyCap},
	{"limits.monthlyUsd", CodeMonthlyCap},
}

func evaluate(r rules, tx Transaction, spent Spend) Verdict {
	cp := strings.ToLower(tx.Counterparty)
	trace := make([]TraceEntry, 0, 8)
	trace = append(trace,
		listRule("counterparties.blocked", CodeCounterpartyBlocked, cp, len(r.cpBlocked) > 0, !containsSorted(r.cpBlocked, cp)),
		listRule("counterparties.allowed", CodeCounterpartyNotAllowed, cp, r.cpAllowedSet, containsSorted(r.cpAllowed, cp)),
		listRule("mcc.blocked", CodeMCCBlocked, tx.MCC, len(r.mccBlocked) > 0, !inAny(r.mccBlocked, tx.MCC)),
		listRule("mcc.allowed", CodeMCCNotAllowed, tx.MCC, len(r.mccAllowed) > 0, inEvery(r.mccAllowed, tx.MCC)),
	)
	windows := [4]int64{0, spent.Daily, spent.Weekly, spent.Monthly}
	for i, c := range capRules {
		entry := TraceEntry{Rule: c.rule, Code: c.code, Result: ResultSkip}
		if r.caps[i] != nil {
			entry.Result = ResultFail
			if total, err := core.AddInt64(windows[i], tx.AmountBaseUnits); err == nil && total <= *r.caps[i] {
				entry.Result = ResultPass
			}
		}
		trace = append(trace, entry)
	}
	v := Verdict{Allow: true, Reason: ReasonAllowed, Trace: trace}
	for _, e := range trace {
		if e.Result == ResultFail {
			v.Allow, v.Reason = false, e.Code
			break
		}
	}
	return v
}

// listRule traces a list rule: skipped when the field is not supplied or the rule is absent.
func listRule(rule, code, value string, present, passes bool) TraceEntry {
	e := TraceEntry{Rule: rule, Code: code, Result: ResultSkip}
	switch {
	case value == "" || !present:
	case passes:
		e.Result = ResultPass
	default:
		e.Result = ResultFail
	}
	return e
}

func containsSorted(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func inAny(lists [][]string, s string) bool {
	for _, l := range lists {
		if containsSorted(l, s) {
			return true
		}
	}
	return false
}

func inEvery(lists [][]string, s string) bool {
	for _, l := range lists {
		if !containsSorted(l, s) {
			return false
		}
	}
	return true
}
